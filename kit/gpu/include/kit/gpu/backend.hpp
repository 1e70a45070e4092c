// kit/gpu/backend.hpp — what the GPU track needs of its backend, in plain pointers and sizes:
// memory, a Linear on the backend's BLAS, the split and merge of heads, and what the backend
// is. One implementation (kit/gpu/backend.cu) compiles for both backends: CUDA (nvcc, cuBLAS)
// and Thrust's OpenMP backend (g++, OpenBLAS). nvcc reads this header; no xtensor here.
#pragma once

#include "attn/fused_attention.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace attn::gpu {

// "CUDA" or "OMP": the backend this build's GPU track was compiled for (ATTN_GPU).
const char* backend_name();

// Whether the backend can run here: OMP always; CUDA when a CUDA device is present.
bool device_available();

// What runs the kernels: "NVIDIA H100 80GB HBM3 (CUDA 13.0, driver 580.1)" or
// "OpenMP, 2 threads". "no CUDA device: <the runtime's reason>" where there is none.
std::string device_description();

// Waits for the device's queued work (a timer around a kernel needs it on CUDA).
void synchronize();

// float values in the backend's memory (a thrust::device_vector<float> underneath): GPU
// memory on CUDA, host memory on OpenMP. Move-only; copies go through the host explicitly.
class DeviceArray {
public:
    explicit DeviceArray(std::size_t count);            // zeros
    DeviceArray(const float* host, std::size_t count);  // a copy of host[0, count)
    DeviceArray(DeviceArray&&) noexcept;
    DeviceArray& operator=(DeviceArray&&) noexcept;
    ~DeviceArray();

    float* data();
    const float* data() const;
    std::size_t size() const;
    void copy_to_host(float* host) const;  // host has room for size() values

private:
    struct Storage;
    std::unique_ptr<Storage> storage_;
};

// out (m, n) = a (m, k) @ weight (n, k)^T + bias (n): nn.Linear on m rows, PyTorch's layout
// of weight; bias may be nullptr (no bias). All in the backend's memory. cuBLAS's or
// OpenBLAS's sgemm.
void linear(const float* a, const float* weight, const float* bias, float* out, std::int64_t m,
            std::int64_t k, std::int64_t n);

// (B, T, heads * head_dim) -> (B, heads, T, head_dim) and back: exercise 19's split_heads and
// merge_heads on the backend's memory. Token t of batch item b starts at merged +
// (b * T + t) * row_stride: row_stride is heads * head_dim for a tensor of its own, more where
// the heads are one part of wider rows (queries, keys and values side by side, (B, T, 3 *
// d_out), from one projection).
void split_heads(const float* merged, std::int64_t row_stride, float* heads,
                 const HeadsShape& shape);
void merge_heads(const float* heads, float* merged, const HeadsShape& shape);

}  // namespace attn::gpu

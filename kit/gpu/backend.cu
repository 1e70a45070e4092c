// kit/gpu/backend.cu — the GPU track's backend (kit/gpu/backend.hpp): memory, Linear on the
// backend's BLAS, the split and merge of heads. One source, two compilers: nvcc for CUDA
// (cuBLAS), g++ for Thrust's OpenMP backend (OpenBLAS), chosen by ATTN_GPU (cmake/AttnGpu.cmake).
#include "kit/gpu/backend.hpp"

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <stdexcept>
#include <string>
#include <utility>

#if defined(__CUDACC__)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#else
#include <cblas.h>
#include <omp.h>
#endif

namespace attn::gpu {

namespace {

#if defined(__CUDACC__)
void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

void check(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": cuBLAS status " +
                                 std::to_string(static_cast<int>(status)));
}

// One handle for the program's life: creating one costs milliseconds, and destroying it at
// exit could run after the CUDA runtime has shut down.
cublasHandle_t cublas() {
    static cublasHandle_t handle = [] {
        cublasHandle_t made = nullptr;
        check(cublasCreate(&made), "cublasCreate");
        return made;
    }();
    return handle;
}
#endif

// Runs functor(i) for i in [0, count) on the backend.
template <class Functor>
void for_each_index(std::int64_t count, Functor functor) {
    thrust::for_each(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                     thrust::counting_iterator<std::int64_t>(count), functor);
}

// out[i, j] = bias[j] for every row i of an (m, n) output.
struct BroadcastRows {
    const float* bias;
    float* out;
    std::int64_t n;
    ATTN_HOST_DEVICE void operator()(std::int64_t i) const { out[i] = bias[i % n]; }
};

// One element of the (B, heads, T, head_dim) tensor from its (B, T, heads * head_dim) form,
// or back (to_heads false).
struct MoveHeads {
    const float* from;
    float* to;
    HeadsShape shape;
    std::int64_t row_stride;  // of the merged tensor
    bool to_heads;
    ATTN_HOST_DEVICE void operator()(std::int64_t i) const {
        const std::int64_t k = i % shape.head_dim, row = i / shape.head_dim;
        const std::int64_t t = row % shape.tokens, h = (row / shape.tokens) % shape.heads;
        const std::int64_t b = row / (shape.tokens * shape.heads);
        const std::int64_t merged = (b * shape.tokens + t) * row_stride + h * shape.head_dim + k;
        if (to_heads)
            to[i] = from[merged];
        else
            to[merged] = from[i];
    }
};

}  // namespace

#if defined(__CUDACC__)
const char* backend_name() { return "CUDA"; }

bool device_available() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

std::string device_description() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
        return std::string("no CUDA device: ") +
               (status != cudaSuccess ? cudaGetErrorString(status) : "none found");
    cudaDeviceProp properties{};
    int device = 0, runtime = 0, driver = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    const auto version = [](int v) {
        return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    };
    return std::string(properties.name) + " (CUDA runtime " + version(runtime) + ", driver " +
           version(driver) + ")";
}

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
#else
const char* backend_name() { return "OMP"; }

bool device_available() { return true; }

std::string device_description() {
    return "OpenMP, " + std::to_string(omp_get_max_threads()) + " threads";
}

void synchronize() {}
#endif

struct DeviceArray::Storage {
    thrust::device_vector<float> values;
};

DeviceArray::DeviceArray(std::size_t count) : storage_(new Storage{}) {
    storage_->values.assign(count, 0.0f);
}

DeviceArray::DeviceArray(const float* host, std::size_t count) : storage_(new Storage{}) {
    storage_->values.assign(host, host + count);
}

DeviceArray::DeviceArray(DeviceArray&&) noexcept = default;
DeviceArray& DeviceArray::operator=(DeviceArray&&) noexcept = default;
DeviceArray::~DeviceArray() = default;

float* DeviceArray::data() { return thrust::raw_pointer_cast(storage_->values.data()); }

const float* DeviceArray::data() const { return thrust::raw_pointer_cast(storage_->values.data()); }

std::size_t DeviceArray::size() const { return storage_->values.size(); }

void DeviceArray::copy_to_host(float* host) const {
    thrust::copy(storage_->values.begin(), storage_->values.end(), host);
}

void linear(const float* a, const float* weight, const float* bias, float* out, std::int64_t m,
            std::int64_t k, std::int64_t n) {
    if (bias != nullptr) for_each_index(m * n, BroadcastRows{bias, out, n});
    const float one = 1.0f, beta = bias != nullptr ? 1.0f : 0.0f;
#if defined(__CUDACC__)
    // cuBLAS is column-major: the row-major (m, n) out is the column-major (n, m) out^T =
    // weight (n, k) @ a^T, and the row-major weight (n, k) is a column-major (k, n) matrix.
    check(cublasSgemm(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                      static_cast<int>(k), &one, weight, static_cast<int>(k), a,
                      static_cast<int>(k), &beta, out, static_cast<int>(n)),
          "linear: cublasSgemm");
#else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), one, a, static_cast<int>(k), weight, static_cast<int>(k), beta,
                out, static_cast<int>(n));
#endif
}

void split_heads(const float* merged, std::int64_t row_stride, float* heads,
                 const HeadsShape& shape) {
    for_each_index(shape.size(), MoveHeads{merged, heads, shape, row_stride, true});
}

void merge_heads(const float* heads, float* merged, const HeadsShape& shape) {
    for_each_index(shape.size(),
                   MoveHeads{heads, merged, shape, shape.heads * shape.head_dim, false});
}

}  // namespace attn::gpu

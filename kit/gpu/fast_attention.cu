// kit/gpu/fast_attention.cu — the kit's fast fused causal attention kernel
// (kit/gpu/fast_attention.hpp): FlashAttention's online softmax in fp32, one pass over the
// keys and values of each (b, h), the T x T scores never stored.
//
// CUDA builds (-DATTN_GPU=CUDA): nvcc compiles it with its kernels (fast_attention_kernels.cuh),
//   nvcc -std=c++17 -arch=sm_90 -I include -c kit/gpu/fast_attention.cu
// The kernels use nothing newer than sm_70 (__shfl_xor_sync, float4 shared-memory loads);
// CUDA 13's oldest target is sm_75.
// OpenMP builds: g++ compiles this file as C++ (-x c++); fast_causal_attention then throws,
// since the kernel is CUDA only (exercise 23's Thrust functor is the OpenMP path).
//
// Layout: queries, keys, values, context are (B, heads, T, head_dim) row-major in device
// memory; row r = (b * heads + h) * T + t starts at r * head_dim.
//
// Design of the tiled kernel (head_dim 32, 64, 128; a template parameter):
// - a block computes 64 consecutive query rows t of one (b, h); grid (B * heads, ceil(T / 64)).
// - a row is shared by head_dim / 32 lanes ("a row group"), each holding 32 of its head_dim
//   floats of q_t and of the running weighted sum of values in registers: 64 registers of
//   state per thread whatever head_dim is, so head_dim 128 does not spill as one thread per
//   row would (256 floats of state). A lane holds float4s g, g + G, g + 2G, ... of the row
//   (g its lane in the group, G the group's size): the G lanes reading one shared key row read
//   G neighbouring float4s, conflict-free; every row group of the warp reads the same key row
//   at the same time, a broadcast. The dot product's G partial sums meet by __shfl_xor_sync.
// - the block stages a tile of keys and values (64 keys; 32 at head_dim 128, so the two
//   tiles fit 32 KiB of static shared memory) with coalesced float4 loads, and walks the tiles
//   only up to its last row: tiles above the causal diagonal are never loaded.
// - scores are taken 16 keys at a time into registers, then one online-softmax rescale for
//   the 16 (not one per key); q is pre-scaled by log2(e) / sqrt(head_dim) so exp is exp2f.
// - the heaviest query tiles (the last rows, which see the most keys) are launched first.
// Any other head_dim (or a pointer not 16-byte aligned) takes a generic kernel: one thread
// per row, keys and values read from global memory, the running sum kept in context itself.
// tests/kit/test_fast_attention_emulation.cpp runs both kernels on the CPU (no GPU needed).
#include "attn/errors.hpp"
#include "kit/gpu/fast_attention.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#include <climits>
#include <cmath>
#include <cuda_runtime.h>
#endif

#if defined(__CUDACC__)
#include "fast_attention_kernels.cuh"  // after <cuda_runtime.h>: it uses CUDA's names
#endif

namespace attn::gpu {

#if defined(__CUDACC__)

namespace {

using detail::causal_attention_generic;
using detail::causal_attention_tiled;
using detail::TileConfig;

// ---- host side -----------------------------------------------------------------------------

std::string shape_text(const HeadsShape& shape) {
    return "(B, heads, T, head_dim) = (" + std::to_string(shape.batch) + ", " +
           std::to_string(shape.heads) + ", " + std::to_string(shape.tokens) + ", " +
           std::to_string(shape.head_dim) + ")";
}

void check_launch(const char* kernel) {
    const cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) {
        throw std::runtime_error(std::string("fast_causal_attention: launching ") + kernel +
                                 " failed: " + cudaGetErrorString(error));
    }
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

template <int HEAD_DIM>
void launch_tiled(const float* queries, const float* keys, const float* values, float* context,
                  const HeadsShape& shape, float scale_log2) {
    using Config = TileConfig<HEAD_DIM>;
    const std::int64_t query_tiles =
        (shape.tokens + Config::kRowsPerBlock - 1) / Config::kRowsPerBlock;
    const dim3 grid(static_cast<unsigned>(shape.batch * shape.heads),
                    static_cast<unsigned>(query_tiles));
    causal_attention_tiled<HEAD_DIM><<<grid, Config::kThreads>>>(
        reinterpret_cast<const float4*>(queries), reinterpret_cast<const float4*>(keys),
        reinterpret_cast<const float4*>(values), reinterpret_cast<float4*>(context),
        static_cast<int>(shape.tokens), scale_log2);
    check_launch("causal_attention_tiled");
}

}  // namespace

void fast_causal_attention(const float* queries, const float* keys, const float* values,
                           float* context, const HeadsShape& shape) {
    if (shape.batch <= 0 || shape.heads <= 0 || shape.tokens <= 0 || shape.head_dim <= 0) {
        throw shape_error("fast_causal_attention: every size must be positive, got " +
                          shape_text(shape));
    }
    // The grid's limits: B * heads blocks along x (2^31 - 1), ceil(T / 64) along y (65535).
    if (shape.batch * shape.heads > INT_MAX || shape.tokens > 65535LL * 64) {
        throw shape_error(
            "fast_causal_attention: B * heads must be at most 2^31 - 1 and T at "
            "most 4194240, got " +
            shape_text(shape));
    }
    // log2(e) / sqrt(head_dim): softmax(s / sqrt(d)) = normalised 2^(s * log2(e) / sqrt(d)).
    const float scale_log2 =
        static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(shape.head_dim)));

    const bool vectorizable =
        aligned16(queries) && aligned16(keys) && aligned16(values) && aligned16(context);
    if (vectorizable && shape.head_dim == 32) {
        launch_tiled<32>(queries, keys, values, context, shape, scale_log2);
    } else if (vectorizable && shape.head_dim == 64) {
        launch_tiled<64>(queries, keys, values, context, shape, scale_log2);
    } else if (vectorizable && shape.head_dim == 128) {
        launch_tiled<128>(queries, keys, values, context, shape, scale_log2);
    } else {
        constexpr int kThreads = 128;
        const std::int64_t rows = shape.rows();
        const auto blocks = static_cast<unsigned>((rows + kThreads - 1) / kThreads);
        causal_attention_generic<<<blocks, kThreads>>>(queries, keys, values, context, rows,
                                                       shape.tokens, shape.head_dim, scale_log2);
        check_launch("causal_attention_generic");
    }
}

#else  // OpenMP build: g++ compiles this file as C++.

void fast_causal_attention(const float* /*queries*/, const float* /*keys*/, const float* /*values*/,
                           float* /*context*/, const HeadsShape& /*shape*/) {
    throw std::runtime_error(
        "fast_causal_attention: the fast kernel is CUDA only; this build's backend is OpenMP "
        "(configure with -DATTN_GPU=CUDA)");
}

#endif

}  // namespace attn::gpu

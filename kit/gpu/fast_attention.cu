// kit/gpu/fast_attention.cu — the kit's fast fused causal attention kernel
// (attn/gpu/fast_attention.hpp): FlashAttention's online softmax in fp32, one pass over the
// keys and values of each (b, h), the T x T scores never stored.
//
// CUDA builds (-DATTN_GPU=CUDA): nvcc compiles the kernels below, e.g.
//   nvcc -std=c++17 -arch=sm_90 -I include -c kit/gpu/fast_attention.cu
// They use nothing newer than sm_70 (__shfl_xor_sync, float4 shared-memory loads).
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
#include "attn/errors.hpp"
#include "attn/gpu/fast_attention.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#include <climits>
#include <cmath>
#include <cuda_runtime.h>
#endif

namespace attn::gpu {

#if defined(__CUDACC__)

namespace {

// ---- the tiled kernel ---------------------------------------------------------------------

template <int HEAD_DIM>
struct TileConfig {
    static_assert(HEAD_DIM % 32 == 0 && HEAD_DIM >= 32 && HEAD_DIM <= 128,
                  "the tiled kernel takes head_dim 32, 64 or 128");
    static constexpr int kLanesPerRow = HEAD_DIM / 32;  // G: lanes sharing one query row
    static constexpr int kRowsPerBlock = 64;
    static constexpr int kThreads = kRowsPerBlock * kLanesPerRow;
    // K and V tiles together: 2 * kKeysPerTile * HEAD_DIM * 4 bytes = 16 KiB or 32 KiB.
    static constexpr int kKeysPerTile = HEAD_DIM <= 64 ? 64 : 32;
    static constexpr int kKeysPerStep = 16;           // scores held between two rescales
    static constexpr int kVecsPerRow = HEAD_DIM / 4;  // float4s in a row
    static constexpr int kVecsPerLane = 8;            // float4s of a row one lane holds
    static_assert(kVecsPerLane * kLanesPerRow == kVecsPerRow, "32 floats per lane");
    static_assert(kKeysPerTile % kKeysPerStep == 0, "whole steps in a tile");
};

__device__ __forceinline__ float dot4(float4 a, float4 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// queries, keys, values, context: (B * heads, T, HEAD_DIM / 4) float4s.
// grid (B * heads, ceil(T / kRowsPerBlock)), block kThreads.
template <int HEAD_DIM>
__global__ void __launch_bounds__(TileConfig<HEAD_DIM>::kThreads)
    causal_attention_tiled(const float4* __restrict__ queries, const float4* __restrict__ keys,
                           const float4* __restrict__ values, float4* __restrict__ context,
                           int tokens, float scale_log2) {
    using Config = TileConfig<HEAD_DIM>;
    constexpr int kGroup = Config::kLanesPerRow;
    constexpr int kRows = Config::kRowsPerBlock;
    constexpr int kKeys = Config::kKeysPerTile;
    constexpr int kStep = Config::kKeysPerStep;
    constexpr int kRowVecs = Config::kVecsPerRow;
    constexpr int kLaneVecs = Config::kVecsPerLane;

    __shared__ float4 key_tile[kKeys * kRowVecs];    // (kKeys, HEAD_DIM)
    __shared__ float4 value_tile[kKeys * kRowVecs];  // (kKeys, HEAD_DIM)

    const int tid = static_cast<int>(threadIdx.x);
    const int lane_in_row = tid % kGroup;  // g: this lane holds float4s g, g + G, g + 2G, ...
    const int row_in_block = tid / kGroup;
    // Heaviest query tiles first: blockIdx.y = 0 takes the last rows of T.
    const int query_t0 = (static_cast<int>(gridDim.y) - 1 - static_cast<int>(blockIdx.y)) * kRows;
    const int query_t = query_t0 + row_in_block;
    const bool row_in_range = query_t < tokens;
    // A row past T computes row T - 1's context and writes nothing: every lane of a warp
    // must reach the shuffles, and every thread the __syncthreads.
    const int t = row_in_range ? query_t : tokens - 1;
    // The last row of the block, and of this warp (a warp holds 32 / G consecutive rows):
    // keys past them are masked for every row, so their tiles and steps are skipped.
    const int block_last_t = min(query_t0 + kRows, tokens) - 1;
    const int warp_last_t = min(query_t0 + (tid / 32 + 1) * (32 / kGroup), tokens) - 1;

    // Start of this (b, h)'s (T, HEAD_DIM) block, in float4s.
    const std::int64_t head_offset =
        static_cast<std::int64_t>(blockIdx.x) * tokens * static_cast<std::int64_t>(kRowVecs);

    // This lane's 32 floats of q_t, times log2(e) / sqrt(HEAD_DIM): scores in base 2.
    float4 query[kLaneVecs];
    const float4* query_row = queries + head_offset + static_cast<std::int64_t>(t) * kRowVecs;
#pragma unroll
    for (int i = 0; i < kLaneVecs; ++i) {
        const float4 q = query_row[lane_in_row + kGroup * i];
        query[i] =
            make_float4(q.x * scale_log2, q.y * scale_log2, q.z * scale_log2, q.w * scale_log2);
    }

    // The online softmax's state: the running max m and sum l of the base-2 scores seen,
    // and acc = sum_j 2^(s_j - m) v_j over this lane's 32 floats.
    float4 acc[kLaneVecs];
#pragma unroll
    for (int i = 0; i < kLaneVecs; ++i) acc[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    float running_max = -INFINITY;
    float running_sum = 0.f;

    for (int key_t0 = 0; key_t0 <= block_last_t; key_t0 += kKeys) {
        // pass 1: stage keys and values [key_t0, key_t0 + kKeys) in shared memory, coalesced
        // float4 loads; zeros past T (masked below, but garbage could be nan, and 0 * nan is
        // nan in acc).
        const std::int64_t tile_offset = head_offset + static_cast<std::int64_t>(key_t0) * kRowVecs;
        for (int i = tid; i < kKeys * kRowVecs; i += Config::kThreads) {
            const bool key_in_range = key_t0 + i / kRowVecs < tokens;
            const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
            key_tile[i] = key_in_range ? keys[tile_offset + i] : zero;
            value_tile[i] = key_in_range ? values[tile_offset + i] : zero;
        }
        __syncthreads();

        // Keys of this tile at or below the warp's last row (warp-uniform, so the shuffles
        // below see all 32 lanes); none when the warp's rows all lie above the tile.
        const int tile_keys = min(kKeys, warp_last_t - key_t0 + 1);
        for (int step_t0 = 0; step_t0 < tile_keys; step_t0 += kStep) {
            // pass 2: base-2 scores s_j = q_t . k_j * log2(e) / sqrt(d) of kStep keys,
            // -inf above the diagonal (j > t). Keys of the step past tile_keys lie above
            // every row of the warp: masked too.
            float score[kStep];
#pragma unroll
            for (int j = 0; j < kStep; ++j) {
                const float4* key_row = key_tile + (step_t0 + j) * kRowVecs;
                float partial = 0.f;
#pragma unroll
                for (int i = 0; i < kLaneVecs; ++i) {
                    partial += dot4(query[i], key_row[lane_in_row + kGroup * i]);
                }
                // The row group's G partial sums: lanes g and g ^ offset swap theirs.
#pragma unroll
                for (int offset = kGroup / 2; offset > 0; offset /= 2) {
                    partial += __shfl_xor_sync(0xffffffffu, partial, offset);
                }
                score[j] = key_t0 + step_t0 + j <= t ? partial : -INFINITY;
            }

            // pass 3: the online softmax's rescale, once per step. step_max is finite from
            // the first step on (key 0 is never masked and comes first), so new_max is
            // finite, and the first step's correction is exp2(-inf) = 0 on zero state:
            // exp2(-inf - -inf) never happens.
            float step_max = score[0];
#pragma unroll
            for (int j = 1; j < kStep; ++j) step_max = fmaxf(step_max, score[j]);
            const float new_max = fmaxf(running_max, step_max);
            const float correction = exp2f(running_max - new_max);
            running_sum *= correction;
#pragma unroll
            for (int i = 0; i < kLaneVecs; ++i) {
                acc[i].x *= correction;
                acc[i].y *= correction;
                acc[i].z *= correction;
                acc[i].w *= correction;
            }

            // pass 4: acc += p_j v_j, p_j = 2^(s_j - m) (0 for a masked key).
#pragma unroll
            for (int j = 0; j < kStep; ++j) {
                const float p = exp2f(score[j] - new_max);
                running_sum += p;
                const float4* value_row = value_tile + (step_t0 + j) * kRowVecs;
#pragma unroll
                for (int i = 0; i < kLaneVecs; ++i) {
                    const float4 v = value_row[lane_in_row + kGroup * i];
                    acc[i].x += p * v.x;
                    acc[i].y += p * v.y;
                    acc[i].z += p * v.z;
                    acc[i].w += p * v.w;
                }
            }
            running_max = new_max;
        }
        __syncthreads();  // every warp is done with the tiles before pass 1 overwrites them
    }

    // pass 5: context_t = acc / l (l >= 1: the max's own term is 2^0).
    if (row_in_range) {
        const float inv_sum = 1.f / running_sum;
        float4* context_row = context + head_offset + static_cast<std::int64_t>(t) * kRowVecs;
#pragma unroll
        for (int i = 0; i < kLaneVecs; ++i) {
            context_row[lane_in_row + kGroup * i] = make_float4(
                acc[i].x * inv_sum, acc[i].y * inv_sum, acc[i].z * inv_sum, acc[i].w * inv_sum);
        }
    }
}

// ---- the generic kernel: any head_dim ------------------------------------------------------

// One thread per query row r of the (rows, head_dim) tensors; keys and values read from
// global memory (through the caches), one online-softmax update per key, the running
// weighted sum kept in the context row itself. Correct for every shape, not fast.
__global__ void causal_attention_generic(const float* __restrict__ queries,
                                         const float* __restrict__ keys,
                                         const float* __restrict__ values,
                                         float* __restrict__ context, std::int64_t rows,
                                         std::int64_t tokens, std::int64_t head_dim,
                                         float scale_log2) {
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const std::int64_t t = row % tokens;
    const float* query_row = queries + row * head_dim;
    const float* key_row0 = keys + (row - t) * head_dim;  // key 0 of this (b, h)
    const float* value_row0 = values + (row - t) * head_dim;
    float* context_row = context + row * head_dim;

    for (std::int64_t k = 0; k < head_dim; ++k) context_row[k] = 0.f;
    float running_max = -INFINITY;  // finite after key 0; its correction exp2(-inf) = 0
    float running_sum = 0.f;
    for (std::int64_t key_t = 0; key_t <= t; ++key_t) {
        const float* key_row = key_row0 + key_t * head_dim;
        const float* value_row = value_row0 + key_t * head_dim;
        float score = 0.f;
        for (std::int64_t k = 0; k < head_dim; ++k) score += query_row[k] * key_row[k];
        score *= scale_log2;
        const float new_max = fmaxf(running_max, score);
        const float correction = exp2f(running_max - new_max);
        const float p = exp2f(score - new_max);
        running_sum = running_sum * correction + p;
        for (std::int64_t k = 0; k < head_dim; ++k) {
            context_row[k] = context_row[k] * correction + p * value_row[k];
        }
        running_max = new_max;
    }
    const float inv_sum = 1.f / running_sum;
    for (std::int64_t k = 0; k < head_dim; ++k) context_row[k] *= inv_sum;
}

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

bool fast_kernel_supports(const HeadsShape& shape) {
    return shape.head_dim == 32 || shape.head_dim == 64 || shape.head_dim == 128;
}

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

bool fast_kernel_supports(const HeadsShape& /*shape*/) { return false; }

void fast_causal_attention(const float* /*queries*/, const float* /*keys*/, const float* /*values*/,
                           float* /*context*/, const HeadsShape& /*shape*/) {
    throw std::runtime_error(
        "fast_causal_attention: the fast kernel is CUDA only; this build's backend is OpenMP "
        "(configure with -DATTN_GPU=CUDA)");
}

#endif

}  // namespace attn::gpu

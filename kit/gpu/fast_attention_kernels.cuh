// kit/gpu/fast_attention_kernels.cuh — the device code of the fast fused causal attention
// kernel (kit/gpu/fast_attention.cu, which launches it; its opening comment gives the design):
// the tiled kernel for head_dim 32, 64, 128 and the generic one for any head_dim.
//
// Device code only, no includes: its includer provides CUDA's names. fast_attention.cu
// includes it under nvcc, after <cuda_runtime.h>; tests/kit/test_fast_attention_emulation.cpp
// includes it in a g++ program that defines float4, threadIdx, __syncthreads, __shfl_xor_sync
// and the rest on the host (one std::thread per CUDA thread) and checks both kernels against
// a CPU reference, on machines without a GPU too. Keep it to the names that test defines:
// float4, make_float4, threadIdx, blockIdx, blockDim, gridDim, __syncthreads,
// __shfl_xor_sync, min, fmaxf, exp2f, INFINITY, std::int64_t.
#pragma once

// #pragma unroll for nvcc; nothing for g++, which would warn of an unknown pragma.
#if defined(__CUDACC__)
#define ATTN_UNROLL _Pragma("unroll")
#else
#define ATTN_UNROLL
#endif

namespace attn::gpu::detail {

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
    ATTN_UNROLL
    for (int i = 0; i < kLaneVecs; ++i) {
        const float4 q = query_row[lane_in_row + kGroup * i];
        query[i] =
            make_float4(q.x * scale_log2, q.y * scale_log2, q.z * scale_log2, q.w * scale_log2);
    }

    // The online softmax's state: the running max m and sum l of the base-2 scores seen,
    // and acc = sum_j 2^(s_j - m) v_j over this lane's 32 floats.
    float4 acc[kLaneVecs];
    ATTN_UNROLL
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
            ATTN_UNROLL
            for (int j = 0; j < kStep; ++j) {
                const float4* key_row = key_tile + (step_t0 + j) * kRowVecs;
                float partial = 0.f;
                ATTN_UNROLL
                for (int i = 0; i < kLaneVecs; ++i) {
                    partial += dot4(query[i], key_row[lane_in_row + kGroup * i]);
                }
                // The row group's G partial sums: lanes g and g ^ offset swap theirs.
                ATTN_UNROLL
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
            ATTN_UNROLL
            for (int j = 1; j < kStep; ++j) step_max = fmaxf(step_max, score[j]);
            const float new_max = fmaxf(running_max, step_max);
            const float correction = exp2f(running_max - new_max);
            running_sum *= correction;
            ATTN_UNROLL
            for (int i = 0; i < kLaneVecs; ++i) {
                acc[i].x *= correction;
                acc[i].y *= correction;
                acc[i].z *= correction;
                acc[i].w *= correction;
            }

            // pass 4: acc += p_j v_j, p_j = 2^(s_j - m) (0 for a masked key).
            ATTN_UNROLL
            for (int j = 0; j < kStep; ++j) {
                const float p = exp2f(score[j] - new_max);
                running_sum += p;
                const float4* value_row = value_tile + (step_t0 + j) * kRowVecs;
                ATTN_UNROLL
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
        ATTN_UNROLL
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

}  // namespace attn::gpu::detail

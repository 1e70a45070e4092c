// tests/kit/slips/24_tiled_attention.cu — exercise 24's solution with the slips students make,
// each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads the
// status line). Without ATTN_SLIP it is the solution and passes every test. The choice is read
// on the host and reaches the kernel as a plain argument, as device code cannot call getenv.
// The races and barriers are named by the kit's CUDA emulator, on every run; the last two
// slips are right but slow, and pass with a note.
//
// slip: no_sync_after_load -> a race on shared memory (read-after-write)
// slip: no_sync_before_next_load -> a race on shared memory (write-after-read)
// slip: sync_inside_branch -> a divergent barrier
// slip: early_return -> a divergent barrier
// slip: tile_index_not_offset -> an index out of bounds
// slip: partial_tile_unguarded -> an index out of bounds
// slip: tile_row_off_by_one -> a read of shared memory no thread wrote
// slip: no_rescale -> without the rescale
// slip: scale_missing -> not divided by sqrt(head_dim)
// slip: every_tile_loaded -> note: the tiles above the diagonal
// slip: bank_conflicts -> note: bank conflicts
#include "attn/arguments_gpu.hpp"
#include "attn/errors.hpp"
#include "attn/gpu/kernel.hpp"
#include "attn/tiled_attention.hpp"
#include "slip.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace attn::gpu {

namespace {

enum slips : int {
    none,
    no_sync_after_load,
    no_sync_before_next_load,
    sync_inside_branch,      // the second __syncthreads() inside `if (t < T)`
    early_return,            // `if (t >= T) return;` before the tiles
    tile_index_not_offset,   // key_tile[k]: the key's index in the sequence, not in the tile
    partial_tile_unguarded,  // the last tile loaded without `j < T`
    tile_row_off_by_one,     // thread i loads key row start + i + 1
    no_rescale,              // acc and running_sum not multiplied by the correction
    scale_missing,           // the score not multiplied by 1 / sqrt(head_dim)
    every_tile_loaded,       // the tiles above the diagonal not skipped: right, but slow
};

int chosen_slip() {
    const char* names[] = {"",
                           "no_sync_after_load",
                           "no_sync_before_next_load",
                           "sync_inside_branch",
                           "early_return",
                           "tile_index_not_offset",
                           "partial_tile_unguarded",
                           "tile_row_off_by_one",
                           "no_rescale",
                           "scale_missing",
                           "every_tile_loaded"};
    for (int i = 1; i < static_cast<int>(sizeof(names) / sizeof(names[0])); ++i)
        if (slip(names[i])) return i;
    return none;
}

// Columns: tile_columns, or max_head_dim for the bank-conflicting layout.
template <int Columns>
__global__ void tiled_attention_kernel(global<const float> queries, global<const float> keys,
                                       global<const float> values, global<float> context,
                                       HeadsShape shape, float scale, int chosen) {
    ATTN_SHARED(float, key_tile, tile_size, Columns);
    ATTN_SHARED(float, value_tile, tile_size, Columns);
    const int T = static_cast<int>(shape.tokens);
    const int D = static_cast<int>(shape.head_dim);
    const int i = static_cast<int>(threadIdx.x);
    const int block_first = static_cast<int>(blockIdx.x) * tile_size;
    const int t = block_first + i;
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.y) * T * D;

    float query[max_head_dim], acc[max_head_dim];
    for (int d = 0; d < D; ++d) {
        query[d] = t < T ? queries[first + static_cast<std::int64_t>(t) * D + d] : 0.0f;
        acc[d] = 0.0f;
    }
    float running_max = -INFINITY, running_sum = 0.0f;
    if (chosen == early_return && t >= T) return;

    int block_last = block_first + tile_size - 1 < T - 1 ? block_first + tile_size - 1 : T - 1;
    if (chosen == every_tile_loaded) block_last = T - 1;
    for (int start = 0; start <= block_last; start += tile_size) {
        const int j = start + i + (chosen == tile_row_off_by_one ? 1 : 0);
        if (j < T || chosen == partial_tile_unguarded) {
            for (int d = 0; d < D; ++d) {
                key_tile[i][d] = keys[first + static_cast<std::int64_t>(j) * D + d];
                value_tile[i][d] = values[first + static_cast<std::int64_t>(j) * D + d];
            }
        }
        if (chosen != no_sync_after_load) __syncthreads();
        const int end = start + tile_size < t + 1 ? start + tile_size : t + 1;
        const int row_offset = chosen == tile_index_not_offset ? 0 : start;
        for (int k = start; k < end && t < T; ++k) {
            float score = 0.0f;
            for (int d = 0; d < D; ++d) score += query[d] * key_tile[k - row_offset][d];
            if (chosen != scale_missing) score *= scale;
            const float new_max = fmaxf(running_max, score);
            const float correction = chosen == no_rescale ? 1.0f : expf(running_max - new_max);
            const float weight = expf(score - new_max);
            running_sum = running_sum * correction + weight;
            for (int d = 0; d < D; ++d)
                acc[d] = acc[d] * correction + weight * value_tile[k - row_offset][d];
            running_max = new_max;
        }
        if (chosen == sync_inside_branch) {
            if (t < T) __syncthreads();
        } else if (chosen != no_sync_before_next_load) {
            __syncthreads();
        }
    }

    if (t < T) {
        for (int d = 0; d < D; ++d)
            context[first + static_cast<std::int64_t>(t) * D + d] = acc[d] / running_sum;
    }
}

}  // namespace

void tiled_causal_attention(const float* queries, const float* keys, const float* values,
                            float* context, const HeadsShape& shape) {
    arguments::tiled_causal_attention(shape);  // bad input -> a clear error

    const auto count = static_cast<std::size_t>(shape.size());
    const dim3 grid(static_cast<unsigned>((shape.tokens + tile_size - 1) / tile_size),
                    static_cast<unsigned>(shape.batch * shape.heads));
    const dim3 block(tile_size);
    const float scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
    const auto kernel = slip("bank_conflicts") ? tiled_attention_kernel<max_head_dim>
                                               : tiled_attention_kernel<tile_columns>;
    launch(kernel, grid, block, global_view(queries, count, "queries"),
           global_view(keys, count, "keys"), global_view(values, count, "values"),
           global_view(context, count, "context"), shape, scale, chosen_slip());
}

}  // namespace attn::gpu

// solutions/24_tiled_attention.cu — Exercise 24's reference solution: tiled causal attention,
// tiles of keys and values in shared memory, an online softmax per query row.
#include "attn/arguments_gpu.hpp"
#include "attn/errors.hpp"
#include "attn/gpu/kernel.hpp"
#include "attn/tiled_attention.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace attn::gpu {

namespace {

// One block: the tile_size query rows tile blockIdx.x of the (b, h) pair blockIdx.y, a thread
// each. For each tile of keys at or below the block's last row: load it, sync, score and
// update, sync.
__global__ void tiled_attention_kernel(global<const float> queries, global<const float> keys,
                                       global<const float> values, global<float> context,
                                       HeadsShape shape, float scale) {
    ATTN_SHARED(float, key_tile, tile_size, tile_columns);
    ATTN_SHARED(float, value_tile, tile_size, tile_columns);
    const int T = static_cast<int>(shape.tokens);
    const int D = static_cast<int>(shape.head_dim);
    const int i = static_cast<int>(threadIdx.x);
    const int block_first = static_cast<int>(blockIdx.x) * tile_size;
    const int t = block_first + i;  // this thread's query row (none where t >= T)
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.y) * T * D;  // its (b, h)

    // Step 1: the row's query and running values, in registers.
    float query[max_head_dim], acc[max_head_dim];
    for (int d = 0; d < D; ++d) {
        query[d] = t < T ? queries[first + static_cast<std::int64_t>(t) * D + d] : 0.0f;
        acc[d] = 0.0f;
    }
    float running_max = -INFINITY, running_sum = 0.0f;

    // Step 2: the tiles at or below the diagonal; the block's last row sees keys 0..last.
    const int block_last =
        block_first + tile_size - 1 < T - 1 ? block_first + tile_size - 1 : T - 1;
    for (int start = 0; start <= block_last; start += tile_size) {
        const int j = start + i;  // the key row this thread loads
        if (j < T) {
            for (int d = 0; d < D; ++d) {
                key_tile[i][d] = keys[first + static_cast<std::int64_t>(j) * D + d];
                value_tile[i][d] = values[first + static_cast<std::int64_t>(j) * D + d];
            }
        }
        __syncthreads();  // the whole tile is loaded before any row reads it
        const int end = start + tile_size < t + 1 ? start + tile_size : t + 1;  // keys <= t
        for (int k = start; k < end && t < T; ++k) {
            float score = 0.0f;
            for (int d = 0; d < D; ++d) score += query[d] * key_tile[k - start][d];
            score *= scale;
            const float new_max = fmaxf(running_max, score);
            const float correction = expf(running_max - new_max);
            const float weight = expf(score - new_max);
            running_sum = running_sum * correction + weight;
            for (int d = 0; d < D; ++d)
                acc[d] = acc[d] * correction + weight * value_tile[k - start][d];
            running_max = new_max;
        }
        __syncthreads();  // every row is done with the tile before the next one overwrites it
    }

    // Step 3: the row's context.
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
    launch(tiled_attention_kernel, grid, block, global_view(queries, count, "queries"),
           global_view(keys, count, "keys"), global_view(values, count, "values"),
           global_view(context, count, "context"), shape,
           1.0f / std::sqrt(static_cast<float>(shape.head_dim)));
}

}  // namespace attn::gpu

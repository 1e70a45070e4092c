// exercises/24_tiled_attention.cu — Exercise 24: tiled causal attention in CUDA, tiles of keys
// and values in shared memory (FlashAttention's forward; the GPU track).
//
// The same attention as exercise 23 (ch03.ipynb In [36], per batch item and head:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb)
// The maths, shapes, and the sizes tile_size, max_head_dim and tile_columns:
// include/attn/tiled_attention.hpp, Exercise 24. Check your work: `tools/kit check 24`. Stuck?
// `tools/kit hint 24`. Without a GPU, g++ compiles this file for the kit's CUDA emulator,
// which runs your kernel on the CPU and names each rule of the GPU it breaks, with its
// threads and lines; with one, nvcc compiles it unchanged (preset cuda).
//
// In exercise 23 every row read all its keys from global memory. Here the tile_size threads
// of a block, one per query row, SHARE the reads: they copy a tile of tile_size keys and
// values into __shared__ memory together, one row each, and then every thread reads the
// whole tile from there. Two rules make that safe:
//   - __syncthreads() after the load: no thread reads the tile before every thread has
//     written its row of it (a read-after-write race otherwise);
//   - __syncthreads() after the scoring: no thread loads the NEXT tile over this one while
//     another still reads it (a write-after-read race otherwise).
// Every thread of the block must reach every __syncthreads(), including a thread whose row
// t is past the last token (t >= T, in the last block of a sequence): it loads, waits and
// waits again like the others, and only skips the scoring and the final write.
//
// Worked example, tile_size 2 for the picture (the kernel's is 32), T = 3: block 0 holds rows
// 0 and 1 and reads tile 0 (keys 0, 1) only; block 1 holds row 2 (its second thread has no
// row) and reads tile 0 (keys 0, 1), then tile 1 (key 2, and no key 3: that thread loads
// nothing). Row 0 scores key 0 only, row 1 keys 0 and 1: the causal mask within a tile.
#include "attn/arguments_gpu.hpp"
#include "attn/errors.hpp"
#include "attn/gpu/kernel.hpp"
#include "attn/tiled_attention.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace attn::gpu {

namespace {

// One block of tile_size threads: thread threadIdx.x of block (blockIdx.x, blockIdx.y) owns
// query row t = blockIdx.x * tile_size + threadIdx.x of the (b, h) pair blockIdx.y. Index the
// tensors as exercise 23 did: row t of that pair starts at (blockIdx.y * T + t) * head_dim.
__global__ void tiled_attention_kernel([[maybe_unused]] global<const float> queries,
                                       [[maybe_unused]] global<const float> keys,
                                       [[maybe_unused]] global<const float> values,
                                       [[maybe_unused]] global<float> context,
                                       [[maybe_unused]] HeadsShape shape,
                                       [[maybe_unused]] float scale) {
    // The block's tiles: __shared__ float key_tile[tile_size][tile_columns] in CUDA.
    ATTN_SHARED(float, key_tile, tile_size, tile_columns);
    ATTN_SHARED(float, value_tile, tile_size, tile_columns);

    // TODO, step 1: t as above, and the row's running values in local arrays and variables:
    //   float query[max_head_dim], acc[max_head_dim];  query = q_t (0 where t >= T), acc = 0,
    //   running_max = -INFINITY, running_sum = 0.
    // TODO, step 2: for each tile start = 0, tile_size, 2 * tile_size, ... up to the block's
    //   last row (min(T - 1, last row of the block)); later tiles are above the diagonal,
    //   where no row of the block may look:
    //   a) load: thread i copies key and value row j = start + i, if j < T, into
    //      key_tile[i][d] and value_tile[i][d] for d < head_dim;
    //   b) __syncthreads();
    //   c) if t < T: for each key k of the tile with k <= t, the score
    //      q_t . key_tile[k - start] * scale and exercise 23's online-softmax update of
    //      running_max, running_sum and acc (with value_tile[k - start]);
    //   d) __syncthreads().
    // TODO, step 3: if t < T, context row t = acc / running_sum.
    // expf, fmaxf and INFINITY work on both compilers; std::min and std::vector do not
    // exist on a GPU (write a < b ? a : b).
}

}  // namespace

// Given: the checks and the launch, one block per tile of rows of each (b, h) pair.
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

    // TODO, last: delete this line once the kernel above is written.
    throw not_implemented("exercises/24_tiled_attention.cu",
                          "gpu::tiled_attention_kernel (the kernel's body)");
}

}  // namespace attn::gpu

// attn/tiled_attention.hpp — group F: the GPU track's tiled kernel (exercise 24), causal
// attention in CUDA with tiles of keys and values in shared memory: FlashAttention's forward.
//
// Exercise 23 computes one query row per thread, and every row reads all of its keys and
// values from global memory: a (b, h) block of T rows reads its keys about T * T / 2 times.
// A GPU's global memory is far slower than its on-chip shared memory, so the kernel every GPU
// course teaches next shares the reads: the tile_size query rows of one CUDA block load a
// tile of tile_size keys and values into __shared__ memory ONCE, wait at __syncthreads()
// until the whole tile is there, and then every row of the block reads the tile from shared
// memory; they wait again before the next tile overwrites it. Each row keeps exercise 23's
// online softmax (running maximum, sum and weighted values) across the tiles. A causal block
// skips the tiles above the diagonal: none of its rows may see them.
//
// One source, two compilers (attn/gpu/kernel.hpp): nvcc builds it for a GPU (preset cuda),
// and g++ for the kit's CUDA emulator, which runs the kernel on the CPU and names a race, a
// barrier not every thread reaches, an index out of bounds or a read of a tile row never
// loaded, with the threads and the lines of exercises/24_tiled_attention.cu.
// The public notebook whose attention this computes, ch03.ipynb In [36]:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
#pragma once

#include "attn/fused_attention.hpp"  // HeadsShape

namespace attn::gpu {

// The kernel's sizes, fixed when it compiles: a block has tile_size threads, one per query
// row, and loads tiles of tile_size keys and values; head_dim may be at most max_head_dim
// (GPT-2's 64). A tile row holds max_head_dim + 1 floats: the extra float moves each row to
// the next of shared memory's 32 banks, so that 32 threads loading column d of 32 rows touch
// 32 banks, not one (docs/gpu.md, "bank conflicts").
constexpr int tile_size = 32;
constexpr int max_head_dim = 64;
constexpr int tile_columns = max_head_dim + 1;

// ---- Exercise 24 — tiled causal attention, one CUDA block per tile of query rows ----------
// The same result as exercise 23's fused_causal_attention, for each row [b, h, t]:
//   context[b, h, t] = sum over j <= t of softmax_j(q_t . k_j / sqrt(head_dim)) * v_j
// queries, keys, values, context: shape.size() floats each, (B, heads, T, head_dim), in the
// device's memory (GPU memory on CUDA; the host's on the emulator). Launches one block of
// tile_size threads for each tile of tile_size rows of each (b, h). Throws shape_error
// (attn/errors.hpp) if a size is zero or negative, or head_dim is above max_head_dim; on the
// emulator, attn::gpu::kernel_error (kit/kernel_error.hpp) if the kernel breaks a rule of
// the GPU.
void tiled_causal_attention(const float* queries, const float* keys, const float* values,
                            float* context, const HeadsShape& shape);

}  // namespace attn::gpu

// attn/fused_attention.hpp — group F: the GPU track (exercise 23), fused causal attention in
// Thrust.
//
// Exercise 19's MultiHeadAttention builds, for every batch item and head, a T x T matrix of
// scores, masks it, softmaxes it and multiplies it by the values: four passes over T * T
// numbers held in memory. A fused kernel computes one query row's context in ONE pass over
// the keys and values, keeping only a running maximum, a running sum and a running weighted
// sum of values (the "online softmax" of FlashAttention), so the T x T matrix never exists.
// Each row is independent of the others: a Thrust functor computes one row, and
// thrust::for_each runs it for all batch * heads * T rows at once, on a GPU (CUDA) or on the
// CPU's cores (Thrust's OpenMP backend). One source file serves both.
//
// Plain pointers and sizes, no xtensor: this header is read by nvcc, which never parses
// xtensor. kit/gpu/tensors.hpp converts attn::Tensor4 to and from the backend's memory.
// The public notebook whose attention this fuses, ch03.ipynb In [36]:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
#pragma once

#include <cstdint>

// ATTN_HOST_DEVICE marks a function that runs on the host and on the device: a Thrust
// functor's operator(). nvcc knows __host__ __device__; g++ compiling for Thrust's OpenMP
// backend does not, and CUDA 13's Thrust (CCCL 3) no longer defines them for host compilers.
#if defined(__CUDACC__)
#define ATTN_HOST_DEVICE __host__ __device__
#else
#define ATTN_HOST_DEVICE
#endif

namespace attn::gpu {

// The sizes of a (B, heads, T, head_dim) tensor stored row-major: element [b, h, t, k] is at
// ((b * heads + h) * tokens + t) * head_dim + k, and query row r = (b * heads + h) * tokens + t
// starts at r * head_dim. Its keys and values are the rows of the same (b, h) block.
struct HeadsShape {
    std::int64_t batch = 0, heads = 0, tokens = 0, head_dim = 0;

    ATTN_HOST_DEVICE std::int64_t rows() const { return batch * heads * tokens; }
    ATTN_HOST_DEVICE std::int64_t size() const { return rows() * head_dim; }
};

// A fused causal attention kernel: the signature of exercise 23 and of the kit's fast CUDA
// kernel (kit/gpu/fast_attention.hpp), so a module, a test or a benchmark can take either.
using CausalAttentionKernel = void (*)(const float* queries, const float* keys, const float* values,
                                       float* context, const HeadsShape& shape);

// ---- Exercise 23 — fused causal attention, one Thrust functor per query row -------------
// ch03.ipynb In [36], per batch item b and head h, without the T x T tensors:
//   attn_scores = queries @ keys.transpose(2, 3)
//   attn_scores.masked_fill_(mask_bool, -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//   context_vec = attn_weights @ values
// queries, keys, values, context: shape.size() floats each, (B, heads, T, head_dim), in the
// backend's memory (thrust::device_vector<float>'s data: GPU memory on CUDA, host memory on
// OpenMP). For each row [b, h, t]:
//   context[b, h, t] = sum over j <= t of softmax_j(q_t . k_j / sqrt(head_dim)) * v_j
// Rows run at the same time, on several threads: each writes only its own context row, from
// local variables (no buffer shared by the rows), and allocates nothing (device code has no
// std::vector). Throws shape_error (attn/errors.hpp) if a size is zero or negative.
void fused_causal_attention(const float* queries, const float* keys, const float* values,
                            float* context, const HeadsShape& shape);

}  // namespace attn::gpu

// kit/gpu/tensors.hpp — the GPU track on attn tensors: copies xtensor tensors into the
// backend's memory, runs a kernel or the fused module there, and copies the result back.
// Compiled by g++ only (it includes xtensor); the kernels it calls are nvcc's or Thrust-OMP's.
#pragma once

#include "attn/fused_attention.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/tensor.hpp"

namespace attn::gpu {

// context (B, heads, T, head_dim) of queries, keys and values of that shape, by `kernel`.
// Throws shape_error unless the three have one shape.
Tensor4 causal_attention(const Tensor4& queries, const Tensor4& keys, const Tensor4& values,
                         CausalAttentionKernel kernel = fused_causal_attention);

// MultiHeadAttention's forward(x), x (B, T, d_in) -> (B, T, d_out), with the attention of its
// heads computed by `kernel` on the backend.
Tensor3 multi_head_attention(const MultiHeadAttention& module, const Tensor3& x,
                             CausalAttentionKernel kernel = fused_causal_attention);

}  // namespace attn::gpu

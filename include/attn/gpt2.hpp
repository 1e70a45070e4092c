// attn/gpt2.hpp — group E: GPT-2 sizing (exercise 22).
//
// The book's Exercise 3.3 (exercise-solutions.ipynb, Exercise 3.3):
//   "Using the MultiHeadAttention class, initialize a multi-head attention module that has
//    the same number of attention heads as the smallest GPT-2 model (12 attention heads).
//    Also ensure that you use the respective input and output embedding sizes similar to
//    GPT-2 (768 dimensions). Note that the smallest GPT-2 model supports a context length of
//    1,024 tokens."
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
// and the "GPT-2 sized attention" exercise of the course's multi-head attention notes, which
// counts the layer's parameters.
//
// Exercise 19's MultiHeadAttention at the size of a real model: d_in = d_out = 768, 12 heads
// of head_dim 64, context_length 1024. What that costs, in numbers you compute exactly
// (std::int64_t, as PyTorch's numel() and element_size() are integers):
//   parameters   every weight and bias of W_query, W_key, W_value and out_proj; the mask is a
//                buffer, not a parameter (numel() of model.parameters() leaves it out)
//   memory       float32 takes 4 bytes a value: the (B, num_heads, T, T) attention scores
//                and the (context_length, context_length) mask buffer
//   FLOPs        a matrix product (n, k) @ (k, m) does n * k * m multiply-adds; each counts
//                as 2 floating-point operations. Only the products are counted: softmax, the
//                mask, the scaling and the biases add O(B * T * d_out + B * H * T * T)
//                operations, negligible next to them.
// Nothing is halved by the causal mask: the scores tensor and both attention products
// cover all T * T (query, key) pairs, masked ones too. The counts pass 2^31 and 2^32 at a
// long context or a large batch (the kit's cases go to 10^11): convert every size to
// std::int64_t before multiplying, as an int wraps past 2^31 and an unsigned past 2^32.
// Every function below throws attn::shape_error for a size of 0 where one is needed.
#pragma once

#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"

#include <cstddef>
#include <cstdint>

namespace attn {

// ---- Exercise 22 — GPT-2 small's attention layer: build it, count it (Exercise 3.3) -------

// 22a. MultiHeadAttention(768, 768, 1024, 0.0, 12, qkv_bias) with its parameters from
// `source`: the smallest GPT-2's attention layer. (GPT-2 itself uses qkv_bias=True; the
// book's solution leaves it False.) forward(x) of it maps (B, T, 768) to (B, T, 768), T up
// to 1024.
MultiHeadAttention gpt2_small_attention(ParameterSource& source, bool qkv_bias);

// 22b. The number of parameters of one Linear layer: its weight's and its bias's values.
// nn.Linear(768, 768): 768 * 768 + 768 = 590,592, as the course's multi-head attention notes
// print for it.
std::int64_t parameter_count(const Linear& layer);

// 22c. The number of parameters of the module: its four layers' (the mask buffer is not a
// parameter). GPT-2 small's: 2,362,368 with qkv_bias=True, 2,360,064 without.
std::int64_t parameter_count(const MultiHeadAttention& module);

// 22d. Bytes of the float32 attention scores of one forward, shape (B, num_heads, T, T):
// they grow with T squared. GPT-2 small at T = 1024, B = 1: 50,331,648 bytes (48 MiB).
std::int64_t score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T);

// 22e. Bytes of the float32 mask buffer, (context_length, context_length). GPT-2 small's:
// 4,194,304 (4 MiB), whatever T a forward uses.
std::int64_t mask_buffer_bytes(std::size_t context_length);

// 22f. FLOPs of one forward of `module` on a batch (batch, T, d_in), counted step by step
// (2 per multiply-add of each matrix product, nothing else):
//   queries, keys, values   3 products (B * T, d_in) @ (d_in, d_out)
//   scores                  B * num_heads products (T, head_dim) @ (head_dim, T)
//   weights @ values        B * num_heads products (T, T) @ (T, head_dim)
//   out_proj                1 product (B * T, d_out) @ (d_out, d_out)
// The kit checks your count against the closed formula 2 B T (3 d_in d_out + d_out^2)
// + 4 B T^2 d_out. GPT-2 small at B = 1, T = 1024: 8,053,063,680 (8.05 GFLOPs).
std::int64_t forward_flops(const MultiHeadAttention& module, std::size_t batch, std::size_t T);

}  // namespace attn

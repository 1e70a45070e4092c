// exercises/22_gpt2_sizing.cpp — Exercise 22: GPT-2 small's attention layer, built and counted.
//
// The book's Exercise 3.3, ch03.ipynb In [39]:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   n_heads = 12
//   d_in, d_out = 768, 768
//   context_length = 1024
//   mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, n_heads, False)
// and the same layer's parameter count, as the course's multi-head attention notes compute it:
//   sum(p.numel() for p in gpt2_mha.parameters())            # 2,362,368 with qkv_bias=True
// Declared in include/attn/gpt2.hpp. Check your work: `tools/kit check 22`. Stuck?
// `tools/kit hint 22`.
//
// Goal: feel the size of a real model. a. builds the layer (exercise 19's module at GPT-2's
// sizes); b. to f. count what it costs, exactly, as std::int64_t: 2.4 million parameters,
// 48 MiB of attention scores for one 1024-token sequence, 8 billion floating-point
// operations for one forward. The header gives each rule; count the way the module
// computes, step by step, not by copying the closed formula.
// Worked example at the notebook's small size, d_in 3, d_out 2, 2 heads (head_dim 1), no
// qkv_bias, B = 2, T = 6:
//   parameters: W_query 2 * 3 = 6, W_key 6, W_value 6, out_proj 2 * 2 + 2 = 6 -> 24
//   scores: 2 * 2 * 6 * 6 = 144 values -> 576 bytes; a mask for 6 tokens: 36 * 4 = 144 bytes
//   FLOPs: projections 3 * 2 * 12 * 3 * 2 = 432, scores 2 * 2 * (2 * 6 * 1 * 6) = 288,
//          weights @ values 288, out_proj 2 * 12 * 2 * 2 = 96 -> 1,104
// Sizes multiply fast: convert to std::int64_t BEFORE multiplying (std::size_t is unsigned
// and a product of ints can overflow int).
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/gpt2.hpp"
#include "attn/multi_head_attention.hpp"

#include <cstdint>

namespace attn {

// [[maybe_unused]] until your code uses them: the stub's body does not.
MultiHeadAttention gpt2_small_attention([[maybe_unused]] ParameterSource& source,
                                        [[maybe_unused]] bool qkv_bias) {
    // TODO: MultiHeadAttention(d_in, d_out, context_length, num_heads, qkv_bias, source) with
    // GPT-2 small's sizes.
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "gpt2_small_attention(source, qkv_bias)");
}

std::int64_t parameter_count([[maybe_unused]] const Linear& layer) {
    // TODO: the values of the weight and of the bias (empty without one).
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "parameter_count(layer)");
}

std::int64_t parameter_count([[maybe_unused]] const MultiHeadAttention& module) {
    // TODO: the parameters of its four Linear layers; the mask buffer is not a parameter.
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "parameter_count(module)");
}

std::int64_t score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T) {
    checks::require_positive("score_tensor_bytes", "batch", batch);
    checks::require_positive("score_tensor_bytes", "num_heads", num_heads);
    checks::require_positive("score_tensor_bytes", "T", T);

    // TODO: the bytes of a float32 tensor of shape (batch, num_heads, T, T).
    throw not_implemented("exercises/22_gpt2_sizing.cpp",
                          "score_tensor_bytes(batch, num_heads, T)");
}

std::int64_t mask_buffer_bytes(std::size_t context_length) {
    checks::require_positive("mask_buffer_bytes", "context_length", context_length);

    // TODO: the bytes of a float32 tensor of shape (context_length, context_length).
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "mask_buffer_bytes(context_length)");
}

std::int64_t forward_flops([[maybe_unused]] const MultiHeadAttention& module, std::size_t batch,
                           std::size_t T) {
    checks::require_positive("forward_flops", "batch", batch);
    checks::require_positive("forward_flops", "T", T);

    // TODO: 2 FLOPs per multiply-add of each matrix product of the forward, as the header
    // lists them (module.d_in(), module.d_out(), module.num_heads, module.head_dim()).
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "forward_flops(module, batch, T)");
}

}  // namespace attn

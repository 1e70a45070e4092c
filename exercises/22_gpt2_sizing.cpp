// exercises/22_gpt2_sizing.cpp — Exercise 22: GPT-2 small's attention layer, built and counted.
//
// The book's Exercise 3.3, in exercise-solutions.ipynb:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   context_length = 1024
//   d_in, d_out = 768, 768
//   num_heads = 12
//   mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads)
//   count_parameters(mha)                                    # 2360064 (2.36 M)
// and the same layer's parameter count, as the course's multi-head attention notes compute it:
//   sum(p.numel() for p in gpt2_mha.parameters())            # 2,362,368 with qkv_bias=True
// Declared in include/attn/gpt2.hpp. Check your work: `tools/kit check 22`. Stuck?
// `tools/kit hint 22`.
//
// Goal: feel the size of a real model. a. builds the layer (exercise 19's module at GPT-2's
// sizes); b. to f. count what it costs, exactly, as std::int64_t: 2.4 million parameters,
// 48 MiB of attention scores for one 1024-token sequence, 8 billion floating-point
// operations for one forward. Count the way the module computes, step by step, not by
// copying the closed formula.
// Each function's rule, shapes and GPT-2's values: include/attn/gpt2.hpp, Exercise 22.
// Worked example at the notebook's small size, d_in 3, d_out 2, 2 heads (head_dim 1), no
// qkv_bias, B = 2, T = 6:
//   parameters: W_query 2 * 3 = 6, W_key 6, W_value 6, out_proj 2 * 2 + 2 = 6 -> 24
//   scores: 2 * 2 * 6 * 6 = 144 values -> 576 bytes; a mask for 6 tokens: 36 * 4 = 144 bytes
//   FLOPs: projections 3 * 2 * 12 * 3 * 2 = 432, scores 2 * 2 * (2 * 6 * 1 * 6) = 288,
//          weights @ values 288, out_proj 2 * 12 * 2 * 2 = 96 -> 1,104
// Sizes multiply fast: convert to std::int64_t BEFORE multiplying (std::size_t is unsigned
// and a product of ints can overflow int).
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/gpt2.hpp"
#include "attn/multi_head_attention.hpp"

#include <cstdint>

namespace attn {

// [[maybe_unused]] until your code uses them: the stub's body does not.
MultiHeadAttention gpt2_small_attention([[maybe_unused]] ParameterSource& source,
                                        [[maybe_unused]] bool qkv_bias) {
    // TODO 1. Return MultiHeadAttention(d_in, d_out, context_length, num_heads, qkv_bias,
    //         source) with GPT-2 small's sizes: 768, 768, 1024, 12.
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "gpt2_small_attention(source, qkv_bias)");
}

std::int64_t parameter_count([[maybe_unused]] const Linear& layer) {
    // TODO 1. Return layer.weight.size() + layer.bias.size() as std::int64_t (the bias is
    //         empty without one).
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "parameter_count(layer)");
}

std::int64_t parameter_count([[maybe_unused]] const MultiHeadAttention& module) {
    // TODO 1. Return the sum of parameter_count of its four Linear layers: W_query, W_key,
    //         W_value and out_proj (the mask buffer is not a parameter).
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "parameter_count(module)");
}

std::int64_t score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T) {
    arguments::score_tensor_bytes(batch, num_heads, T);  // bad input -> a clear error

    // TODO 1. Return batch * num_heads * T * T values times 4 bytes (a float32), in
    //         std::int64_t.
    throw not_implemented("exercises/22_gpt2_sizing.cpp",
                          "score_tensor_bytes(batch, num_heads, T)");
}

std::int64_t mask_buffer_bytes(std::size_t context_length) {
    arguments::mask_buffer_bytes(context_length);  // bad input -> a clear error

    // TODO 1. Return context_length * context_length values times 4 bytes, in std::int64_t.
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "mask_buffer_bytes(context_length)");
}

std::int64_t forward_flops([[maybe_unused]] const MultiHeadAttention& module, std::size_t batch,
                           std::size_t T) {
    arguments::forward_flops(batch, T);  // bad input -> a clear error

    // TODO 1. The sizes as std::int64_t: B, T, module.d_in(), module.d_out(),
    //         module.num_heads, module.head_dim().
    //      2. For each matrix product the header lists (queries, keys, values; scores;
    //         weights @ values; out_proj): 2 * its multiply-adds, (m, k) @ (k, n) having
    //         m * k * n, times how many such products there are.
    //      3. Return the sum.
    throw not_implemented("exercises/22_gpt2_sizing.cpp", "forward_flops(module, batch, T)");
}

}  // namespace attn

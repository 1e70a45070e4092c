// solutions/22_gpt2_sizing.cpp — reference solution of Exercise 22: GPT-2 small's attention
// layer, built and counted.
//
// Source: the book's Exercise 3.3 (exercise-solutions.ipynb) and the GPT-2 exercise of
// ../shared/seeds/002_eeebb14cde2caf31.txt (see exercises/22_gpt2_sizing.cpp). Declared in
// include/attn/gpt2.hpp. The module and its forward are exercise 19's; the kit links its reference
// solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/gpt2.hpp"
#include "attn/multi_head_attention.hpp"

#include <cstdint>

namespace attn {

MultiHeadAttention gpt2_small_attention(ParameterSource& source, bool qkv_bias) {
    const std::size_t d_in = 768, d_out = 768, context_length = 1024, num_heads = 12;
    return MultiHeadAttention(d_in, d_out, context_length, num_heads, qkv_bias, source);
}

std::int64_t parameter_count(const Linear& layer) {
    return static_cast<std::int64_t>(layer.weight.size() + layer.bias.size());
}

std::int64_t parameter_count(const MultiHeadAttention& module) {
    return parameter_count(module.W_query) + parameter_count(module.W_key) +
           parameter_count(module.W_value) + parameter_count(module.out_proj);
}

std::int64_t score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T) {
    arguments::score_tensor_bytes(batch, num_heads, T);  // bad input -> a clear error

    const std::int64_t values = static_cast<std::int64_t>(batch) *
                                static_cast<std::int64_t>(num_heads) *
                                static_cast<std::int64_t>(T) * static_cast<std::int64_t>(T);
    return values * static_cast<std::int64_t>(sizeof(float));
}

std::int64_t mask_buffer_bytes(std::size_t context_length) {
    arguments::mask_buffer_bytes(context_length);  // bad input -> a clear error

    const auto n = static_cast<std::int64_t>(context_length);
    return n * n * static_cast<std::int64_t>(sizeof(float));
}

std::int64_t forward_flops(const MultiHeadAttention& module, std::size_t batch, std::size_t T) {
    arguments::forward_flops(batch, T);  // bad input -> a clear error

    // 2 FLOPs per multiply-add of an (n, k) @ (k, m) product
    const auto product = [](std::int64_t n, std::int64_t k, std::int64_t m) {
        return 2 * n * k * m;
    };
    const auto B = static_cast<std::int64_t>(batch), tokens = static_cast<std::int64_t>(T);
    const auto d_in = static_cast<std::int64_t>(module.d_in());
    const auto d_out = static_cast<std::int64_t>(module.d_out());
    const auto heads = static_cast<std::int64_t>(module.num_heads);
    const auto head_dim = static_cast<std::int64_t>(module.head_dim());
    return 3 * product(B * tokens, d_in, d_out)             // queries, keys, values
           + B * heads * product(tokens, head_dim, tokens)  // scores
           + B * heads * product(tokens, tokens, head_dim)  // weights @ values
           + product(B * tokens, d_out, d_out);             // out_proj
}

}  // namespace attn

// tests/kit/slips/22_gpt2_sizing.cpp — solutions/22_gpt2_sizing.cpp with the slips students
// make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them all).
// Without ATTN_SLIP it is the solution and must pass every test.
//
// 32-bit counts: the status line says "overflow" (the kit's diagnosis of a wrapped integer).
// slip: int32_bytes -> overflow
// slip: int32_flops -> overflow
// slip: int_sizes_flops -> overflow
// slip: unsigned_count -> overflow
// The accounting slips: each a recorded mistake, named on the status line.
// slip: float64_width -> float64
// slip: batch_left_out -> batch left out
// slip: causal_half_scores -> causal half
// slip: causal_half_flops -> causal half
// slip: mask_lower_triangle -> lower triangle
// slip: projections_left_out -> projections left out
// slip: one_head_only -> one head
// slip: flops_batch_left_out -> batch left out
// slip: out_proj_left_out -> out_proj left out
// slip: qkv_biases_left_out -> biases of W_query
// slip: qkv_bias_ignored -> qkv_bias ignored
// slip: multiply_add_x2_dropped -> multiply-adds
// slip: attention_x2_dropped -> halved
// slip: attention_product_left_out -> halved
// slip: head_dim_as_heads -> num_heads = 64
// slip: context_length_768 -> context_length = 768
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/gpt2.hpp"
#include "attn/multi_head_attention.hpp"
#include "slip.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace attn {

MultiHeadAttention gpt2_small_attention(ParameterSource& source, bool qkv_bias) {
    std::size_t d_in = 768, d_out = 768, context_length = 1024, num_heads = 12;
    if (slip("head_dim_as_heads")) num_heads = 64;
    if (slip("context_length_768")) context_length = 768;
    if (slip("qkv_bias_ignored"))
        return MultiHeadAttention(d_in, d_out, context_length, num_heads, false, source);
    return MultiHeadAttention(d_in, d_out, context_length, num_heads, qkv_bias, source);
}

std::int64_t parameter_count(const Linear& layer) {
    return static_cast<std::int64_t>(layer.weight.size() + layer.bias.size());
}

std::int64_t parameter_count(const MultiHeadAttention& module) {
    if (slip("out_proj_left_out")) {
        return parameter_count(module.W_query) + parameter_count(module.W_key) +
               parameter_count(module.W_value);
    }
    if (slip("qkv_biases_left_out")) {
        return static_cast<std::int64_t>(module.W_query.weight.size() + module.W_key.weight.size() +
                                         module.W_value.weight.size()) +
               parameter_count(module.out_proj);
    }
    return parameter_count(module.W_query) + parameter_count(module.W_key) +
           parameter_count(module.W_value) + parameter_count(module.out_proj);
}

std::int64_t score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T) {
    arguments::score_tensor_bytes(batch, num_heads, T);  // bad input -> a clear error

    if (slip("int32_bytes")) {
        int bytes = batch * num_heads * T * T * 4;
        return bytes;
    }
    if (slip("float64_width")) {
        return static_cast<std::int64_t>(batch * num_heads * T * T * sizeof(double));
    }
    if (slip("batch_left_out")) {
        return static_cast<std::int64_t>(num_heads * T * T * sizeof(float));
    }
    if (slip("causal_half_scores")) {  // only the scores the mask keeps
        return static_cast<std::int64_t>(batch * num_heads * (T * (T + 1) / 2) * sizeof(float));
    }
    const std::int64_t values = static_cast<std::int64_t>(batch) *
                                static_cast<std::int64_t>(num_heads) *
                                static_cast<std::int64_t>(T) * static_cast<std::int64_t>(T);
    return values * static_cast<std::int64_t>(sizeof(float));
}

std::int64_t mask_buffer_bytes(std::size_t context_length) {
    arguments::mask_buffer_bytes(context_length);  // bad input -> a clear error

    if (slip("unsigned_count")) {
        unsigned n = context_length;
        return n * n * 4u;
    }
    if (slip("mask_lower_triangle")) {
        const auto n = static_cast<std::int64_t>(context_length);
        return n * (n + 1) / 2 * static_cast<std::int64_t>(sizeof(float));
    }
    const auto n = static_cast<std::int64_t>(context_length);
    return n * n * static_cast<std::int64_t>(sizeof(float));
}

std::int64_t forward_flops(const MultiHeadAttention& module, std::size_t batch, std::size_t T) {
    arguments::forward_flops(batch, T);  // bad input -> a clear error

    if (slip("int32_flops")) {
        const auto product = [](int n, int k, int m) { return 2 * n * k * m; };
        const int B = batch, tokens = T, d_in = module.d_in(), d_out = module.d_out();
        const int heads = module.num_heads, head_dim = module.head_dim();
        return 3 * product(B * tokens, d_in, d_out) +
               B * heads * product(tokens, head_dim, tokens) +
               B * heads * product(tokens, tokens, head_dim) + product(B * tokens, d_out, d_out);
    }
    if (slip("int_sizes_flops")) {  // int64 products, but of sizes held in int
        const int B = static_cast<int>(batch), tokens = static_cast<int>(T);
        const int d_in = static_cast<int>(module.d_in()), d_out = static_cast<int>(module.d_out());
        const std::int64_t projections = 2 * 3 * B * tokens * d_in * d_out;
        const std::int64_t attention = 2 * 2 * B * tokens * tokens * d_out;
        const std::int64_t out_proj = 2 * B * tokens * d_out * d_out;
        return projections + attention + out_proj;
    }

    // 2 FLOPs per multiply-add of an (n, k) @ (k, m) product
    const auto product = [](std::int64_t n, std::int64_t k, std::int64_t m) {
        if (slip("multiply_add_x2_dropped")) return n * k * m;
        return 2 * n * k * m;
    };
    const auto B = slip("flops_batch_left_out") ? 1 : static_cast<std::int64_t>(batch);
    const auto tokens = static_cast<std::int64_t>(T);
    const auto d_in = static_cast<std::int64_t>(module.d_in());
    const auto d_out = static_cast<std::int64_t>(module.d_out());
    const auto heads = static_cast<std::int64_t>(module.num_heads);
    const auto head_dim = static_cast<std::int64_t>(module.head_dim());
    if (slip("projections_left_out")) {
        return B * heads * product(tokens, head_dim, tokens) +
               B * heads * product(tokens, tokens, head_dim) + product(B * tokens, d_out, d_out);
    }
    if (slip("one_head_only")) {
        return 3 * product(B * tokens, d_in, d_out) + B * product(tokens, head_dim, tokens) +
               B * product(tokens, tokens, head_dim) + product(B * tokens, d_out, d_out);
    }
    if (slip("attention_x2_dropped")) {  // both attention products, as multiply-adds
        return 3 * product(B * tokens, d_in, d_out) + B * heads * tokens * head_dim * tokens +
               B * heads * tokens * tokens * head_dim + product(B * tokens, d_out, d_out);
    }
    if (slip("attention_product_left_out")) {  // the scores, but not weights @ values
        return 3 * product(B * tokens, d_in, d_out) +
               B * heads * product(tokens, head_dim, tokens) + product(B * tokens, d_out, d_out);
    }
    if (slip("causal_half_flops")) {  // each query attends to itself and the tokens before it
        std::int64_t attention = 0;
        for (std::int64_t i = 0; i < tokens; ++i) attention += 2 * 2 * (i + 1) * head_dim;
        return 3 * product(B * tokens, d_in, d_out) + B * heads * attention +
               product(B * tokens, d_out, d_out);
    }
    return 3 * product(B * tokens, d_in, d_out)             // queries, keys, values
           + B * heads * product(tokens, head_dim, tokens)  // scores
           + B * heads * product(tokens, tokens, head_dim)  // weights @ values
           + product(B * tokens, d_out, d_out);             // out_proj
}

}  // namespace attn

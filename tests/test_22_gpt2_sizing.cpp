// tests/test_22_gpt2_sizing.cpp — Exercise 22: GPT-2 small's attention layer (the book's
// Exercise 3.3, ch03.ipynb In [39]; the multi-head tutorial's In [9] to In [12]). Compiled
// once; linked against exercises/ and solutions/22_gpt2_sizing.cpp, and the reference
// solutions of the earlier exercises (the module's forward is exercise 19's). The cases are in
// reference_data/22_gpt2_sizing/. A GPT-2-width module has 2.36 M parameters: no case stores
// them. Its parameters come from attn::HashedUniform(init_seed) and its input from
// attn::hashed_uniform(x_seed, "x", ...), which tools/record computes alike; the outputs of a
// 1024-token forward are checked by their sums over each token and each feature.
#include "attn/errors.hpp"
#include "attn/gpt2.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xmath.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

std::size_t size_input(attn::kit::case_context& the_case, const std::string& name) {
    return static_cast<std::size_t>(the_case.integer(name));
}

// x (batch, T, d_in), uniform in [-1, 1), as tools/record draws it.
attn::Tensor3 hashed_x(attn::kit::case_context& the_case) {
    return attn::hashed_uniform(static_cast<std::uint64_t>(the_case.integer("x_seed")), "x",
                                {size_input(the_case, "batch"), size_input(the_case, "T"),
                                 size_input(the_case, "d_in")},
                                -1.0f, 1.0f);
}

// A MultiHeadAttention of the case's sizes, built by the kit (the counts' cases).
attn::MultiHeadAttention module_of(attn::kit::case_context& the_case) {
    attn::HashedUniform init(0);
    return attn::MultiHeadAttention(size_input(the_case, "d_in"), size_input(the_case, "d_out"),
                                    size_input(the_case, "context_length"),
                                    size_input(the_case, "num_heads"),
                                    the_case.integer("qkv_bias") != 0, init);
}

}  // namespace

// Your GPT-2 small layer's sizes: [d_in, d_out, num_heads, context_length, qkv_bias].
ATTN_CASE(gpt2_layer_sizes) {
    attn::HashedUniform init(0);
    const bool qkv_bias = the_case.integer("qkv_bias") != 0;
    const attn::MultiHeadAttention mha = ATTN_CALL(attn::gpt2_small_attention(init, qkv_bias));
    const xt::xtensor<std::int64_t, 1> sizes{
        static_cast<std::int64_t>(mha.d_in()), static_cast<std::int64_t>(mha.d_out()),
        static_cast<std::int64_t>(mha.num_heads), static_cast<std::int64_t>(mha.context_length()),
        static_cast<std::int64_t>(mha.W_query.has_bias())};
    ATTN_RESULT("sizes", sizes);
}

// Your GPT-2 small layer's forward at T = 64, against the whole output.
ATTN_CASE(gpt2_forward) {
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const attn::MultiHeadAttention mha =
        ATTN_CALL(attn::gpt2_small_attention(init, the_case.integer("qkv_bias") != 0));
    ATTN_RESULT("context", mha.forward(hashed_x(the_case)));
}

// ... and at T = 1024, the full context: (B, 1024, 768) is 3 MB, so the goldens are its sums
// over the features of each token and over the tokens of each feature.
ATTN_CASE(gpt2_forward_sums) {
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const attn::MultiHeadAttention mha =
        ATTN_CALL(attn::gpt2_small_attention(init, the_case.integer("qkv_bias") != 0));
    const attn::Tensor3 context = ATTN_CALL(mha.forward(hashed_x(the_case)));
    ATTN_RESULT("token_sums", attn::Matrix(xt::sum(context, {2})));    // (B, T)
    ATTN_RESULT("feature_sums", attn::Matrix(xt::sum(context, {1})));  // (B, d_out)
}

ATTN_CASE(linear_parameter_count) {
    attn::HashedUniform init(0);
    const attn::Linear layer = attn::Linear::make(init, "layer", size_input(the_case, "d_in"),
                                                  size_input(the_case, "d_out"),
                                                  the_case.integer("bias") != 0);
    ATTN_RESULT("count", attn::parameter_count(layer));
}

ATTN_CASE(parameter_count) {
    const attn::MultiHeadAttention module = module_of(the_case);
    ATTN_RESULT("count", attn::parameter_count(module));
}

ATTN_CASE(score_tensor_bytes) {
    ATTN_RESULT("bytes", attn::score_tensor_bytes(size_input(the_case, "batch"),
                                                  size_input(the_case, "num_heads"),
                                                  size_input(the_case, "T")));
}

ATTN_CASE(mask_buffer_bytes) {
    ATTN_RESULT("bytes", attn::mask_buffer_bytes(size_input(the_case, "context_length")));
}

ATTN_CASE(forward_flops) {
    const attn::MultiHeadAttention module = module_of(the_case);
    ATTN_RESULT("flops", attn::forward_flops(module, size_input(the_case, "batch"),
                                             size_input(the_case, "T")));
}

TEST(Gpt2SizingTest, ScoreTensorBytesRejectsZeroTokens) {
    ATTN_EXPECT_REJECTS(attn::score_tensor_bytes(1, 12, 1024), attn::score_tensor_bytes(1, 12, 0),
                        "T = 0", attn::shape_error, "score_tensor_bytes: T is 0",
                        R"line(checks::require_positive("score_tensor_bytes", "T", T);)line");
}

TEST(Gpt2SizingTest, ScoreTensorBytesRejectsZeroHeads) {
    ATTN_EXPECT_REJECTS(attn::score_tensor_bytes(1, 12, 1024), attn::score_tensor_bytes(1, 0, 1024),
                        "num_heads = 0", attn::shape_error, "score_tensor_bytes: num_heads is 0",
                        R"line(checks::require_positive("score_tensor_bytes", "num_heads", num_heads);)line");
}

TEST(Gpt2SizingTest, MaskBufferBytesRejectsZeroContextLength) {
    ATTN_EXPECT_REJECTS(attn::mask_buffer_bytes(1024), attn::mask_buffer_bytes(0),
                        "context_length = 0", attn::shape_error,
                        "mask_buffer_bytes: context_length is 0",
                        R"line(checks::require_positive("mask_buffer_bytes", "context_length", context_length);)line");
}

TEST(Gpt2SizingTest, ForwardFlopsRejectsAnEmptyBatch) {
    attn::HashedUniform init(0);
    const attn::MultiHeadAttention small(3, 2, 6, 2, false, init);
    ATTN_EXPECT_REJECTS(attn::forward_flops(small, 2, 6), attn::forward_flops(small, 0, 6),
                        "batch = 0", attn::shape_error, "forward_flops: batch is 0",
                        R"line(checks::require_positive("forward_flops", "batch", batch);)line");
}

// The layer refuses a sequence longer than GPT-2's context (1024 tokens), as every module
// with a mask does.
TEST(Gpt2SizingTest, TheLayerRefusesMoreTokensThanItsContextLength) {
    attn::HashedUniform init(0);
    const attn::Tensor3 one_token = attn::hashed_uniform(1, "x", {1, 1, 768}, -1.0f, 1.0f);
    const attn::Tensor3 too_long = attn::hashed_uniform(1, "x", {1, 1025, 768}, -1.0f, 1.0f);
    ATTN_EXPECT_REJECTS(
        attn::gpt2_small_attention(init, false).forward(one_token),
        attn::gpt2_small_attention(init, false).forward(too_long), "x of 1025 tokens",
        attn::shape_error, "x has T = 1025 tokens, more than the context_length = 1024",
        R"line(MultiHeadAttention(d_in, d_out, context_length, num_heads, qkv_bias, source) with context_length = 1024)line");
}

// tests/test_22_gpt2_sizing.cpp — Exercise 22: GPT-2 small's attention layer (the book's
// Exercise 3.3, exercise-solutions.ipynb; In [9] to In [12] of the seed 002). Compiled
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

using attn::kit::case_integer;
using attn::kit::stub_line;

namespace {

// x (batch, T, d_in), uniform in [-1, 1), as tools/record draws it.
attn::Tensor3 hashed_x(attn::kit::case_context& the_case) {
    return attn::hashed_uniform(static_cast<std::uint64_t>(the_case.integer("x_seed")), "x",
                                {the_case.size("batch"), the_case.size("T"), the_case.size("d_in")},
                                -1.0f, 1.0f);
}

// A MultiHeadAttention of the case's sizes, built by the kit (the counts' cases).
attn::MultiHeadAttention module_of(attn::kit::case_context& the_case) {
    attn::HashedUniform init(0);
    return attn::MultiHeadAttention(the_case.size("d_in"), the_case.size("d_out"),
                                    the_case.size("context_length"), the_case.size("num_heads"),
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
    const bool qkv_bias = the_case.integer("qkv_bias") != 0;
    const attn::MultiHeadAttention mha = ATTN_CALL(attn::gpt2_small_attention(init, qkv_bias));
    const attn::Tensor3 x = hashed_x(the_case);
    ATTN_RESULT("context", mha.forward(x));
}

// ... and at T = 1024, the full context: (B, 1024, 768) is 3 MB, so the goldens are its sums
// over the features of each token and over the tokens of each feature.
ATTN_CASE(gpt2_forward_sums) {
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const bool qkv_bias = the_case.integer("qkv_bias") != 0;
    const attn::MultiHeadAttention mha = ATTN_CALL(attn::gpt2_small_attention(init, qkv_bias));
    const attn::Tensor3 x = hashed_x(the_case);
    const attn::Tensor3 context = ATTN_CALL(mha.forward(x));
    ATTN_RESULT("token_sums", attn::Matrix(xt::sum(context, {2})));    // (B, T)
    ATTN_RESULT("feature_sums", attn::Matrix(xt::sum(context, {1})));  // (B, d_out)
}

ATTN_CASE(linear_parameter_count) {
    attn::HashedUniform init(0);
    const attn::Linear layer =
        attn::Linear::make(init, "layer", the_case.size("d_in"), the_case.size("d_out"),
                           the_case.integer("bias") != 0);
    ATTN_RESULT("count", attn::parameter_count(layer));
}

ATTN_CASE(parameter_count) {
    const attn::MultiHeadAttention module = module_of(the_case);
    ATTN_RESULT("count", attn::parameter_count(module));
}

ATTN_CASE(score_tensor_bytes) {
    ATTN_RESULT("bytes", attn::score_tensor_bytes(the_case.size("batch"),
                                                  the_case.size("num_heads"), the_case.size("T")));
}

ATTN_CASE(mask_buffer_bytes) {
    ATTN_RESULT("bytes", attn::mask_buffer_bytes(the_case.size("context_length")));
}

ATTN_CASE(forward_flops) {
    const attn::MultiHeadAttention module = module_of(the_case);
    ATTN_RESULT("flops", attn::forward_flops(module, the_case.size("batch"), the_case.size("T")));
}

namespace {

// GPT-2 small's sizes, from the notebook cases: one 1024-token sequence, 12 heads, d_in 768.
const std::string scores = "22_gpt2_sizing/notebook_scores";
const std::string mask = "22_gpt2_sizing/notebook_mask";
const std::string small = "22_gpt2_sizing/notebook_small_flops";  // ch03.ipynb In [36]'s

}  // namespace

TEST(Gpt2SizingTest, ScoreTensorBytesRejectsZeroTokens) {
    const std::size_t B = case_integer(scores, "batch"), H = case_integer(scores, "num_heads");
    ATTN_EXPECT_REJECTS(attn::score_tensor_bytes(B, H, case_integer(scores, "T")),
                        attn::score_tensor_bytes(B, H, 0), "T = 0", attn::shape_error,
                        "score_tensor_bytes: T is 0", stub_line("arguments::score_tensor_bytes("));
}

TEST(Gpt2SizingTest, ScoreTensorBytesRejectsZeroHeads) {
    const std::size_t B = case_integer(scores, "batch"), T = case_integer(scores, "T");
    ATTN_EXPECT_REJECTS(attn::score_tensor_bytes(B, case_integer(scores, "num_heads"), T),
                        attn::score_tensor_bytes(B, 0, T), "num_heads = 0", attn::shape_error,
                        "score_tensor_bytes: num_heads is 0",
                        stub_line("arguments::score_tensor_bytes("));
}

TEST(Gpt2SizingTest, MaskBufferBytesRejectsZeroContextLength) {
    ATTN_EXPECT_REJECTS(attn::mask_buffer_bytes(case_integer(mask, "context_length")),
                        attn::mask_buffer_bytes(0), "context_length = 0", attn::shape_error,
                        "mask_buffer_bytes: context_length is 0",
                        stub_line("arguments::mask_buffer_bytes("));
}

TEST(Gpt2SizingTest, ForwardFlopsRejectsAnEmptyBatch) {
    attn::HashedUniform init(0);
    const attn::MultiHeadAttention module(case_integer(small, "d_in"), case_integer(small, "d_out"),
                                          case_integer(small, "context_length"),
                                          case_integer(small, "num_heads"), false, init);
    const std::size_t B = case_integer(small, "batch"), T = case_integer(small, "T");
    ATTN_EXPECT_REJECTS(attn::forward_flops(module, B, T), attn::forward_flops(module, 0, T),
                        "batch = 0", attn::shape_error, "forward_flops: batch is 0",
                        stub_line("arguments::forward_flops("));
}

// The layer refuses a sequence longer than GPT-2's context, as every module with a mask does.
TEST(Gpt2SizingTest, TheLayerRefusesMoreTokensThanItsContextLength) {
    attn::HashedUniform init(0);
    const std::size_t context_length = case_integer(mask, "context_length");
    const std::size_t d_in = case_integer("22_gpt2_sizing/forward_t64", "d_in");
    const attn::Tensor3 one_token = attn::hashed_uniform(0, "x", {1, 1, d_in}, -1.0f, 1.0f);
    const attn::Tensor3 too_long =
        attn::hashed_uniform(0, "x", {1, context_length + 1, d_in}, -1.0f, 1.0f);
    ATTN_EXPECT_REJECTS(
        attn::gpt2_small_attention(init, false).forward(one_token),
        attn::gpt2_small_attention(init, false).forward(too_long),
        "x of " + std::to_string(context_length + 1) + " tokens", attn::shape_error,
        "x has T = " + std::to_string(context_length + 1) +
            " tokens, more than the context_length = " + std::to_string(context_length),
        R"line(return MultiHeadAttention(d_in, d_out, context_length, num_heads, qkv_bias, source);)line");
}

// tests/test_13_causal_softmax.cpp — Exercise 13: -inf above the diagonal before softmax
// (ch03.ipynb In [29] and In [30]). Compiled once; linked against exercises/ and
// solutions/13_causal_softmax.cpp, and the reference solutions of the earlier exercises
// (exercise 12's mask_and_renormalize included). The cases are in
// reference_data/13_causal_softmax/.
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <cmath>
#include <cstddef>
#include <string>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(future_mask) {
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("mask", attn::future_mask(context_length));
}

ATTN_CASE(mask_future) {
    const auto scores = the_case.input<2>("scores");  // (T, T)
    ATTN_RESULT("masked", attn::mask_future(scores));
}

// The causal weights are the softmax of mask_future's scores: where both fail, fix the callee
// first.
ATTN_CASE_CALLS(causal_attention_weights, "mask_future");

ATTN_CASE(causal_attention_weights) {
    const auto scores = the_case.input<2>("scores");  // (T, T)
    const auto d_k = static_cast<std::size_t>(the_case.integer("d_k"));
    ATTN_RESULT("weights", attn::causal_attention_weights(scores, d_k));
}

// In [30] gives In [28]'s weights: the -inf way minus exercise 12's way (the kit's reference
// mask_and_renormalize of softmax(scores / sqrt(d_k))) is zero up to rounding.
ATTN_CASE(two_ways) {
    const auto scores = the_case.input<2>("scores");
    const auto d_k = static_cast<std::size_t>(the_case.integer("d_k"));
    const attn::Matrix scaled = scores / std::sqrt(static_cast<float>(d_k));
    const attn::Matrix by_renormalizing = attn::mask_and_renormalize(attn::softmax(scaled, -1));
    ATTN_RESULT("difference", attn::causal_attention_weights(scores, d_k) - by_renormalizing);
}

TEST(CausalSoftmaxTest, RejectsScoresThatAreNotSquare) {
    const auto scores = case_input<2>("13_causal_softmax/notebook", "scores");
    const attn::Matrix one_row_short = xt::view(scores, xt::range(1, scores.shape(0)), xt::all());
    const std::string not_square =
        "scores of shape " + attn::shape_string(one_row_short.shape()) + ", one row short";
    ATTN_EXPECT_REJECTS(attn::mask_future(scores), attn::mask_future(one_row_short), not_square,
                        attn::shape_error, "scores has shape (5, 6)",
                        stub_line("arguments::mask_future("));
    ATTN_EXPECT_REJECTS(attn::causal_attention_weights(scores, scores.shape(1)),
                        attn::causal_attention_weights(one_row_short, one_row_short.shape(1)),
                        not_square, attn::shape_error, "scores has shape (5, 6)",
                        stub_line("arguments::causal_attention_weights("));
}

TEST(CausalSoftmaxTest, RejectsZeroContextLength) {
    const std::size_t some_length =
        case_input<2>("13_causal_softmax/notebook", "scores").shape(0);  // any length > 0
    ATTN_EXPECT_REJECTS(attn::future_mask(some_length), attn::future_mask(0), "context_length = 0",
                        attn::shape_error, "context_length is 0",
                        stub_line("arguments::future_mask("));
}

TEST(CausalSoftmaxTest, RejectsZeroDk) {
    const auto scores = case_input<2>("13_causal_softmax/notebook", "scores");
    const std::size_t some_d_k = scores.shape(0);  // any d_k > 0 is valid
    ATTN_EXPECT_REJECTS(attn::causal_attention_weights(scores, some_d_k),
                        attn::causal_attention_weights(scores, 0), "d_k = 0", attn::shape_error,
                        "d_k is 0", stub_line("arguments::causal_attention_weights("));
}

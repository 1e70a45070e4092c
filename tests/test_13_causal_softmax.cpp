// tests/test_13_causal_softmax.cpp — Exercise 13: -inf above the diagonal before softmax
// (ch03.ipynb In [29] and In [30]). Compiled once; linked against exercises/ and
// solutions/13_causal_softmax.cpp, and the reference solutions of the earlier exercises
// (exercise 12's mask_and_renormalize included). The cases are in
// reference_data/13_causal_softmax/.
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

#include <cmath>
#include <cstddef>

using attn::kit::case_input;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ATTN_CASE(future_mask) {
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("mask", attn::future_mask(context_length));
}

ATTN_CASE(mask_future) {
    const auto scores = the_case.input<2>("scores");  // (T, T)
    ATTN_RESULT("masked", attn::mask_future(scores));
}

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
    EXPECT_THAT([&] { attn::mask_future(one_row_short); },
                ThrowsMessage<attn::shape_error>(HasSubstr("scores has shape (5, 6)")));
    EXPECT_THAT([&] { attn::causal_attention_weights(one_row_short, one_row_short.shape(1)); },
                ThrowsMessage<attn::shape_error>(HasSubstr("scores has shape (5, 6)")));
}

TEST(CausalSoftmaxTest, RejectsZeroContextLength) {
    EXPECT_THAT([] { attn::future_mask(0); },
                ThrowsMessage<attn::shape_error>(HasSubstr("context_length is 0")));
}

TEST(CausalSoftmaxTest, RejectsZeroDk) {
    const auto scores = case_input<2>("13_causal_softmax/notebook", "scores");
    EXPECT_THAT([&] { attn::causal_attention_weights(scores, 0); },
                ThrowsMessage<attn::shape_error>(HasSubstr("d_k is 0")));
}

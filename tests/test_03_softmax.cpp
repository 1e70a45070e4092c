// tests/test_03_softmax.cpp — Exercise 03: softmax (ch03.ipynb In [6], In [7], In [11];
// 12_1_Self_Attention.ipynb softmax_cols). Compiled once; linked against exercises/ and
// solutions/03_softmax.cpp.
// The cases (notebook scores, large and spread logits, other shapes, every dim) are in
// reference_data/03_softmax/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>
#include <xtensor/xmath.hpp>

#include <stdexcept>

using attn::kit::case_input;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The plain formula: on [1000, 1001] its expected result is PyTorch's [nan, nan].
ATTN_CASE(softmax_naive) {
    const auto x = the_case.input<1>("x");
    ATTN_RESULT("weights", attn::softmax_naive(x));
}

ATTN_CASE(softmax) {
    const auto x = the_case.input<1>("x");
    const attn::Vector weights = ATTN_RESULT("weights", attn::softmax(x));
    ATTN_RESULT("weights_sum", xt::sum(weights));  // 1, up to rounding
}

ATTN_CASE(softmax_matrix) {
    const auto scores = the_case.input<2>("scores");
    const int dim = static_cast<int>(the_case.integer("dim"));  // -2, -1, 0 or 1
    ATTN_RESULT("weights", attn::softmax(scores, dim));
}

TEST(SoftmaxTest, RejectsDimOutOfRange) {
    const auto scores = case_input<2>("03_softmax/rows_notebook", "scores");
    const int rank = static_cast<int>(scores.dimension());
    for (const int dim : {rank, -rank - 1}) {  // one past each end of -rank .. rank - 1
        EXPECT_THAT([&] { attn::softmax(scores, dim); },
                    ThrowsMessage<std::out_of_range>(HasSubstr("out of range for a 2-D tensor")));
    }
}

TEST(SoftmaxTest, RejectsEmptyInput) {
    EXPECT_THAT([] { attn::softmax(attn::Vector{}); },
                ThrowsMessage<attn::shape_error>(HasSubstr("x is empty")));
    EXPECT_THAT([] { attn::softmax_naive(attn::Vector{}); },
                ThrowsMessage<attn::shape_error>(HasSubstr("x is empty")));
    const auto scores = case_input<2>("03_softmax/rows_notebook", "scores");
    const attn::Matrix no_rows = xt::zeros<float>({std::size_t{0}, scores.shape(1)});
    EXPECT_THAT([&] { attn::softmax(no_rows, -1); },
                ThrowsMessage<attn::shape_error>(HasSubstr("scores is empty")));
}

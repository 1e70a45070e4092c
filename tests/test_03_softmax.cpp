// tests/test_03_softmax.cpp — Exercise 03: softmax (ch03.ipynb In [6], In [7], In [11];
// 12_1_Self_Attention.ipynb softmax_cols). Compiled once; linked against exercises/ and
// solutions/03_softmax.cpp.
// The cases (notebook scores, large and spread logits, other shapes, every dim) are in
// reference_data/03_softmax/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xmath.hpp>

#include <stdexcept>

using attn::kit::case_input;
using attn::kit::stub_line;

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
        ATTN_EXPECT_REJECTS(attn::softmax(scores, -1), attn::softmax(scores, dim),
                            "dim = " + std::to_string(dim), std::out_of_range,
                            "out of range for a 2-D tensor",
                            stub_line("arguments::softmax(scores"));
    }
}

TEST(SoftmaxTest, RejectsEmptyInput) {
    const auto x = case_input<1>("03_softmax/notebook_journey", "x");
    ATTN_EXPECT_REJECTS(attn::softmax(x), attn::softmax(attn::Vector{}), "an empty x, shape (0,)",
                        attn::shape_error, "x is empty", stub_line("arguments::softmax(x)"));
    ATTN_EXPECT_REJECTS(attn::softmax_naive(x), attn::softmax_naive(attn::Vector{}),
                        "an empty x, shape (0,)", attn::shape_error, "x is empty",
                        stub_line("arguments::softmax_naive("));
    const auto scores = case_input<2>("03_softmax/rows_notebook", "scores");
    const attn::Matrix no_rows = xt::zeros<float>({std::size_t{0}, scores.shape(1)});
    ATTN_EXPECT_REJECTS(attn::softmax(scores, -1), attn::softmax(no_rows, -1),
                        "scores with no rows, shape " + attn::shape_string(no_rows.shape()),
                        attn::shape_error, "scores is empty",
                        stub_line("arguments::softmax(scores"));
}

// tests/test_03_softmax.cpp — Exercise 03: softmax (001 §3.3.1 In [4], §3.3.2 In [9];
// 003 In [28]). Compiled once; linked against exercises/ and solutions/03_softmax.cpp.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/golden.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>
#include <xtensor/xmath.hpp>

#include <stdexcept>

using attn::kit::golden;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(SoftmaxTest, NaiveFormMatchesNotebook) {
    const auto scores = golden<1>("03_softmax/attention_scores_2");
    EXPECT_RESULT_MATCHES(attn::softmax_naive(scores), "03_softmax/attention_weights_2");
}

TEST(SoftmaxTest, NaiveFormOverflowsOnLargeLogits) {
    const auto large = golden<1>("03_softmax/large_logits");
    attn::Vector weights;
    RUN_STUDENT_CODE(weights = attn::softmax_naive(large));
    if (!xt::all(xt::isnan(weights))) {
        ADD_FAILURE() << "softmax_naive(x) should be the plain formula exp(x) / sum(exp(x)): on "
                         "[1000, 1001] exp() overflows to inf and inf / inf is nan. That failure "
                         "is what the max-subtracted softmax(x) fixes; keep the naive one naive.";
    }
}

TEST(SoftmaxTest, WeightsSumToOne) {
    const auto scores = golden<1>("03_softmax/attention_scores_2");
    EXPECT_RESULT_MATCHES(xt::sum(attn::softmax(scores)), "03_softmax/attention_weights_2_sum");
}

TEST(SoftmaxTest, MatchesNotebook) {
    const auto scores = golden<1>("03_softmax/attention_scores_2");
    EXPECT_RESULT_MATCHES(attn::softmax(scores), "03_softmax/attention_weights_2");
}

TEST(SoftmaxTest, SurvivesLargeLogits) {
    const auto large = golden<1>("03_softmax/large_logits");
    EXPECT_RESULT_MATCHES(attn::softmax(large), "03_softmax/large_logits_softmax");
}

TEST(SoftmaxTest, RowsMatchNotebookForDimMinusOneAndOne) {
    const auto scores = golden<2>("03_softmax/attn_scores");
    for (const int dim : {-1, 1}) {
        SCOPED_TRACE("dim = " + std::to_string(dim));
        EXPECT_RESULT_MATCHES(attn::softmax(scores, dim), "03_softmax/attn_weights");
    }
}

TEST(SoftmaxTest, ColumnsMatchSoftmaxColsForDimZeroAndMinusTwo) {
    const auto scores = golden<2>("03_softmax/attn_scores");
    for (const int dim : {0, -2}) {
        SCOPED_TRACE("dim = " + std::to_string(dim));
        EXPECT_RESULT_MATCHES(attn::softmax(scores, dim), "03_softmax/attn_weights_cols");
    }
}

TEST(SoftmaxTest, RowsSurviveLargeLogits) {
    const auto large = golden<2>("03_softmax/large_rows");
    EXPECT_RESULT_MATCHES(attn::softmax(large, -1), "03_softmax/large_rows_softmax");
}

TEST(SoftmaxTest, RejectsDimOutOfRange) {
    const auto scores = golden<2>("03_softmax/attn_scores");
    for (const int dim : {2, -3}) {
        EXPECT_THAT([&] { attn::softmax(scores, dim); },
                    ThrowsMessage<std::out_of_range>(HasSubstr("out of range for a 2-D tensor")));
    }
}

TEST(SoftmaxTest, RejectsEmptyInput) {
    EXPECT_THAT([] { attn::softmax(attn::Vector{}); },
                ThrowsMessage<attn::shape_error>(HasSubstr("x is empty")));
    EXPECT_THAT([] { attn::softmax_naive(attn::Vector{}); },
                ThrowsMessage<attn::shape_error>(HasSubstr("x is empty")));
    const attn::Matrix no_rows = xt::zeros<float>({0, 4});
    EXPECT_THAT([&] { attn::softmax(no_rows, -1); },
                ThrowsMessage<attn::shape_error>(HasSubstr("scores is empty")));
}

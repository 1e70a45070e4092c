// tests/test_01_dot_scores.cpp — Exercise 01: dot-product scores (seed 001 §3.3.1, In [2]).
// Compiled once; linked against exercises/01_dot_scores.cpp and solutions/01_dot_scores.cpp.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/golden.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>
#include <xtensor/xview.hpp>

using attn::kit::golden;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(DotScoresTest, GivesOneScorePerToken) {
    const auto inputs = golden<2>("01_dot_scores/inputs");
    attn::Vector scores;
    RUN_STUDENT_CODE(scores = attn::dot_scores(inputs, xt::row(inputs, 1)));
    EXPECT_EQ(scores.size(), inputs.shape(0)) << "one score per input token (row of inputs)";
}

TEST(DotScoresTest, MatchesNotebookForQueryJourney) {
    const auto inputs = golden<2>("01_dot_scores/inputs");
    EXPECT_RESULT_MATCHES(attn::dot_scores(inputs, xt::row(inputs, 1)),
                          "01_dot_scores/attention_scores_2");
}

TEST(DotScoresTest, MatchesNotebookForQueryYour) {
    const auto inputs = golden<2>("01_dot_scores/inputs");
    EXPECT_RESULT_MATCHES(attn::dot_scores(inputs, xt::row(inputs, 0)),
                          "01_dot_scores/attn_scores_1");
}

TEST(DotScoresTest, RejectsQueryOfWrongLength) {
    const auto inputs = golden<2>("01_dot_scores/inputs");
    const attn::Vector two_dims = {1.0f, 2.0f};
    EXPECT_THAT([&] { attn::dot_scores(inputs, two_dims); },
                ThrowsMessage<attn::shape_error>(HasSubstr("query has shape (2,)")));
}

TEST(DotScoresTest, RejectsEmptyInputs) {
    const attn::Matrix no_tokens = xt::zeros<float>({0, 3});
    const attn::Vector query = {1.0f, 2.0f, 3.0f};
    EXPECT_THAT([&] { attn::dot_scores(no_tokens, query); },
                ThrowsMessage<attn::shape_error>(HasSubstr("inputs is empty")));
}

// tests/test_02_normalize_by_sum.cpp — Exercise 02: naive normalisation (001 §3.3.1, In [3]).
// Compiled once; linked against exercises/ and solutions/02_normalize_by_sum.cpp.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/golden.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>
#include <xtensor/xmath.hpp>

using attn::kit::golden;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(NormalizeBySumTest, WeightsSumToOne) {
    const auto scores = golden<1>("02_normalize_by_sum/attention_scores_2");
    EXPECT_RESULT_MATCHES(xt::sum(attn::normalize_by_sum(scores)),
                          "02_normalize_by_sum/attention_weights_2_tmp_sum");
}

TEST(NormalizeBySumTest, MatchesNotebook) {
    const auto scores = golden<1>("02_normalize_by_sum/attention_scores_2");
    EXPECT_RESULT_MATCHES(attn::normalize_by_sum(scores),
                          "02_normalize_by_sum/attention_weights_2_tmp");
}

TEST(NormalizeBySumTest, RejectsEmptyScores) {
    EXPECT_THAT([] { attn::normalize_by_sum(attn::Vector{}); },
                ThrowsMessage<attn::shape_error>(HasSubstr("scores is empty")));
}

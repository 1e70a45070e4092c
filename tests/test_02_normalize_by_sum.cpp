// tests/test_02_normalize_by_sum.cpp — Exercise 02: naive normalisation (ch03.ipynb In [5]).
// Compiled once; linked against exercises/ and solutions/02_normalize_by_sum.cpp.
// The cases are in reference_data/02_normalize_by_sum/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xmath.hpp>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(normalize_by_sum) {
    const auto scores = the_case.input<1>("scores");  // (T,)
    const attn::Vector weights = ATTN_RESULT("weights", attn::normalize_by_sum(scores));
    ATTN_RESULT("weights_sum", xt::sum(weights));  // 1, up to rounding
}

TEST(NormalizeBySumTest, RejectsEmptyScores) {
    const auto scores = case_input<1>("02_normalize_by_sum/notebook_journey", "scores");
    ATTN_EXPECT_REJECTS(attn::normalize_by_sum(scores), attn::normalize_by_sum(attn::Vector{}),
                        "no scores, shape (0,)", attn::shape_error, "scores is empty",
                        stub_line("arguments::normalize_by_sum("));
}

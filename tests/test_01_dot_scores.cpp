// tests/test_01_dot_scores.cpp — Exercise 01: dot-product scores (ch03.ipynb In [3]).
// Compiled once; linked against exercises/01_dot_scores.cpp and solutions/01_dot_scores.cpp.
// The cases (notebook queries, other shapes) are in reference_data/01_dot_scores/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

using attn::kit::case_input;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ATTN_CASE(dot_scores) {
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    const auto query = the_case.input<1>("query");    // (d_in,)
    ATTN_RESULT("scores", attn::dot_scores(inputs, query));
}

TEST(DotScoresTest, RejectsQueryOfWrongLength) {
    const auto inputs = case_input<2>("01_dot_scores/notebook_journey", "inputs");
    const attn::Vector too_long = xt::zeros<float>({inputs.shape(1) + 1});
    EXPECT_THAT([&] { attn::dot_scores(inputs, too_long); },
                ThrowsMessage<attn::shape_error>(
                    HasSubstr("query has shape (" + std::to_string(inputs.shape(1) + 1) + ",)")));
}

TEST(DotScoresTest, RejectsEmptyInputs) {
    const auto query = case_input<1>("01_dot_scores/notebook_journey", "query");
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, query.size()});
    EXPECT_THAT([&] { attn::dot_scores(no_tokens, query); },
                ThrowsMessage<attn::shape_error>(HasSubstr("inputs is empty")));
}

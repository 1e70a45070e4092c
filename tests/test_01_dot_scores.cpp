// tests/test_01_dot_scores.cpp — Exercise 01: dot-product scores (ch03.ipynb In [3]).
// Compiled once; linked against exercises/01_dot_scores.cpp and solutions/01_dot_scores.cpp.
// The cases (notebook queries, other shapes) are in reference_data/01_dot_scores/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(dot_scores) {
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    const auto query = the_case.input<1>("query");    // (d_in,)
    ATTN_RESULT("scores", attn::dot_scores(inputs, query));
}

TEST(DotScoresTest, RejectsQueryOfWrongLength) {
    const auto inputs = case_input<2>("01_dot_scores/notebook_journey", "inputs");
    const auto query = case_input<1>("01_dot_scores/notebook_journey", "query");
    const attn::Vector too_long = xt::zeros<float>({inputs.shape(1) + 1});
    ATTN_EXPECT_REJECTS(attn::dot_scores(inputs, query), attn::dot_scores(inputs, too_long),
                        "a query of length d_in + 1 = " + std::to_string(too_long.size()),
                        attn::shape_error,
                        "query has shape (" + std::to_string(inputs.shape(1) + 1) + ",)",
                        stub_line("arguments::dot_scores("));
}

TEST(DotScoresTest, RejectsEmptyInputs) {
    const auto inputs = case_input<2>("01_dot_scores/notebook_journey", "inputs");
    const auto query = case_input<1>("01_dot_scores/notebook_journey", "query");
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, query.size()});
    ATTN_EXPECT_REJECTS(attn::dot_scores(inputs, query), attn::dot_scores(no_tokens, query),
                        "inputs with no tokens, shape " + attn::shape_string(no_tokens.shape()),
                        attn::shape_error, "inputs is empty", stub_line("arguments::dot_scores("));
}

// tests/test_04_context_vector.cpp — Exercise 04: one context vector
// (ch03.ipynb In [3], [7], [8]).
// Compiled once; linked against exercises/ and solutions/04_context_vector.cpp, and the
// reference solutions of the earlier exercises. The cases are in reference_data/04_context_vector/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <stdexcept>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(context_vector) {
    const auto inputs = the_case.input<2>("inputs");    // (T, d_in)
    const auto weights = the_case.input<1>("weights");  // (T,), summing to 1
    ATTN_RESULT("context", attn::context_vector(inputs, weights));
}

// Context_vector_for_query picks the query's weights and calls context_vector: where both fail, fix
// the callee first.
ATTN_CASE_CALLS(context_vector_for_query, "context_vector");

ATTN_CASE(context_vector_for_query) {
    const auto inputs = the_case.input<2>("inputs");
    const auto query_index = static_cast<std::size_t>(the_case.integer("query_index"));
    ATTN_RESULT("context", attn::context_vector_for_query(inputs, query_index));
}

TEST(ContextVectorTest, RejectsWeightsOfWrongLength) {
    const auto inputs = case_input<2>("04_context_vector/notebook_journey", "inputs");
    const auto weights = case_input<1>("04_context_vector/notebook_journey", "weights");
    const std::size_t T = inputs.shape(0);
    const attn::Vector one_too_many = xt::zeros<float>({T + 1});
    ATTN_EXPECT_REJECTS(
        attn::context_vector(inputs, weights), attn::context_vector(inputs, one_too_many),
        "weights of length T + 1 = " + std::to_string(T + 1), attn::shape_error,
        "must equal T = " + std::to_string(T), stub_line("arguments::context_vector("));
}

TEST(ContextVectorTest, RejectsQueryIndexPastTheLastToken) {
    const auto inputs = case_input<2>("04_context_vector/notebook_journey", "inputs");
    const std::size_t T = inputs.shape(0);
    ATTN_EXPECT_REJECTS(attn::context_vector_for_query(inputs, T - 1),
                        attn::context_vector_for_query(inputs, T),
                        "query_index = T = " + std::to_string(T) + ", one past the last token",
                        std::out_of_range, "query_index " + std::to_string(T) + " is out of range",
                        stub_line("arguments::context_vector_for_query("));
}

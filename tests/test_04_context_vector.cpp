// tests/test_04_context_vector.cpp — Exercise 04: one context vector
// (ch03.ipynb In [3], [7], [8]).
// Compiled once; linked against exercises/ and solutions/04_context_vector.cpp, and the
// reference solutions of the earlier exercises. The cases are in reference_data/04_context_vector/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

#include <stdexcept>

using attn::kit::case_input;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ATTN_CASE(context_vector) {
    const auto inputs = the_case.input<2>("inputs");    // (T, d_in)
    const auto weights = the_case.input<1>("weights");  // (T,), summing to 1
    ATTN_RESULT("context", attn::context_vector(inputs, weights));
}

ATTN_CASE(context_vector_for_query) {
    const auto inputs = the_case.input<2>("inputs");
    const auto query_index = static_cast<std::size_t>(the_case.integer("query_index"));
    ATTN_RESULT("context", attn::context_vector_for_query(inputs, query_index));
}

TEST(ContextVectorTest, RejectsWeightsOfWrongLength) {
    const auto inputs = case_input<2>("04_context_vector/notebook_journey", "inputs");
    const std::size_t T = inputs.shape(0);
    const attn::Vector one_too_many = xt::zeros<float>({T + 1});
    EXPECT_THAT([&] { attn::context_vector(inputs, one_too_many); },
                ThrowsMessage<attn::shape_error>(HasSubstr("must equal T = " + std::to_string(T))));
}

TEST(ContextVectorTest, RejectsQueryIndexPastTheLastToken) {
    const auto inputs = case_input<2>("04_context_vector/notebook_journey", "inputs");
    const std::size_t T = inputs.shape(0);
    EXPECT_THAT([&] { attn::context_vector_for_query(inputs, T); },
                ThrowsMessage<std::out_of_range>(
                    HasSubstr("query_index " + std::to_string(T) + " is out of range")));
}

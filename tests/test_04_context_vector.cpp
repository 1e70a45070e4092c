// tests/test_04_context_vector.cpp — Exercise 04: one context vector (001 §3.3.1, In [5], [6]).
// Compiled once; linked against exercises/ and solutions/04_context_vector.cpp, and the
// reference solutions of exercises 01 and 03.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/golden.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>

#include <stdexcept>

using attn::kit::golden;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(ContextVectorTest, MatchesNotebookForQueryJourney) {
    const auto inputs = golden<2>("04_context_vector/inputs");
    const auto weights = golden<1>("04_context_vector/attention_weights_2");
    EXPECT_RESULT_MATCHES(attn::context_vector(inputs, weights), "04_context_vector/context_vec_2");
}

TEST(ContextVectorTest, PipelineMatchesNotebookForQueryJourney) {
    const auto inputs = golden<2>("04_context_vector/inputs");
    EXPECT_RESULT_MATCHES(attn::context_vector_for_query(inputs, 1),
                          "04_context_vector/context_vec_2");
}

TEST(ContextVectorTest, PipelineMatchesNotebookForQueryYour) {
    const auto inputs = golden<2>("04_context_vector/inputs");
    EXPECT_RESULT_MATCHES(attn::context_vector_for_query(inputs, 0),
                          "04_context_vector/context_vec_1");
}

TEST(ContextVectorTest, RejectsWeightsOfWrongLength) {
    const auto inputs = golden<2>("04_context_vector/inputs");
    const attn::Vector three_weights = {0.2f, 0.3f, 0.5f};
    EXPECT_THAT([&] { attn::context_vector(inputs, three_weights); },
                ThrowsMessage<attn::shape_error>(HasSubstr("must equal T = 6")));
}

TEST(ContextVectorTest, RejectsQueryIndexPastTheLastToken) {
    const auto inputs = golden<2>("04_context_vector/inputs");
    EXPECT_THAT([&] { attn::context_vector_for_query(inputs, 6); },
                ThrowsMessage<std::out_of_range>(HasSubstr("query_index 6 is out of range")));
}

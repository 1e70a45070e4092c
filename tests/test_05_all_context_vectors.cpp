// tests/test_05_all_context_vectors.cpp — Exercise 05: all context vectors (001 §3.3.2,
// In [7] to In [10]). Compiled once; linked against exercises/ and
// solutions/05_all_context_vectors.cpp, and the reference solution of exercise 03.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/golden.hpp"
#include "kit/student_code.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>
#include <xtensor/xview.hpp>

using attn::kit::golden;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(AttentionScoresTest, LoopsMatchNotebook) {
    const auto inputs = golden<2>("05_all_context_vectors/inputs");
    EXPECT_RESULT_MATCHES(attn::attention_scores_loops(inputs),
                          "05_all_context_vectors/attn_scores");
}

TEST(AttentionScoresTest, MatmulMatchesNotebook) {
    const auto inputs = golden<2>("05_all_context_vectors/inputs");
    EXPECT_RESULT_MATCHES(attn::attention_scores_matmul(inputs),
                          "05_all_context_vectors/attn_scores");
}

TEST(AllContextVectorsTest, MatchesNotebook) {
    const auto inputs = golden<2>("05_all_context_vectors/inputs");
    EXPECT_RESULT_MATCHES(attn::all_context_vectors(inputs), "05_all_context_vectors/context_vecs");
}

TEST(AllContextVectorsTest, RowOfJourneyIsExercise04sContextVector) {
    const auto inputs = golden<2>("05_all_context_vectors/inputs");
    attn::Matrix context;
    RUN_STUDENT_CODE(context = attn::all_context_vectors(inputs));
    ASSERT_EQ(context.shape(0), inputs.shape(0)) << "one context vector per token";
    EXPECT_TENSOR_MATCHES(xt::row(context, 1), "04_context_vector/context_vec_2");
}

TEST(AllContextVectorsTest, RejectsEmptyInputs) {
    const attn::Matrix no_tokens = xt::zeros<float>({0, 3});
    for (const auto& function :
         {attn::attention_scores_loops, attn::attention_scores_matmul, attn::all_context_vectors}) {
        EXPECT_THAT([&] { function(no_tokens); },
                    ThrowsMessage<attn::shape_error>(HasSubstr("inputs is empty")));
    }
}

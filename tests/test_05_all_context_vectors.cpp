// tests/test_05_all_context_vectors.cpp — Exercise 05: all context vectors (ch03.ipynb
// In [9] to In [13]). Compiled once; linked against exercises/ and
// solutions/05_all_context_vectors.cpp, and the reference solutions of the earlier
// exercises. The cases are in reference_data/05_all_context_vectors/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

using attn::kit::case_input;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ATTN_CASE(attention_scores_loops) {
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    ATTN_RESULT("scores", attn::attention_scores_loops(inputs));
}

ATTN_CASE(attention_scores_matmul) {
    const auto inputs = the_case.input<2>("inputs");
    ATTN_RESULT("scores", attn::attention_scores_matmul(inputs));
}

ATTN_CASE(all_context_vectors) {
    const auto inputs = the_case.input<2>("inputs");
    ATTN_RESULT("context", attn::all_context_vectors(inputs));
}

TEST(AllContextVectorsTest, RejectsEmptyInputs) {
    const auto inputs = case_input<2>("05_all_context_vectors/notebook", "inputs");
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, inputs.shape(1)});
    for (const auto& function :
         {attn::attention_scores_loops, attn::attention_scores_matmul, attn::all_context_vectors}) {
        EXPECT_THAT([&] { function(no_tokens); },
                    ThrowsMessage<attn::shape_error>(HasSubstr("inputs is empty")));
    }
}

// tests/test_05_all_context_vectors.cpp — Exercise 05: all context vectors (ch03.ipynb
// In [9] to In [13]). Compiled once; linked against exercises/ and
// solutions/05_all_context_vectors.cpp, and the reference solutions of the earlier
// exercises. The cases are in reference_data/05_all_context_vectors/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "kit/testing.hpp"

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(attention_scores_loops) {
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    ATTN_RESULT("scores", attn::attention_scores_loops(inputs));
}

ATTN_CASE(attention_scores_matmul) {
    const auto inputs = the_case.input<2>("inputs");
    ATTN_RESULT("scores", attn::attention_scores_matmul(inputs));
}

// All_context_vectors starts from attention_scores_matmul's scores: where both fail, fix the callee
// first.
ATTN_CASE_CALLS(all_context_vectors, "attention_scores_matmul");

ATTN_CASE(all_context_vectors) {
    const auto inputs = the_case.input<2>("inputs");
    ATTN_RESULT("context", attn::all_context_vectors(inputs));
}

TEST(AllContextVectorsTest, RejectsEmptyInputs) {
    const auto inputs = case_input<2>("05_all_context_vectors/notebook", "inputs");
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, inputs.shape(1)});
    const std::string no_rows =
        "inputs with no tokens, shape " + attn::shape_string(no_tokens.shape());
    ATTN_EXPECT_REJECTS(attn::attention_scores_loops(inputs),
                        attn::attention_scores_loops(no_tokens), no_rows, attn::shape_error,
                        "inputs is empty", stub_line("arguments::attention_scores_loops("));
    ATTN_EXPECT_REJECTS(attn::attention_scores_matmul(inputs),
                        attn::attention_scores_matmul(no_tokens), no_rows, attn::shape_error,
                        "inputs is empty", stub_line("arguments::attention_scores_matmul("));
    ATTN_EXPECT_REJECTS(attn::all_context_vectors(inputs), attn::all_context_vectors(no_tokens),
                        no_rows, attn::shape_error, "inputs is empty",
                        stub_line("arguments::all_context_vectors("));
}

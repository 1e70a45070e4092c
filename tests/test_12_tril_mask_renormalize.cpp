// tests/test_12_tril_mask_renormalize.cpp — Exercise 12: the tril mask, then renormalise
// (ch03.ipynb In [26] to In [28]). Compiled once; linked against exercises/ and
// solutions/12_tril_mask_renormalize.cpp, and the reference solutions of the earlier
// exercises. The cases are in reference_data/12_tril_mask_renormalize/.
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "kit/testing.hpp"

#include <cstddef>
#include <string>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(tril_mask) {
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("mask", attn::tril_mask(context_length));
}

ATTN_CASE_CALLS(apply_tril_mask, "tril_mask");
ATTN_CASE(apply_tril_mask) {
    const auto weights = the_case.input<2>("weights");  // (T, T)
    ATTN_RESULT("masked", attn::apply_tril_mask(weights));
}

// Mask_and_renormalize masks with apply_tril_mask, which multiplies by tril_mask: where both fail,
// fix the callee first.
ATTN_CASE_CALLS(mask_and_renormalize, "tril_mask", "apply_tril_mask");

ATTN_CASE(mask_and_renormalize) {
    const auto weights = the_case.input<2>("weights");  // (T, T)
    ATTN_RESULT("normalized", attn::mask_and_renormalize(weights));
}

TEST(TrilMaskTest, RejectsZeroContextLength) {
    const std::size_t some_length =
        attn::kit::case_input<2>("12_tril_mask_renormalize/notebook", "weights")
            .shape(0);  // any length > 0 is valid
    ATTN_EXPECT_REJECTS(attn::tril_mask(some_length), attn::tril_mask(0), "context_length = 0",
                        attn::shape_error, "context_length is 0",
                        stub_line("arguments::tril_mask("));
}

TEST(MaskAndRenormalizeTest, RejectsWeightsThatAreNotSquare) {
    const auto weights = case_input<2>("12_tril_mask_renormalize/notebook", "weights");
    const attn::Matrix one_row_short = xt::view(weights, xt::range(1, weights.shape(0)), xt::all());
    const std::string not_square =
        "weights of shape " + attn::shape_string(one_row_short.shape()) + ", one row short";
    ATTN_EXPECT_REJECTS(attn::apply_tril_mask(weights), attn::apply_tril_mask(one_row_short),
                        not_square, attn::shape_error, "weights has shape (5, 6)",
                        stub_line("arguments::apply_tril_mask("));
    ATTN_EXPECT_REJECTS(attn::mask_and_renormalize(weights),
                        attn::mask_and_renormalize(one_row_short), not_square, attn::shape_error,
                        "weights has shape (5, 6)", stub_line("arguments::mask_and_renormalize("));
}

TEST(MaskAndRenormalizeTest, RejectsEmptyWeights) {
    const auto weights = case_input<2>("12_tril_mask_renormalize/notebook", "weights");
    const attn::Matrix empty = xt::zeros<float>({std::size_t{0}, std::size_t{0}});
    ATTN_EXPECT_REJECTS(attn::apply_tril_mask(weights), attn::apply_tril_mask(empty),
                        "empty weights, shape (0, 0)", attn::shape_error, "weights is empty",
                        stub_line("arguments::apply_tril_mask("));
    ATTN_EXPECT_REJECTS(attn::mask_and_renormalize(weights), attn::mask_and_renormalize(empty),
                        "empty weights, shape (0, 0)", attn::shape_error, "weights is empty",
                        stub_line("arguments::mask_and_renormalize("));
}

// tests/test_12_tril_mask_renormalize.cpp — Exercise 12: the tril mask, then renormalise
// (ch03.ipynb In [26] to In [28]). Compiled once; linked against exercises/ and
// solutions/12_tril_mask_renormalize.cpp, and the reference solutions of the earlier
// exercises. The cases are in reference_data/12_tril_mask_renormalize/.
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

#include <cstddef>

using attn::kit::case_input;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ATTN_CASE(tril_mask) {
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("mask", attn::tril_mask(context_length));
}

ATTN_CASE(apply_tril_mask) {
    const auto weights = the_case.input<2>("weights");  // (T, T)
    ATTN_RESULT("masked", attn::apply_tril_mask(weights));
}

ATTN_CASE(mask_and_renormalize) {
    const auto weights = the_case.input<2>("weights");  // (T, T)
    ATTN_RESULT("normalized", attn::mask_and_renormalize(weights));
}

TEST(TrilMaskTest, RejectsZeroContextLength) {
    EXPECT_THAT([] { attn::tril_mask(0); },
                ThrowsMessage<attn::shape_error>(HasSubstr("context_length is 0")));
}

TEST(MaskAndRenormalizeTest, RejectsWeightsThatAreNotSquare) {
    const auto weights = case_input<2>("12_tril_mask_renormalize/notebook", "weights");
    const attn::Matrix one_row_short = xt::view(weights, xt::range(1, weights.shape(0)), xt::all());
    for (const auto& function : {attn::apply_tril_mask, attn::mask_and_renormalize}) {
        EXPECT_THAT([&] { function(one_row_short); },
                    ThrowsMessage<attn::shape_error>(HasSubstr("weights has shape (5, 6)")));
    }
}

TEST(MaskAndRenormalizeTest, RejectsEmptyWeights) {
    const attn::Matrix empty = xt::zeros<float>({std::size_t{0}, std::size_t{0}});
    for (const auto& function : {attn::apply_tril_mask, attn::mask_and_renormalize}) {
        EXPECT_THAT([&] { function(empty); },
                    ThrowsMessage<attn::shape_error>(HasSubstr("weights is empty")));
    }
}

// tests/test_09_self_attention_v1.cpp — Exercise 09: SelfAttention_v1 (ch03.ipynb In [23]).
// Compiled once; linked against exercises/ and solutions/09_self_attention_v1.cpp, and the
// reference solutions of the earlier exercises. The cases are in
// reference_data/09_self_attention_v1/: each holds the module's parameters under their
// state_dict() names (W_query.npy, W_key.npy, W_value.npy) and the inputs.
#include "attn/errors.hpp"
#include "attn/self_attention.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

using attn::kit::case_input;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ATTN_CASE(self_attention_v1) {
    const auto inputs = the_case.input<2>("inputs");                   // (T, d_in)
    const attn::SelfAttention_v1 sa_v1{the_case.input<2>("W_query"),   // (d_in, d_out)
                                       the_case.input<2>("W_key"),     // (d_in, d_out)
                                       the_case.input<2>("W_value")};  // (d_in, d_out)
    ATTN_RESULT("context", sa_v1(inputs));
}

namespace {

const std::string notebook = "09_self_attention_v1/notebook_seed123";

attn::SelfAttention_v1 notebook_module() {
    return {case_input<2>(notebook, "W_query"), case_input<2>(notebook, "W_key"),
            case_input<2>(notebook, "W_value")};
}

}  // namespace

TEST(SelfAttentionV1Test, ConstructorRejectsProjectionsOfDifferentShapes) {
    const auto W = case_input<2>(notebook, "W_query");  // (d_in, d_out)
    const attn::Matrix wider = xt::zeros<float>({W.shape(0), W.shape(1) + 1});
    EXPECT_THAT([&] { attn::SelfAttention_v1(W, wider, W); },
                ThrowsMessage<attn::shape_error>(
                    AllOf(HasSubstr("W_key has shape " + attn::shape_string(wider.shape())),
                          HasSubstr("W_query has " + attn::shape_string(W.shape())))));
    EXPECT_THAT([&] { attn::SelfAttention_v1(W, W, wider); },
                ThrowsMessage<attn::shape_error>(
                    HasSubstr("W_value has shape " + attn::shape_string(wider.shape()))));
}

TEST(SelfAttentionV1Test, ConstructorRejectsEmptyProjections) {
    const auto W = case_input<2>(notebook, "W_query");
    const attn::Matrix empty = xt::zeros<float>({W.shape(0), std::size_t{0}});
    EXPECT_THAT([&] { attn::SelfAttention_v1(empty, empty, empty); },
                ThrowsMessage<attn::shape_error>(HasSubstr("W_query is empty")));
}

TEST(SelfAttentionV1Test, ForwardRejectsInputsOfAnotherWidth) {
    const auto sa_v1 = notebook_module();
    const auto inputs = case_input<2>(notebook, "inputs");  // (T, d_in)
    const attn::Matrix wider = xt::zeros<float>({inputs.shape(0), sa_v1.d_in() + 1});
    EXPECT_THAT([&] { sa_v1(wider); },
                ThrowsMessage<attn::shape_error>(
                    AllOf(HasSubstr("x has shape " + attn::shape_string(wider.shape())),
                          HasSubstr("must equal d_in = " + std::to_string(sa_v1.d_in())))));
}

TEST(SelfAttentionV1Test, ForwardRejectsNoTokens) {
    const auto sa_v1 = notebook_module();
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, sa_v1.d_in()});
    EXPECT_THAT([&] { sa_v1(no_tokens); },
                ThrowsMessage<attn::shape_error>(HasSubstr("x is empty")));
}

TEST(SelfAttentionV1Test, ForwardRejectsParametersChangedToDisagree) {
    // The parameters are public, like a PyTorch module's: forward re-checks them.
    auto sa_v1 = notebook_module();
    sa_v1.W_value = xt::zeros<float>({sa_v1.d_in(), sa_v1.d_out() + 1});
    EXPECT_THAT([&] { sa_v1(case_input<2>(notebook, "inputs")); },
                ThrowsMessage<attn::shape_error>(
                    HasSubstr("W_value has shape " + attn::shape_string(sa_v1.W_value.shape()))));
}

// tests/test_09_self_attention_v1.cpp — Exercise 09: SelfAttention_v1 (ch03.ipynb In [23]).
// Compiled once; linked against exercises/ and solutions/09_self_attention_v1.cpp, and the
// reference solutions of the earlier exercises. The cases are in
// reference_data/09_self_attention_v1/: each holds the module's parameters under their
// state_dict() names (W_query.npy, W_key.npy, W_value.npy) and the inputs.
#include "attn/errors.hpp"
#include "attn/self_attention.hpp"
#include "kit/testing.hpp"

using attn::kit::all_of;
using attn::kit::case_input;
using attn::kit::kit_line;
using attn::kit::stub_line;

ATTN_CASE(self_attention_v1) {
    const auto inputs = the_case.input<2>("inputs");                         // (T, d_in)
    const auto sa_v1 = attn::SelfAttention_v1::load(the_case.state_dict());  // W: (d_in, d_out)
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
    // The module's forward must work before its constructor's checks count.
    const auto sa_v1 = notebook_module();
    const auto inputs = case_input<2>(notebook, "inputs");
    const auto W = case_input<2>(notebook, "W_query");  // (d_in, d_out)
    const attn::Matrix wider = xt::zeros<float>({W.shape(0), W.shape(1) + 1});
    ATTN_EXPECT_REJECTS(
        sa_v1(inputs), attn::SelfAttention_v1(W, wider, W),
        "W_key of shape " + attn::shape_string(wider.shape()) + ", W_query of " +
            attn::shape_string(W.shape()),
        attn::shape_error,
        all_of("W_key has shape " + attn::shape_string(wider.shape()),
               "W_query has " + attn::shape_string(W.shape())),
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_same_shape("SelfAttention_v1", "W_key", W_key, W_query);)line"));
    ATTN_EXPECT_REJECTS(
        sa_v1(inputs), attn::SelfAttention_v1(W, W, wider),
        "W_value of shape " + attn::shape_string(wider.shape()) + ", W_query of " +
            attn::shape_string(W.shape()),
        attn::shape_error, "W_value has shape " + attn::shape_string(wider.shape()),
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_same_shape("SelfAttention_v1", "W_value", W_value, W_query);)line"));
}

TEST(SelfAttentionV1Test, ConstructorRejectsEmptyProjections) {
    // The module's forward must work before its constructor's checks count.
    const auto sa_v1 = notebook_module();
    const auto inputs = case_input<2>(notebook, "inputs");
    const auto W = case_input<2>(notebook, "W_query");
    const attn::Matrix empty = xt::zeros<float>({W.shape(0), std::size_t{0}});
    ATTN_EXPECT_REJECTS(
        sa_v1(inputs), attn::SelfAttention_v1(empty, empty, empty),
        "projections of shape " + attn::shape_string(empty.shape()), attn::shape_error,
        "W_query is empty",
        kit_line("include/attn/arguments.hpp",
                 R"line(checks::require_non_empty("SelfAttention_v1", "W_query", W_query);)line"));
}

TEST(SelfAttentionV1Test, ForwardRejectsInputsOfAnotherWidth) {
    const auto sa_v1 = notebook_module();
    const auto inputs = case_input<2>(notebook, "inputs");  // (T, d_in)
    const attn::Matrix wider = xt::zeros<float>({inputs.shape(0), sa_v1.d_in() + 1});
    ATTN_EXPECT_REJECTS(sa_v1(inputs), sa_v1(wider),
                        "x of d_in + 1 = " + std::to_string(wider.shape(1)) + " columns",
                        attn::shape_error,
                        all_of("x has shape " + attn::shape_string(wider.shape()),
                               "must equal d_in = " + std::to_string(sa_v1.d_in())),
                        stub_line("arguments::self_attention_v1_forward("));
}

TEST(SelfAttentionV1Test, ForwardRejectsNoTokens) {
    const auto sa_v1 = notebook_module();
    const auto inputs = case_input<2>(notebook, "inputs");
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, sa_v1.d_in()});
    ATTN_EXPECT_REJECTS(sa_v1(inputs), sa_v1(no_tokens),
                        "x with no tokens, shape " + attn::shape_string(no_tokens.shape()),
                        attn::shape_error, "x is empty",
                        stub_line("arguments::self_attention_v1_forward("));
}

TEST(SelfAttentionV1Test, ForwardRejectsParametersChangedToDisagree) {
    // The parameters are public, like a PyTorch module's: forward re-checks them.
    const auto inputs = case_input<2>(notebook, "inputs");
    const auto unchanged = notebook_module();
    auto sa_v1 = notebook_module();
    sa_v1.W_value = xt::zeros<float>({sa_v1.d_in(), sa_v1.d_out() + 1});
    ATTN_EXPECT_REJECTS(unchanged(inputs), sa_v1(inputs),
                        "W_value changed to shape " + attn::shape_string(sa_v1.W_value.shape()) +
                            ", W_query still " + attn::shape_string(sa_v1.W_query.shape()),
                        attn::shape_error,
                        "W_value has shape " + attn::shape_string(sa_v1.W_value.shape()),
                        stub_line("arguments::self_attention_v1_forward("));
}

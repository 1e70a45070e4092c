// tests/test_10_self_attention_v2.cpp — Exercise 10: SelfAttention_v2 (ch03.ipynb In [24]).
// Compiled once; linked against exercises/ and solutions/10_self_attention_v2.cpp, and the
// reference solutions of the earlier exercises. The cases are in
// reference_data/10_self_attention_v2/: each holds the module's parameters under their
// state_dict() names (W_query.weight.npy, ..., and W_query.bias.npy, ... with qkv_bias).
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"
#include "kit/testing.hpp"

using attn::kit::all_of;
using attn::kit::case_input;
using attn::kit::kit_line;
using attn::kit::stub_line;

// qkv_bias=False: W_query.weight, ... (d_out, d_in); qkv_bias=True adds W_query.bias, ...
ATTN_CASE(self_attention_v2) {
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    const auto sa_v2 = attn::SelfAttention_v2::load(the_case.state_dict());
    ATTN_RESULT("context", sa_v2(inputs));
}

ATTN_CASE(self_attention_v2_bias) {
    const auto inputs = the_case.input<2>("inputs");
    const auto sa_v2 = attn::SelfAttention_v2::load(the_case.state_dict());
    ATTN_RESULT("context", sa_v2(inputs));
}

namespace {

const std::string notebook = "10_self_attention_v2/notebook_seed789";
const std::string biased = "10_self_attention_v2/bias_notebook_seed123";

attn::Linear layer(const std::string& name) {
    return {case_input<2>(notebook, name + ".weight"), {}};
}

}  // namespace

TEST(SelfAttentionV2Test, ConstructorRejectsWeightsOfDifferentShapes) {
    // The module's forward must work before its constructor's checks count.
    const attn::SelfAttention_v2 sa_v2{layer("W_query"), layer("W_key"), layer("W_value")};
    const auto inputs = case_input<2>(notebook, "inputs");
    const auto query = layer("W_query");  // weight (d_out, d_in)
    const attn::Linear wider{xt::zeros<float>({query.weight.shape(0), query.weight.shape(1) + 1}),
                             {}};
    ATTN_EXPECT_REJECTS(
        sa_v2(inputs), attn::SelfAttention_v2(query, wider, layer("W_value")),
        "W_key.weight of shape " + attn::shape_string(wider.weight.shape()) + ", W_query's " +
            attn::shape_string(query.weight.shape()),
        attn::shape_error,
        all_of("W_key.weight has shape " + attn::shape_string(wider.weight.shape()),
               "W_query.weight has " + attn::shape_string(query.weight.shape())),
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_layer_like("SelfAttention_v2", "W_key", W_key, "W_query", W_query, true);)line"));
}

TEST(SelfAttentionV2Test, ConstructorRejectsABiasOnSomeLayersOnly) {
    // The module's forward must work before its constructor's checks count.
    const attn::SelfAttention_v2 sa_v2{layer("W_query"), layer("W_key"), layer("W_value")};
    const auto inputs = case_input<2>(notebook, "inputs");
    const attn::Linear with_bias{case_input<2>(biased, "W_key.weight"),
                                 case_input<1>(biased, "W_key.bias")};
    ATTN_EXPECT_REJECTS(
        sa_v2(inputs), attn::SelfAttention_v2(layer("W_query"), with_bias, layer("W_value")),
        "a bias on W_key only", attn::shape_error, "W_key has a bias, but W_query has none",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_layer_like("SelfAttention_v2", "W_key", W_key, "W_query", W_query, true);)line"));
}

TEST(SelfAttentionV2Test, ConstructorRejectsABiasOfTheWrongLength) {
    // The module's forward must work before its constructor's checks count.
    const attn::SelfAttention_v2 sa_v2{layer("W_query"), layer("W_key"), layer("W_value")};
    const auto inputs = case_input<2>(notebook, "inputs");
    auto query = layer("W_query"), key = layer("W_key"), value = layer("W_value");
    const std::size_t d_out = query.weight.shape(0);
    query.bias = xt::zeros<float>({d_out});
    key.bias = xt::zeros<float>({d_out + 1});
    value.bias = xt::zeros<float>({d_out});
    ATTN_EXPECT_REJECTS(
        sa_v2(inputs), attn::SelfAttention_v2(query, key, value),
        "W_key.bias of length d_out + 1 = " + std::to_string(d_out + 1), attn::shape_error,
        all_of("W_key.bias has shape " + attn::shape_string(key.bias.shape()),
               "d_out = " + std::to_string(d_out)),
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_layer_like("SelfAttention_v2", "W_key", W_key, "W_query", W_query, true);)line"));
}

TEST(SelfAttentionV2Test, ForwardRejectsInputsOfAnotherWidth) {
    const attn::SelfAttention_v2 sa_v2{layer("W_query"), layer("W_key"), layer("W_value")};
    const auto inputs = case_input<2>(notebook, "inputs");  // (T, d_in)
    const attn::Matrix narrower = xt::zeros<float>({inputs.shape(0), sa_v2.d_in() - 1});
    ATTN_EXPECT_REJECTS(sa_v2(inputs), sa_v2(narrower),
                        "x of d_in - 1 = " + std::to_string(narrower.shape(1)) + " columns",
                        attn::shape_error,
                        all_of("x has shape " + attn::shape_string(narrower.shape()),
                               "must equal d_in = " + std::to_string(sa_v2.d_in())),
                        stub_line("arguments::self_attention_v2_forward("));
}

TEST(SelfAttentionV2Test, ForwardRejectsNoTokens) {
    const attn::SelfAttention_v2 sa_v2{layer("W_query"), layer("W_key"), layer("W_value")};
    const auto inputs = case_input<2>(notebook, "inputs");
    const attn::Matrix no_tokens = xt::zeros<float>({std::size_t{0}, sa_v2.d_in()});
    ATTN_EXPECT_REJECTS(sa_v2(inputs), sa_v2(no_tokens),
                        "x with no tokens, shape " + attn::shape_string(no_tokens.shape()),
                        attn::shape_error, "x is empty",
                        stub_line("arguments::self_attention_v2_forward("));
}

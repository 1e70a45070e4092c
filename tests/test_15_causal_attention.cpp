// tests/test_15_causal_attention.cpp — Exercise 15: CausalAttention on a batch (ch03.ipynb
// In [34]; two heads side by side as In [35]). Compiled once; linked against exercises/ and
// solutions/15_causal_attention.cpp, and the reference solutions of the earlier exercises.
// The cases are in reference_data/15_causal_attention/; a module's weights are named as in
// PyTorch's state_dict() ("W_query.weight", "heads.1.W_key.weight", ...).
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cstddef>
#include <string>

using attn::kit::case_input;

namespace {

// The module of the case's weights under `prefix` ("" or "heads.0."), built by the student's
// make_causal_attention; the weights are loaded first, so a throw names their shapes.
struct head_weights {
    attn::Matrix query, key, value;
};

head_weights weights_of(attn::kit::case_context& the_case, const std::string& prefix) {
    return {the_case.input<2>(prefix + "W_query.weight"),
            the_case.input<2>(prefix + "W_key.weight"),
            the_case.input<2>(prefix + "W_value.weight")};
}

attn::CausalAttention module_of(const head_weights& w, std::size_t context_length) {
    return attn::make_causal_attention({w.query, {}}, {w.key, {}}, {w.value, {}}, context_length);
}

// Two heads' contexts side by side, (B, T, 2 d_out) as torch.cat(dim=-1): head 0 runs first,
// then head 1, as the wrapper of In [35] runs them (a function's arguments may be evaluated
// in any order, and a forward that keeps weights from an earlier call shows it).
attn::Tensor3 heads_side_by_side(const attn::CausalAttention& head_0,
                                 const attn::CausalAttention& head_1, const attn::Tensor3& x) {
    const attn::Tensor3 first = attn::causal_attention_forward(head_0, x);
    const attn::Tensor3 second = attn::causal_attention_forward(head_1, x);
    return xt::concatenate(xt::xtuple(first, second), first.dimension() - 1);  // the last axis
}

}  // namespace

ATTN_CASE(causal_attention) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const head_weights w = weights_of(the_case, "");
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("context", attn::causal_attention_forward(module_of(w, context_length), x));
}

// qkv_bias=True: every layer adds its bias (d_out,), W_query.bias, ... in the case folder.
ATTN_CASE(causal_attention_bias) {
    const auto x = the_case.input<3>("x");
    const attn::Linear query{the_case.input<2>("W_query.weight"),
                             the_case.input<1>("W_query.bias")};
    const attn::Linear key{the_case.input<2>("W_key.weight"), the_case.input<1>("W_key.bias")};
    const attn::Linear value{the_case.input<2>("W_value.weight"),
                             the_case.input<1>("W_value.bias")};
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("context", attn::causal_attention_forward(
                               attn::make_causal_attention(query, key, value, context_length), x));
}

// Two heads with different weights must attend differently (In [35], and the stale-weights
// bug of the book's first CausalAttention).
ATTN_CASE(two_heads) {
    const auto x = the_case.input<3>("x");
    const head_weights w0 = weights_of(the_case, "heads.0."), w1 = weights_of(the_case, "heads.1.");
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    ATTN_RESULT("context", heads_side_by_side(module_of(w0, context_length),
                                              module_of(w1, context_length), x));
}

namespace {

// The notebook case's module, built here (not by the code under test) with its mask for
// `context_length` tokens.
attn::CausalAttention notebook_module(std::size_t context_length) {
    const std::string at = "15_causal_attention/notebook";
    return {{case_input<2>(at, "W_query.weight"), {}},
            {case_input<2>(at, "W_key.weight"), {}},
            {case_input<2>(at, "W_value.weight"), {}},
            xt::triu(xt::ones<float>({context_length, context_length}), 1)};
}

}  // namespace

TEST(CausalAttentionTest, RejectsMoreTokensThanContextLength) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");  // T = 6
    const std::size_t T = x.shape(1);
    ATTN_EXPECT_REJECTS(
        attn::causal_attention_forward(notebook_module(T), x),
        attn::causal_attention_forward(notebook_module(T - 1), x),
        "x of T = " + std::to_string(T) +
            " tokens, a module whose mask is for context_length = " + std::to_string(T - 1),
        attn::shape_error, "x has T = 6 tokens, more than the context_length = 5",
        R"line(if (x.shape(1) > module.context_length()) { throw shape_error(...); })line");
}

TEST(CausalAttentionTest, RejectsInputOfAnotherDIn) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const std::size_t T = x.shape(1), d_in = x.shape(x.dimension() - 1);
    const attn::Tensor3 wider = xt::zeros<float>({x.shape(0), T, d_in + 1});
    ATTN_EXPECT_REJECTS(
        attn::causal_attention_forward(notebook_module(T), x),
        attn::causal_attention_forward(notebook_module(T), wider),
        "x of d_in + 1 = " + std::to_string(d_in + 1) + " features", attn::shape_error,
        "must equal d_in of the weights = 3",
        R"line(checks::require_length("causal_attention_forward", "x", x, 2, module.W_query.weight.shape(1), "d_in of the weights");)line");
}

TEST(CausalAttentionTest, RejectsEmptyBatch) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const std::size_t T = x.shape(1), d_in = x.shape(x.dimension() - 1);
    const attn::Tensor3 empty = xt::zeros<float>({std::size_t{0}, T, d_in});
    ATTN_EXPECT_REJECTS(
        attn::causal_attention_forward(notebook_module(T), x),
        attn::causal_attention_forward(notebook_module(T), empty),
        "an empty batch, shape " + attn::shape_string(empty.shape()), attn::shape_error,
        "x is empty", R"line(checks::require_non_empty("causal_attention_forward", "x", x);)line");
}

TEST(CausalAttentionTest, RejectsWeightsOfDifferentShapes) {
    const attn::CausalAttention m = notebook_module(1);
    const attn::Matrix transposed = xt::transpose(m.W_key.weight);
    ATTN_EXPECT_REJECTS(
        attn::make_causal_attention(m.W_query, m.W_key, m.W_value, 1),
        attn::make_causal_attention(m.W_query, {transposed, {}}, m.W_value, 1),
        "W_key.weight transposed, shape " + attn::shape_string(transposed.shape()),
        attn::shape_error, "W_key.weight has shape (3, 2)",
        R"line(checks::require_layer_like(function, "W_key", W_key, "W_query", W_query);)line");
}

TEST(CausalAttentionTest, RejectsBiasOfAnotherLength) {
    const attn::CausalAttention m = notebook_module(1);
    // A bias of length d_in = 3 where d_out = 2 belongs.
    const attn::Linear with_bias{m.W_value.weight, xt::ones<float>({m.W_value.weight.shape(1)})};
    ATTN_EXPECT_REJECTS(
        attn::make_causal_attention(m.W_query, m.W_key, m.W_value, 1),
        attn::make_causal_attention(m.W_query, m.W_key, with_bias, 1),
        "a W_value.bias of length d_in = " + std::to_string(with_bias.bias.size()) +
            " where d_out = " + std::to_string(m.W_value.weight.shape(0)) + " belongs",
        attn::shape_error, "W_value.bias has shape (3,)",
        R"line(checks::require_layer_like(function, "W_value", W_value, "W_query", W_query);)line");
}

TEST(CausalAttentionTest, RejectsZeroContextLength) {
    const attn::CausalAttention m = notebook_module(1);
    ATTN_EXPECT_REJECTS(
        attn::make_causal_attention(m.W_query, m.W_key, m.W_value, 1),
        attn::make_causal_attention(m.W_query, m.W_key, m.W_value, 0), "context_length = 0",
        attn::shape_error, "context_length is 0",
        R"line(checks::require_positive("make_causal_attention", "context_length", context_length);)line");
}

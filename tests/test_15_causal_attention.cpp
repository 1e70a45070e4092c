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
using attn::kit::kit_line;
using attn::kit::stub_line;

namespace {

// The module of the case's parameters under `prefix` ("" or "heads.0."): its state_dict, as
// PyTorch names it, loaded into CausalAttention's constructor.
attn::CausalAttention module_of(attn::kit::case_context& the_case, const std::string& prefix) {
    const attn::StateDict state = the_case.state_dict(prefix);
    const auto context_length = static_cast<std::size_t>(the_case.integer("context_length"));
    return attn::CausalAttention::load(state, context_length);
}

// Two heads' contexts side by side, (B, T, 2 d_out) as torch.cat(dim=-1): head 0 runs first,
// then head 1, as the wrapper of In [35] runs them (a function's arguments may be evaluated
// in any order, and a forward that keeps weights from an earlier call shows it).
attn::Tensor3 heads_side_by_side(const attn::CausalAttention& head_0,
                                 const attn::CausalAttention& head_1, const attn::Tensor3& x) {
    const attn::Tensor3 first = head_0.forward(x);
    const attn::Tensor3 second = head_1.forward(x);
    return xt::concatenate(xt::xtuple(first, second), first.dimension() - 1);  // the last axis
}

}  // namespace

ATTN_CASE(causal_attention) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const attn::CausalAttention ca = module_of(the_case, "");
    ATTN_RESULT("context", ca.forward(x));
}

// qkv_bias=True: every layer adds its bias (d_out,), W_query.bias, ... in the case folder.
ATTN_CASE(causal_attention_bias) {
    const auto x = the_case.input<3>("x");
    const attn::CausalAttention ca = module_of(the_case, "");
    ATTN_RESULT("context", ca.forward(x));
}

// Two heads with different weights must attend differently (In [35], and the stale-weights
// bug of the book's first CausalAttention).
ATTN_CASE(two_heads) {
    const auto x = the_case.input<3>("x");
    const attn::CausalAttention head_0 = module_of(the_case, "heads.0.");
    const attn::CausalAttention head_1 = module_of(the_case, "heads.1.");
    ATTN_RESULT("context", heads_side_by_side(head_0, head_1, x));
}

namespace {

// The notebook case's module, with its mask for `context_length` tokens.
attn::CausalAttention notebook_module(std::size_t context_length) {
    const std::string at = "15_causal_attention/notebook";
    return {{case_input<2>(at, "W_query.weight"), {}},
            {case_input<2>(at, "W_key.weight"), {}},
            {case_input<2>(at, "W_value.weight"), {}},
            context_length};
}

}  // namespace

TEST(CausalAttentionTest, RejectsMoreTokensThanContextLength) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");  // T = 6
    const std::size_t T = x.shape(1);
    ATTN_EXPECT_REJECTS(
        notebook_module(T).forward(x), notebook_module(T - 1).forward(x),
        "x of T = " + std::to_string(T) +
            " tokens, a module whose mask is for context_length = " + std::to_string(T - 1),
        attn::shape_error, "x has T = 6 tokens, more than the context_length = 5",
        stub_line("arguments::causal_attention_forward("));
}

TEST(CausalAttentionTest, RejectsInputOfAnotherDIn) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const std::size_t T = x.shape(1), d_in = x.shape(x.dimension() - 1);
    const attn::Tensor3 wider = xt::zeros<float>({x.shape(0), T, d_in + 1});
    ATTN_EXPECT_REJECTS(notebook_module(T).forward(x), notebook_module(T).forward(wider),
                        "x of d_in + 1 = " + std::to_string(d_in + 1) + " features",
                        attn::shape_error, "must equal d_in of the weights = 3",
                        stub_line("arguments::causal_attention_forward("));
}

TEST(CausalAttentionTest, RejectsEmptyBatch) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const std::size_t T = x.shape(1), d_in = x.shape(x.dimension() - 1);
    const attn::Tensor3 empty = xt::zeros<float>({std::size_t{0}, T, d_in});
    ATTN_EXPECT_REJECTS(notebook_module(T).forward(x), notebook_module(T).forward(empty),
                        "an empty batch, shape " + attn::shape_string(empty.shape()),
                        attn::shape_error, "x is empty",
                        stub_line("arguments::causal_attention_forward("));
}

// The constructor's checks are the kit's (CausalAttention's __init__ is in the header); the
// module's forward must work before they count.
TEST(CausalAttentionTest, ConstructorRejectsWeightsOfDifferentShapes) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const attn::CausalAttention m = notebook_module(x.shape(1));
    const attn::Matrix transposed = xt::transpose(m.W_key.weight);
    ATTN_EXPECT_REJECTS(
        m.forward(x), attn::CausalAttention(m.W_query, {transposed, {}}, m.W_value, 1),
        "W_key.weight transposed, shape " + attn::shape_string(transposed.shape()),
        attn::shape_error, "W_key.weight has shape (3, 2)",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_layer_like("CausalAttention", "W_key", W_key, "W_query", W_query, true);)line"));
}

TEST(CausalAttentionTest, ConstructorRejectsBiasesOfAnotherLength) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const attn::CausalAttention m = notebook_module(x.shape(1));
    // Biases of length d_in = 3 where d_out = 2 belongs.
    const auto biased = [](const attn::Linear& layer) {
        return attn::Linear{layer.weight, xt::ones<float>({layer.weight.shape(1)})};
    };
    ATTN_EXPECT_REJECTS(
        m.forward(x),
        attn::CausalAttention(biased(m.W_query), biased(m.W_key), biased(m.W_value), 1),
        "biases of length d_in = " + std::to_string(m.W_query.weight.shape(1)) +
            " where d_out = " + std::to_string(m.W_query.weight.shape(0)) + " belongs",
        attn::shape_error, "W_query.bias has shape (3,)",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_layer_like("CausalAttention", "W_query", W_query, "W_query", W_query);)line"));
}

TEST(CausalAttentionTest, ConstructorRejectsZeroContextLength) {
    const auto x = case_input<3>("15_causal_attention/notebook", "x");
    const attn::CausalAttention m = notebook_module(x.shape(1));
    ATTN_EXPECT_REJECTS(
        m.forward(x), attn::CausalAttention(m.W_query, m.W_key, m.W_value, 0), "context_length = 0",
        attn::shape_error, "context_length is 0",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_positive("CausalAttention", "context_length", context_length);)line"));
}

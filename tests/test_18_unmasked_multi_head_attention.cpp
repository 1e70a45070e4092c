// tests/test_18_unmasked_multi_head_attention.cpp — Exercise 18: multi-head attention with one
// projection split into heads, no mask, fc_out (the course's Exercise 3.2, seed 000 In [12]).
// Compiled once; linked against exercises/ and solutions/18_unmasked_multi_head_attention.cpp,
// and the reference solutions of the earlier exercises. The cases are in
// reference_data/18_unmasked_multi_head_attention/; the weights are named as in PyTorch's
// state_dict() ("W_query.weight", ..., "fc_out.weight"), num_heads is an int64 input.
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

using attn::kit::case_input;
using attn::kit::kit_line;
using attn::kit::stub_line;

ATTN_CASE(unmasked_multi_head_attention) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto num_heads = static_cast<std::size_t>(the_case.integer("num_heads"));
    const attn::UnmaskedMultiHeadAttention module =
        attn::UnmaskedMultiHeadAttention::load(the_case.state_dict(), num_heads);
    ATTN_RESULT("context", module.forward(x));
}

namespace {

const std::string kNotebook = "18_unmasked_multi_head_attention/notebook";

// The notebook case's module: x (1, 5, 4), d_out = 2, two heads of head_dim 1.
attn::Linear notebook_layer(const std::string& name) {
    return {case_input<2>(kNotebook, name + ".weight"), {}};
}

attn::UnmaskedMultiHeadAttention notebook_module() {
    const auto& store = attn::kit::golden_store::instance();
    const std::int64_t num_heads =
        store.load_as<std::int64_t, 0>(store.find_case(kNotebook).file("num_heads"))();
    return {notebook_layer("W_query"), notebook_layer("W_key"), notebook_layer("W_value"),
            notebook_layer("fc_out"), static_cast<std::size_t>(num_heads)};
}

}  // namespace

TEST(UnmaskedMultiHeadAttentionTest, RejectsInputOfAnotherDIn) {
    const auto x = case_input<3>(kNotebook, "x");
    const std::size_t d_in = x.shape(x.dimension() - 1);
    const attn::Tensor3 wider = xt::zeros<float>({x.shape(0), x.shape(1), d_in + 1});
    ATTN_EXPECT_REJECTS(notebook_module().forward(x), notebook_module().forward(wider),
                        "x of d_in + 1 = " + std::to_string(d_in + 1) + " features",
                        attn::shape_error, "must equal d_in of the weights = 4",
                        stub_line("arguments::unmasked_multi_head_attention_forward("));
}

TEST(UnmaskedMultiHeadAttentionTest, RejectsEmptyBatch) {
    const auto x = case_input<3>(kNotebook, "x");
    const attn::Tensor3 empty =
        xt::zeros<float>({std::size_t{0}, x.shape(1), x.shape(x.dimension() - 1)});
    ATTN_EXPECT_REJECTS(notebook_module().forward(x), notebook_module().forward(empty),
                        "an empty batch, shape " + attn::shape_string(empty.shape()),
                        attn::shape_error, "x is empty",
                        stub_line("arguments::unmasked_multi_head_attention_forward("));
}

// The constructor's checks are the kit's (__init__ is in the header); the module's forward
// must work before they count.
TEST(UnmaskedMultiHeadAttentionTest, ConstructorRejectsDOutNotDivisibleByNumHeads) {
    const auto x = case_input<3>(kNotebook, "x");
    const attn::UnmaskedMultiHeadAttention m = notebook_module();
    const std::size_t heads = m.d_out() + 1;  // d_out = 2: 3 heads do not divide it
    ATTN_EXPECT_REJECTS(
        m.forward(x),
        attn::UnmaskedMultiHeadAttention(m.W_query, m.W_key, m.W_value, m.fc_out, heads),
        "num_heads = " + std::to_string(heads) + " for d_out = " + std::to_string(m.d_out()),
        attn::shape_error, "d_out = 2 is not divisible by num_heads = 3",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_divisible(kName, "d_out", W_query.d_out(), num_heads);)line"));
}

TEST(UnmaskedMultiHeadAttentionTest, ConstructorRejectsZeroHeads) {
    const auto x = case_input<3>(kNotebook, "x");
    const attn::UnmaskedMultiHeadAttention m = notebook_module();
    ATTN_EXPECT_REJECTS(
        m.forward(x), attn::UnmaskedMultiHeadAttention(m.W_query, m.W_key, m.W_value, m.fc_out, 0),
        "num_heads = 0", attn::shape_error, "num_heads is 0",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_divisible(kName, "d_out", W_query.d_out(), num_heads);)line"));
}

TEST(UnmaskedMultiHeadAttentionTest, ConstructorRejectsWeightsOfDifferentShapes) {
    const auto x = case_input<3>(kNotebook, "x");
    const attn::UnmaskedMultiHeadAttention m = notebook_module();
    const attn::Matrix transposed = xt::transpose(m.W_value.weight);
    ATTN_EXPECT_REJECTS(
        m.forward(x),
        attn::UnmaskedMultiHeadAttention(m.W_query, m.W_key, {transposed, {}}, m.fc_out,
                                         m.num_heads),
        "W_value.weight transposed, shape " + attn::shape_string(transposed.shape()),
        attn::shape_error, "W_value.weight has shape (4, 2)",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_layer_like(kName, "W_value", W_value, "W_query", W_query);)line"));
}

TEST(UnmaskedMultiHeadAttentionTest, ConstructorRejectsFcOutOfAnotherShape) {
    const auto x = case_input<3>(kNotebook, "x");
    const attn::UnmaskedMultiHeadAttention m = notebook_module();
    // fc_out (d_out, d_in) = (2, 4), as if it were a projection, where (d_out, d_out) belongs.
    ATTN_EXPECT_REJECTS(
        m.forward(x),
        attn::UnmaskedMultiHeadAttention(m.W_query, m.W_key, m.W_value, m.W_query, m.num_heads),
        "fc_out of shape " + attn::shape_string(m.W_query.weight.shape()), attn::shape_error,
        "fc_out.weight has shape (2, 4), but it must be (d_out, d_out) = (2, 2)",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_square_layer(kName, "fc_out", fc_out, W_query.d_out());)line"));
}

TEST(UnmaskedMultiHeadAttentionTest, ConstructorRejectsABias) {
    const auto x = case_input<3>(kNotebook, "x");
    const attn::UnmaskedMultiHeadAttention m = notebook_module();
    const attn::Linear biased{m.fc_out.weight, xt::zeros<float>({m.d_out()})};
    ATTN_EXPECT_REJECTS(
        m.forward(x),
        attn::UnmaskedMultiHeadAttention(m.W_query, m.W_key, m.W_value, biased, m.num_heads),
        "fc_out with a bias of shape (" + std::to_string(m.d_out()) + ",)", attn::shape_error,
        "fc_out has a bias",
        kit_line("include/attn/arguments.hpp",
                 R"line(checks::require_no_bias(kName, "fc_out", fc_out);)line"));
}

// tests/test_11_transfer_weights.cpp — Exercise 11: the book's Exercise 3.1
// (exercise-solutions.ipynb In [5] to In [7]). Compiled once; linked against exercises/ and
// solutions/11_transfer_weights.cpp, and the reference solutions of the earlier exercises
// (SelfAttention_v1's forward is exercise 09's). The cases are in
// reference_data/11_transfer_weights/: a v2's parameters under its state_dict() names
// (W_query.weight.npy, ...) and the v1's before the transfer as a module holding both would
// name them (sa_v1.W_query.npy, ...); the outputs W_query, ... are the v1's after it.
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"
#include "kit/testing.hpp"

#include <cstddef>
#include <stdexcept>
#include <vector>

using attn::kit::all_of;
using attn::kit::case_context;
using attn::kit::case_input;
using attn::kit::kit_line;
using attn::kit::stub_line;

namespace {

attn::SelfAttention_v2 v2_of(case_context& the_case) {
    return attn::SelfAttention_v2::load(the_case.state_dict());  // W_query.weight, ...
}

attn::SelfAttention_v1 v1_of(case_context& the_case) {
    return attn::SelfAttention_v1::load(the_case.state_dict("sa_v1."));  // sa_v1.W_query, ...
}

}  // namespace

// transfer_weights(from, to) returns nothing: a case's outputs are what `to` holds afterwards,
// and what it computes then.
ATTN_CASE(transfer_weights) {
    const auto sa_v2 = v2_of(the_case);
    auto sa_v1 = v1_of(the_case);
    ATTN_RESULT("W_query", (attn::transfer_weights(sa_v2, sa_v1), sa_v1.W_query));  // (d_in, d_out)
    ATTN_RESULT("W_key", sa_v1.W_key);
    ATTN_RESULT("W_value", sa_v1.W_value);
}

ATTN_CASE(transferred_forward) {  // exercise-solutions.ipynb In [6]: equals sa_v2(inputs)
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    const auto sa_v2 = v2_of(the_case);
    auto sa_v1 = v1_of(the_case);
    ATTN_RESULT("context", (attn::transfer_weights(sa_v2, sa_v1), sa_v1(inputs)));
}

namespace {

const std::string notebook = "11_transfer_weights/notebook";

attn::SelfAttention_v2 notebook_v2() {
    return {{case_input<2>(notebook, "W_query.weight"), {}},
            {case_input<2>(notebook, "W_key.weight"), {}},
            {case_input<2>(notebook, "W_value.weight"), {}}};
}

// The notebook's v1 before the transfer: the `to` of a transfer that must work.
attn::SelfAttention_v1 notebook_v1() {
    return {case_input<2>(notebook, "sa_v1.W_query"), case_input<2>(notebook, "sa_v1.W_key"),
            case_input<2>(notebook, "sa_v1.W_value")};
}

}  // namespace

TEST(TransferWeightsTest, RejectsAV1ForAnotherShapeAndLeavesItUnchanged) {
    const auto sa_v2 = notebook_v2();
    const std::vector<std::size_t> transposed{sa_v2.d_in(), sa_v2.d_out()};
    const attn::Matrix taller = xt::ones<float>({sa_v2.d_in() + 1, sa_v2.d_out()});
    attn::SelfAttention_v1 sa_v1{taller, taller, taller};  // built for another d_in
    auto target = notebook_v1();
    ATTN_EXPECT_REJECTS(attn::transfer_weights(sa_v2, target), attn::transfer_weights(sa_v2, sa_v1),
                        "a v1 of shape " + attn::shape_string(taller.shape()) + " for d_in + 1",
                        attn::shape_error,
                        all_of("W_query has shape " + attn::shape_string(taller.shape()),
                               "transposed is " + attn::shape_string(transposed)),
                        stub_line("arguments::transfer_weights("));
    EXPECT_EQ(sa_v1.W_query, taller);
}

TEST(TransferWeightsTest, RejectsAV1ShapedLikeTheUntransposedWeights) {
    const auto sa_v2 = notebook_v2();
    const attn::Matrix& weight = sa_v2.W_query.weight;  // (d_out, d_in)
    attn::SelfAttention_v1 sa_v1{weight, weight, weight};
    auto target = notebook_v1();
    ATTN_EXPECT_REJECTS(attn::transfer_weights(sa_v2, target), attn::transfer_weights(sa_v2, sa_v1),
                        "a v1 of shape " + attn::shape_string(weight.shape()) +
                            " = (d_out, d_in), the v2's weights untransposed",
                        attn::shape_error,
                        "W_query has shape " + attn::shape_string(weight.shape()),
                        stub_line("arguments::transfer_weights("));
}

TEST(TransferWeightsTest, RejectsAV2WithBiases) {
    const auto v2 = notebook_v2();
    const attn::Vector bias = xt::zeros<float>({v2.d_out()});
    const attn::SelfAttention_v2 biased{
        {v2.W_query.weight, bias}, {v2.W_key.weight, bias}, {v2.W_value.weight, bias}};
    auto sa_v1 = notebook_v1();
    auto target = notebook_v1();
    ATTN_EXPECT_REJECTS(attn::transfer_weights(v2, target), attn::transfer_weights(biased, sa_v1),
                        "a v2 with biases", std::invalid_argument, "has biases (qkv_bias=True)",
                        stub_line("arguments::transfer_weights("));
}

// Copied without the transpose, a (d_out, d_in) weight lands in v1 unnoticed (a Matrix
// resizes on assignment); the v1's forward then names the slip.
TEST(TransferWeightsTest, AWeightCopiedWithoutTheTransposeIsNamedByForward) {
    const auto v2 = notebook_v2();
    auto target = notebook_v1();  // transfer_weights must work before this test counts
    auto sa_v1 = notebook_v1();
    sa_v1.W_query = v2.W_query.weight;  // (d_out, d_in): the slip
    sa_v1.W_key = v2.W_key.weight;
    sa_v1.W_value = v2.W_value.weight;
    const auto inputs = case_input<2>("11_transfer_weights/forward_notebook", "inputs");
    ATTN_EXPECT_REJECTS(
        attn::transfer_weights(v2, target), sa_v1(inputs),
        "a v1 holding the v2's weights untransposed, " +
            attn::shape_string(v2.W_query.weight.shape()),
        attn::shape_error,
        all_of("W_query has shape " + attn::shape_string(v2.W_query.weight.shape()),
               "goes into SelfAttention_v1 transposed"),
        kit_line("solutions/09_self_attention_v1.cpp (exercise 09's SelfAttention_v1::forward)",
                 R"line(arguments::self_attention_v1_forward(x, W_query, W_key, W_value);)line"));
}

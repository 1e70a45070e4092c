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

#include <gmock/gmock.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

using attn::kit::case_context;
using attn::kit::case_input;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace {

attn::SelfAttention_v2 v2_of(case_context& the_case) {
    return {{the_case.input<2>("W_query.weight"), {}},  // (d_out, d_in)
            {the_case.input<2>("W_key.weight"), {}},
            {the_case.input<2>("W_value.weight"), {}}};
}

attn::SelfAttention_v1 v1_of(case_context& the_case) {
    return {the_case.input<2>("sa_v1.W_query"), the_case.input<2>("sa_v1.W_key"),  // (d_in, d_out)
            the_case.input<2>("sa_v1.W_value")};
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

}  // namespace

TEST(TransferWeightsTest, RejectsAV1ForAnotherShapeAndLeavesItUnchanged) {
    const auto sa_v2 = notebook_v2();
    const std::vector<std::size_t> transposed{sa_v2.d_in(), sa_v2.d_out()};
    const attn::Matrix taller = xt::ones<float>({sa_v2.d_in() + 1, sa_v2.d_out()});
    attn::SelfAttention_v1 sa_v1{taller, taller, taller};  // built for another d_in
    EXPECT_THAT([&] { attn::transfer_weights(sa_v2, sa_v1); },
                ThrowsMessage<attn::shape_error>(
                    AllOf(HasSubstr("W_query has shape " + attn::shape_string(taller.shape())),
                          HasSubstr("transposed is " + attn::shape_string(transposed)))));
    EXPECT_EQ(sa_v1.W_query, taller);
}

TEST(TransferWeightsTest, RejectsAV1ShapedLikeTheUntransposedWeights) {
    const auto sa_v2 = notebook_v2();
    const attn::Matrix& weight = sa_v2.W_query.weight;  // (d_out, d_in)
    attn::SelfAttention_v1 sa_v1{weight, weight, weight};
    EXPECT_THAT([&] { attn::transfer_weights(sa_v2, sa_v1); },
                ThrowsMessage<attn::shape_error>(
                    HasSubstr("W_query has shape " + attn::shape_string(weight.shape()))));
}

TEST(TransferWeightsTest, RejectsAV2WithBiases) {
    const auto v2 = notebook_v2();
    const attn::Vector bias = xt::zeros<float>({v2.d_out()});
    const attn::SelfAttention_v2 biased{
        {v2.W_query.weight, bias}, {v2.W_key.weight, bias}, {v2.W_value.weight, bias}};
    attn::SelfAttention_v1 sa_v1{case_input<2>(notebook, "sa_v1.W_query"),
                                 case_input<2>(notebook, "sa_v1.W_key"),
                                 case_input<2>(notebook, "sa_v1.W_value")};
    EXPECT_THAT([&] { attn::transfer_weights(biased, sa_v1); },
                ThrowsMessage<std::invalid_argument>(HasSubstr("has biases (qkv_bias=True)")));
}

// Copied without the transpose, a (d_out, d_in) weight lands in v1 unnoticed (a Matrix
// resizes on assignment); the v1's forward then names the slip.
TEST(TransferWeightsTest, AWeightCopiedWithoutTheTransposeIsNamedByForward) {
    const auto v2 = notebook_v2();
    attn::SelfAttention_v1 sa_v1{case_input<2>(notebook, "sa_v1.W_query"),
                                 case_input<2>(notebook, "sa_v1.W_key"),
                                 case_input<2>(notebook, "sa_v1.W_value")};
    sa_v1.W_query = v2.W_query.weight;  // (d_out, d_in): the slip
    sa_v1.W_key = v2.W_key.weight;
    sa_v1.W_value = v2.W_value.weight;
    EXPECT_THAT([&] { sa_v1(case_input<2>("11_transfer_weights/forward_notebook", "inputs")); },
                ThrowsMessage<attn::shape_error>(AllOf(
                    HasSubstr("W_query has shape " + attn::shape_string(v2.W_query.weight.shape())),
                    HasSubstr("goes into SelfAttention_v1 transposed"))));
}

// tests/test_19_multi_head_attention.cpp — Exercise 19: MultiHeadAttention with weight splits
// (ch03.ipynb In [36]; In [8] of the seed 002). Compiled once; linked against exercises/ and
// solutions/19_multi_head_attention.cpp, and the reference solutions of the earlier exercises.
// The cases are in reference_data/19_multi_head_attention/: split_heads, merge_heads and
// truncated_mask on their own, then the module, its parameters under their state_dict() names
// (W_query.weight.npy, ..., out_proj.bias.npy) or the seed attn::HashedUniform draws them from.
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

using attn::kit::case_input;
using attn::kit::case_integer;
using attn::kit::case_state_dict;
using attn::kit::kit_line;
using attn::kit::stub_line;

ATTN_CASE(split_heads) {
    const auto projected = the_case.input<3>("projected");  // (B, T, d_out)
    ATTN_RESULT("heads", attn::split_heads(projected, the_case.size("num_heads")));
}

ATTN_CASE(merge_heads) {
    const auto heads = the_case.input<4>("heads");  // (B, num_heads, T, head_dim)
    ATTN_RESULT("merged", attn::merge_heads(heads));
}

namespace {

// A module's mask buffer for context_length tokens, as MultiHeadAttention's constructor
// builds it: triu(ones(context_length, context_length), diagonal=1).
attn::Matrix buffer(std::size_t context_length) {
    return xt::triu(xt::ones<float>({context_length, context_length}), 1);
}

}  // namespace

ATTN_CASE(truncated_mask) {
    const attn::Matrix mask = buffer(the_case.size("context_length"));
    ATTN_RESULT("mask_bool", attn::truncated_mask(mask, the_case.size("T")));
}

// Forward splits the heads, masks with truncated_mask, then merges them: where both fail, fix the
// callee first.
ATTN_CASE_CALLS(multi_head_attention, "split_heads", "truncated_mask", "merge_heads");

ATTN_CASE(multi_head_attention) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto mha = attn::MultiHeadAttention::load(
        the_case.state_dict(), the_case.size("num_heads"), the_case.size("context_length"));
    ATTN_RESULT("context", mha.forward(x));
}

// torch.manual_seed(s); MultiHeadAttention(d_in, d_out, ...): the module built from its
// sizes, its parameters drawn by attn::HashedUniform(init_seed).
ATTN_CASE_CALLS(multi_head_attention_hashed, "split_heads", "truncated_mask", "merge_heads");
ATTN_CASE(multi_head_attention_hashed) {
    const auto x = the_case.input<3>("x");
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const attn::MultiHeadAttention mha(x.shape(2), the_case.size("d_out"),
                                       the_case.size("context_length"), the_case.size("num_heads"),
                                       the_case.integer("qkv_bias") != 0, init);
    ATTN_RESULT("context", mha.forward(x));
}

namespace {

const std::string notebook = "19_multi_head_attention/notebook";

attn::MultiHeadAttention notebook_module(std::size_t context_length, std::size_t num_heads) {
    return attn::MultiHeadAttention::load(case_state_dict(notebook), num_heads, context_length);
}

attn::MultiHeadAttention notebook_module(std::size_t context_length) {
    return notebook_module(context_length, case_integer(notebook, "num_heads"));
}

std::string str(std::size_t n) { return std::to_string(n); }

}  // namespace

// The split of the notebook case's shapes: projected (B, T, d_out), num_heads dividing d_out.
TEST(SplitHeadsTest, RejectsFeaturesTheHeadsCannotShare) {
    const std::string at = "19_multi_head_attention/split_notebook";
    const auto projected = case_input<3>(at, "projected");
    const std::size_t d_out = projected.shape(2), heads = case_integer(at, "num_heads");
    ATTN_EXPECT_REJECTS(
        attn::split_heads(projected, heads), attn::split_heads(projected, d_out + 1),
        "d_out = " + str(d_out) + " features for num_heads = " + str(d_out + 1), attn::shape_error,
        "d_out = " + str(d_out) + " is not divisible by num_heads = " + str(d_out + 1),
        stub_line("arguments::split_heads("));
}

TEST(SplitHeadsTest, RejectsNoHeads) {
    const std::string at = "19_multi_head_attention/split_notebook";
    const auto projected = case_input<3>(at, "projected");
    ATTN_EXPECT_REJECTS(attn::split_heads(projected, case_integer(at, "num_heads")),
                        attn::split_heads(projected, 0), "num_heads = 0", attn::shape_error,
                        "num_heads is 0", stub_line("arguments::split_heads("));
}

TEST(MergeHeadsTest, RejectsAnEmptyTensor) {
    const auto heads = case_input<4>("19_multi_head_attention/merge_three_heads", "heads");
    const attn::Tensor4 empty =
        xt::ones<float>({heads.shape(0), heads.shape(1), std::size_t{0}, heads.shape(3)});
    ATTN_EXPECT_REJECTS(attn::merge_heads(heads), attn::merge_heads(empty),
                        "heads of shape " + attn::shape_string(empty.shape()), attn::shape_error,
                        "heads is empty", stub_line("arguments::merge_heads("));
}

TEST(TruncatedMaskTest, RejectsMoreTokensThanTheMaskHas) {
    const std::size_t n = case_integer("19_multi_head_attention/mask_whole", "context_length");
    const attn::Matrix mask = buffer(n);
    ATTN_EXPECT_REJECTS(attn::truncated_mask(mask, n), attn::truncated_mask(mask, n + 1),
                        "T = " + str(n + 1) + " for a mask of context_length " + str(n),
                        attn::shape_error,
                        "T = " + str(n + 1) + " tokens, more than the context_length = " + str(n),
                        stub_line("arguments::truncated_mask("));
}

TEST(TruncatedMaskTest, RejectsAMaskThatIsNotSquare) {
    const std::size_t n = case_integer("19_multi_head_attention/mask_whole", "context_length");
    const attn::Matrix mask = buffer(n);
    const attn::Matrix wide = xt::ones<float>({n, n + 1});
    ATTN_EXPECT_REJECTS(attn::truncated_mask(mask, n), attn::truncated_mask(wide, n),
                        "a mask of shape " + attn::shape_string(wide.shape()), attn::shape_error,
                        "mask has shape " + attn::shape_string(wide.shape()),
                        stub_line("arguments::truncated_mask("));
}

TEST(MultiHeadAttentionTest, ForwardRejectsMoreTokensThanContextLength) {
    const auto x = case_input<3>(notebook, "x");
    const std::size_t T = x.shape(1);
    ATTN_EXPECT_REJECTS(
        notebook_module(T).forward(x), notebook_module(T - 1).forward(x),
        "x of T = " + str(T) + " tokens, a module whose mask is for context_length = " + str(T - 1),
        attn::shape_error,
        "x has T = " + str(T) + " tokens, more than the context_length = " + str(T - 1),
        stub_line("arguments::multi_head_attention_forward("));
}

TEST(MultiHeadAttentionTest, ForwardRejectsInputOfAnotherDIn) {
    const auto x = case_input<3>(notebook, "x");
    const attn::Tensor3 wider = xt::zeros<float>({x.shape(0), x.shape(1), x.shape(2) + 1});
    ATTN_EXPECT_REJECTS(notebook_module(x.shape(1)).forward(x),
                        notebook_module(x.shape(1)).forward(wider),
                        "x of d_in + 1 = " + str(wider.shape(2)) + " features", attn::shape_error,
                        "must equal d_in of the weights = " + str(x.shape(2)),
                        stub_line("arguments::multi_head_attention_forward("));
}

// The constructor's checks are the kit's (the header's); the module's forward must work
// before they count.
TEST(MultiHeadAttentionTest, ConstructorRejectsDOutNotDivisibleByNumHeads) {
    const auto x = case_input<3>(notebook, "x");
    const std::size_t d_out = notebook_module(x.shape(1)).d_out();
    ATTN_EXPECT_REJECTS(
        notebook_module(x.shape(1)).forward(x), notebook_module(x.shape(1), d_out + 1),
        "d_out = " + str(d_out) + " for num_heads = " + str(d_out + 1), attn::shape_error,
        "d_out = " + str(d_out) + " is not divisible by num_heads = " + str(d_out + 1),
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_divisible(module, "d_out", W_query.d_out(), num_heads);)line"));
}

TEST(MultiHeadAttentionTest, ConstructorRejectsAnOutputProjectionOfAnotherShape) {
    const auto x = case_input<3>(notebook, "x");
    const auto mha = notebook_module(x.shape(1));
    const attn::Linear wide{xt::ones<float>({mha.d_out(), mha.d_out() + 1}), {}};
    ATTN_EXPECT_REJECTS(
        mha.forward(x),
        attn::MultiHeadAttention(mha.W_query, mha.W_key, mha.W_value, wide, mha.num_heads,
                                 x.shape(1)),
        "out_proj.weight of shape " + attn::shape_string(wide.weight.shape()), attn::shape_error,
        "out_proj.weight has shape " + attn::shape_string(wide.weight.shape()) +
            ", but it must be (d_out, d_out) = (" + str(mha.d_out()) + ", " + str(mha.d_out()) +
            ")",
        kit_line(
            "include/attn/arguments.hpp",
            R"line(checks::require_square_layer(module, "out_proj", out_proj, W_query.d_out());)line"));
}

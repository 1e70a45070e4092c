// tests/test_19_multi_head_attention.cpp — Exercise 19: MultiHeadAttention with weight splits
// (ch03.ipynb In [37], In [38]; a multi-head tutorial's In [8]). Compiled once; linked against
// exercises/ and solutions/19_multi_head_attention.cpp, and the reference solutions of the
// earlier exercises. The cases are in reference_data/19_multi_head_attention/: split_heads,
// merge_heads and truncated_mask on their own, then the module, its parameters under their
// state_dict() names (W_query.weight.npy, ..., out_proj.bias.npy) or the seed
// attn::HashedUniform draws them from.
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

using attn::kit::case_input;
using attn::kit::kit_line;

namespace {

std::size_t size_input(attn::kit::case_context& the_case, const std::string& name) {
    return static_cast<std::size_t>(the_case.integer(name));
}

}  // namespace

ATTN_CASE(split_heads) {
    const auto projected = the_case.input<3>("projected");  // (B, T, d_out)
    ATTN_RESULT("heads", attn::split_heads(projected, size_input(the_case, "num_heads")));
}

ATTN_CASE(merge_heads) {
    const auto heads = the_case.input<4>("heads");  // (B, num_heads, T, head_dim)
    ATTN_RESULT("merged", attn::merge_heads(heads));
}

ATTN_CASE(truncated_mask) {
    const auto mask = the_case.input<2>("mask");  // (context_length, context_length)
    ATTN_RESULT("mask_bool", attn::truncated_mask(mask, size_input(the_case, "T")));
}

ATTN_CASE(multi_head_attention) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto mha = attn::MultiHeadAttention::load(the_case.state_dict(),
                                                    size_input(the_case, "num_heads"),
                                                    size_input(the_case, "context_length"));
    ATTN_RESULT("context", mha.forward(x));
}

// torch.manual_seed(s); MultiHeadAttention(d_in, d_out, ...): the module built from its
// sizes, its parameters drawn by attn::HashedUniform(init_seed).
ATTN_CASE(multi_head_attention_hashed) {
    const auto x = the_case.input<3>("x");
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const attn::MultiHeadAttention mha(x.shape(2), size_input(the_case, "d_out"),
                                       size_input(the_case, "context_length"),
                                       size_input(the_case, "num_heads"),
                                       the_case.integer("qkv_bias") != 0, init);
    ATTN_RESULT("context", mha.forward(x));
}

namespace {

const std::string notebook = "19_multi_head_attention/notebook";

attn::MultiHeadAttention notebook_module(std::size_t context_length, std::size_t num_heads = 2) {
    const auto layer = [](const std::string& name, bool bias) {
        return attn::Linear{case_input<2>(notebook, name + ".weight"),
                            bias ? case_input<1>(notebook, name + ".bias") : attn::Vector{}};
    };
    return {layer("W_query", false), layer("W_key", false), layer("W_value", false),
            layer("out_proj", true),  num_heads,             context_length};
}

}  // namespace

TEST(SplitHeadsTest, RejectsFeaturesTheHeadsCannotShare) {
    const attn::Tensor3 projected = xt::ones<float>({std::size_t{1}, std::size_t{2}, std::size_t{6}});
    ATTN_EXPECT_REJECTS(
        attn::split_heads(projected, 3), attn::split_heads(projected, 4),
        "d_out = 6 features for num_heads = 4", attn::shape_error,
        "d_out = 6 is not divisible by num_heads = 4",
        R"line(checks::require_divisible("split_heads", "d_out", projected.shape(2), num_heads);)line");
}

TEST(SplitHeadsTest, RejectsNoHeads) {
    const attn::Tensor3 projected = xt::ones<float>({std::size_t{1}, std::size_t{2}, std::size_t{6}});
    ATTN_EXPECT_REJECTS(
        attn::split_heads(projected, 3), attn::split_heads(projected, 0), "num_heads = 0",
        attn::shape_error, "num_heads is 0",
        R"line(checks::require_divisible("split_heads", "d_out", projected.shape(2), num_heads);)line");
}

TEST(MergeHeadsTest, RejectsAnEmptyTensor) {
    const attn::Tensor4 heads = xt::ones<float>({std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{2}});
    const attn::Tensor4 empty = xt::ones<float>({std::size_t{1}, std::size_t{2}, std::size_t{0}, std::size_t{2}});
    ATTN_EXPECT_REJECTS(attn::merge_heads(heads), attn::merge_heads(empty),
                        "heads of shape " + attn::shape_string(empty.shape()), attn::shape_error,
                        "heads is empty",
                        R"line(checks::require_heads_tensor("merge_heads", heads);)line");
}

TEST(TruncatedMaskTest, RejectsMoreTokensThanTheMaskHas) {
    const attn::Matrix mask = xt::triu(xt::ones<float>({std::size_t{4}, std::size_t{4}}), 1);
    ATTN_EXPECT_REJECTS(attn::truncated_mask(mask, 4), attn::truncated_mask(mask, 5),
                        "T = 5 for a mask of context_length 4", attn::shape_error,
                        "T = 5 tokens, more than the context_length = 4",
                        R"line(checks::require_mask_for("truncated_mask", mask, T);)line");
}

TEST(TruncatedMaskTest, RejectsAMaskThatIsNotSquare) {
    const attn::Matrix mask = xt::triu(xt::ones<float>({std::size_t{4}, std::size_t{4}}), 1);
    const attn::Matrix wide = xt::ones<float>({std::size_t{4}, std::size_t{5}});
    ATTN_EXPECT_REJECTS(attn::truncated_mask(mask, 4), attn::truncated_mask(wide, 4),
                        "a mask of shape (4, 5)", attn::shape_error, "mask has shape (4, 5)",
                        R"line(checks::require_mask_for("truncated_mask", mask, T);)line");
}

TEST(MultiHeadAttentionTest, ForwardRejectsMoreTokensThanContextLength) {
    const auto x = case_input<3>(notebook, "x");  // T = 6
    const std::size_t T = x.shape(1);
    ATTN_EXPECT_REJECTS(
        notebook_module(T).forward(x), notebook_module(T - 1).forward(x),
        "x of T = " + std::to_string(T) + " tokens, a module whose mask is for context_length = " +
            std::to_string(T - 1),
        attn::shape_error, "x has T = 6 tokens, more than the context_length = 5",
        R"line(checks::require_batch("MultiHeadAttention.forward", x, d_in(), context_length());)line");
}

TEST(MultiHeadAttentionTest, ForwardRejectsInputOfAnotherDIn) {
    const auto x = case_input<3>(notebook, "x");
    const attn::Tensor3 wider = xt::zeros<float>({x.shape(0), x.shape(1), x.shape(2) + 1});
    ATTN_EXPECT_REJECTS(
        notebook_module(x.shape(1)).forward(x), notebook_module(x.shape(1)).forward(wider),
        "x of d_in + 1 = " + std::to_string(wider.shape(2)) + " features", attn::shape_error,
        "must equal d_in of the weights = 3",
        R"line(checks::require_batch("MultiHeadAttention.forward", x, d_in(), context_length());)line");
}

// The constructor's checks are the kit's (the header's); the module's forward must work
// before they count.
TEST(MultiHeadAttentionTest, ConstructorRejectsDOutNotDivisibleByNumHeads) {
    const auto x = case_input<3>(notebook, "x");
    ATTN_EXPECT_REJECTS(
        notebook_module(x.shape(1)).forward(x), notebook_module(x.shape(1), 3),
        "d_out = 2 for num_heads = 3", attn::shape_error,
        "d_out = 2 is not divisible by num_heads = 3",
        kit_line("include/attn/multi_head_attention.hpp",
                 R"line(checks::require_divisible(module, "d_out", W_query.d_out(), num_heads);)line"));
}

TEST(MultiHeadAttentionTest, ConstructorRejectsAnOutputProjectionOfAnotherShape) {
    const auto x = case_input<3>(notebook, "x");
    const auto mha = notebook_module(x.shape(1));
    const attn::Linear wide{xt::ones<float>({std::size_t{2}, std::size_t{3}}), {}};
    ATTN_EXPECT_REJECTS(
        mha.forward(x),
        attn::MultiHeadAttention(mha.W_query, mha.W_key, mha.W_value, wide, 2, x.shape(1)),
        "out_proj.weight of shape (2, 3)", attn::shape_error,
        "out_proj.weight has shape (2, 3), but it maps the merged heads' d_out = 2",
        kit_line("include/attn/multi_head_attention.hpp",
                 R"line(checks::require_output_projection(module, out_proj, W_query.d_out());)line"));
}

// tests/test_21_two_heads_columns.cpp — Exercise 21: multi-head self-attention in the column
// convention, the heads stacked and combined by W_c (12_2_Multihead_Self_Attention.ipynb,
// multihead_scaled_self_attention). Compiled once; linked against exercises/ and
// solutions/21_two_heads_columns.cpp, and the reference solutions of the earlier exercises.
// The cases (the notebook's two heads, three heads, one head, one token, d_v != d_k) are in
// reference_data/21_two_heads_columns/; head h's parameters are named heads.<h>.W_q, ...,
// heads.<h>.b_v, beside X and W_c.
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>

#include <cstddef>
#include <string>
#include <vector>

using attn::kit::case_input;
using attn::kit::stub_line;

namespace {

// The heads of a case's parameters under "heads.": "0.W_q", ..., "0.b_v", "1.W_q", ... in
// head order, as many as the case has.
attn::ColumnHeads heads_of(const attn::StateDict& state) {
    attn::ColumnHeads heads;
    for (std::size_t h = 0; state.contains(std::to_string(h) + ".W_q"); ++h) {
        const attn::StateDict head = state.under(std::to_string(h) + ".");
        heads.push_back({head.at<2>("W_q"), head.at<2>("W_k"), head.at<2>("W_v"), head.at<2>("b_q"),
                         head.at<2>("b_k"), head.at<2>("b_v")});
    }
    return heads;
}

}  // namespace

ATTN_CASE(multi_head_attention_columns) {
    const auto X = the_case.input<2>("X");                       // (D, N)
    const auto heads = heads_of(the_case.state_dict("heads."));  // head 0 first
    const auto W_c = the_case.input<2>("W_c");                   // (D_out, num_heads * d_v)
    ATTN_RESULT("X_prime", attn::multi_head_attention_columns(X, heads, W_c));
}

namespace {

// A recorded call's arguments, for the tests of the argument checks.
struct arguments {
    attn::Matrix X;
    attn::ColumnHeads heads;
    attn::Matrix W_c;
};

// Two heads with d_k != d_v and a W_c that is not square: a swapped dimension shows.
arguments values_wider() {
    const std::string at = "21_two_heads_columns/values_wider";
    attn::StateDict state;
    for (const std::string& name : attn::kit::golden_store::instance().find_case(at).inputs) {
        state.set(name, case_input<2>(at, name));
    }
    return {state.at<2>("X"), heads_of(state.under("heads.")), state.at<2>("W_c")};
}

}  // namespace

TEST(TwoHeadsColumnsTest, RejectsEmptyTokens) {
    const arguments good = values_wider();
    arguments p = values_wider();
    p.X = xt::zeros<float>({p.X.shape(0), std::size_t{0}});  // D features, no token
    ATTN_EXPECT_REJECTS(attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
                        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
                        "X without tokens, shape " + attn::shape_string(p.X.shape()),
                        attn::shape_error, "X is empty",
                        stub_line("arguments::multi_head_attention_columns("));
}

TEST(TwoHeadsColumnsTest, RejectsNoHeads) {
    const arguments good = values_wider();
    arguments p = values_wider();
    p.heads.clear();
    ATTN_EXPECT_REJECTS(attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
                        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
                        "an empty list of heads", attn::shape_error, "heads is empty",
                        stub_line("arguments::multi_head_attention_columns("));
}

TEST(TwoHeadsColumnsTest, RejectsTokensAsRows) {
    const arguments good = values_wider();
    arguments p = values_wider();
    p.X = xt::transpose(p.X);  // (N, D): the row convention
    ATTN_EXPECT_REJECTS(
        attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
        "X with its tokens as rows, shape " + attn::shape_string(p.X.shape()) + " = (N, D)",
        attn::shape_error,
        "heads[0].W_q has shape " + attn::shape_string(p.heads[0].W_q.shape()) +
            ", but its dimension 1 must equal D (X.shape(0)) = " + std::to_string(p.X.shape(0)),
        stub_line("arguments::multi_head_attention_columns("));
}

TEST(TwoHeadsColumnsTest, RejectsKeysOfAnotherLengthThanTheQueries) {
    const arguments good = values_wider();
    arguments p = values_wider();
    p.heads[0].W_k = p.heads[0].W_v;  // (d_v, D): the keys must have d_k rows like the queries
    ATTN_EXPECT_REJECTS(
        attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
        "heads[0].W_k of shape " + attn::shape_string(p.heads[0].W_k.shape()) +
            ", heads[0].W_q of " + attn::shape_string(p.heads[0].W_q.shape()) + ": another d_k",
        attn::shape_error,
        "must equal d_k (heads[0].W_q.shape(0)) = " + std::to_string(p.heads[0].W_q.shape(0)),
        stub_line("arguments::multi_head_attention_columns("));
}

TEST(TwoHeadsColumnsTest, RejectsBiasAsARow) {
    const arguments good = values_wider();
    arguments p = values_wider();
    p.heads[0].b_q = xt::transpose(p.heads[0].b_q);  // (1, d_k), not a column
    ATTN_EXPECT_REJECTS(
        attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
        "heads[0].b_q as a row, shape " + attn::shape_string(p.heads[0].b_q.shape()),
        attn::shape_error,
        "heads[0].b_q must be one column, shape (d_k, 1), but has shape " +
            attn::shape_string(p.heads[0].b_q.shape()),
        stub_line("arguments::multi_head_attention_columns("));
}

TEST(TwoHeadsColumnsTest, RejectsAHeadOfOtherShapesThanTheFirst) {
    const arguments good = values_wider();
    arguments p = values_wider();
    const std::size_t last = p.heads.size() - 1;
    p.heads[last].W_v = p.heads[last].W_q;  // d_k rows where the first head's values have d_v
    const std::string name = "heads[" + std::to_string(last) + "].W_v";
    ATTN_EXPECT_REJECTS(attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
                        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
                        name + " of shape " + attn::shape_string(p.heads[last].W_v.shape()) +
                            ", heads[0].W_v of " + attn::shape_string(p.heads[0].W_v.shape()),
                        attn::shape_error,
                        name + " has shape " + attn::shape_string(p.heads[last].W_v.shape()) +
                            ", but heads[0].W_v has " + attn::shape_string(p.heads[0].W_v.shape()),
                        stub_line("arguments::multi_head_attention_columns("));
}

TEST(TwoHeadsColumnsTest, RejectsCombinerOfAnotherWidth) {
    const arguments good = values_wider();
    arguments p = values_wider();
    p.W_c = xt::transpose(p.W_c);  // (num_heads * d_v, D_out)
    const std::size_t stacked_rows = p.heads.size() * p.heads[0].W_v.shape(0);
    ATTN_EXPECT_REJECTS(
        attn::multi_head_attention_columns(good.X, good.heads, good.W_c),
        attn::multi_head_attention_columns(p.X, p.heads, p.W_c),
        "W_c transposed, shape " + attn::shape_string(p.W_c.shape()), attn::shape_error,
        "W_c has shape " + attn::shape_string(p.W_c.shape()) +
            ", but its dimension 1 must equal num_heads * d_v (the rows of the stacked heads) = " +
            std::to_string(stacked_rows),
        stub_line("arguments::multi_head_attention_columns("));
}

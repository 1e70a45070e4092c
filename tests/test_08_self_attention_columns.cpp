// tests/test_08_self_attention_columns.cpp — Exercise 08: self-attention in matrix form, in
// the column convention (12_1_Self_Attention.ipynb Exercise 7). Compiled once; linked against
// exercises/ and solutions/08_self_attention_columns.cpp, and the reference solutions of the
// earlier exercises. The cases (the notebook's X_prime, d_k != D, d_v = d_k) are in
// reference_data/08_self_attention_columns/.
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"
#include "kit/testing.hpp"

#include <string>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(attention_weights_columns) {
    const auto queries = the_case.input<2>("queries");  // (d_k, N)
    const auto keys = the_case.input<2>("keys");        // (d_k, N)
    ATTN_RESULT("weights", attn::attention_weights_columns(queries, keys));
}

// The layer weights its values by attention_weights_columns: where both fail, fix the callee first.
ATTN_CASE_CALLS(scaled_dot_product_self_attention, "attention_weights_columns");

ATTN_CASE(scaled_dot_product_self_attention) {
    const auto X = the_case.input<2>("X");      // (D, N)
    const auto W_v = the_case.input<2>("W_v");  // (d_v, D)
    const auto W_q = the_case.input<2>("W_q");  // (d_k, D)
    const auto W_k = the_case.input<2>("W_k");  // (d_k, D)
    const auto b_v = the_case.input<2>("b_v");  // (d_v, 1)
    const auto b_q = the_case.input<2>("b_q");  // (d_k, 1)
    const auto b_k = the_case.input<2>("b_k");  // (d_k, 1)
    ATTN_RESULT("X_prime",
                attn::scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k));
}

namespace {

struct parameters {
    attn::Matrix X, W_v, W_q, W_k, b_v, b_q, b_k;
};

parameters odd_shape() {  // D = 5, d_k = 3, d_v = 4, N = 6
    const std::string key = "08_self_attention_columns/odd_shape";
    return {case_input<2>(key, "X"),   case_input<2>(key, "W_v"), case_input<2>(key, "W_q"),
            case_input<2>(key, "W_k"), case_input<2>(key, "b_v"), case_input<2>(key, "b_q"),
            case_input<2>(key, "b_k")};
}

}  // namespace

TEST(SelfAttentionColumnsTest, RejectsKeysOfAnotherLength) {
    const auto queries = case_input<2>("08_self_attention_columns/weights_odd_shape", "queries");
    const auto keys = case_input<2>("08_self_attention_columns/weights_odd_shape", "keys");
    const attn::Matrix keys_transposed = xt::transpose(queries);
    ATTN_EXPECT_REJECTS(
        attn::attention_weights_columns(queries, keys),
        attn::attention_weights_columns(queries, keys_transposed),
        "keys of shape " + attn::shape_string(keys_transposed.shape()) + " = (N, d_k), transposed",
        attn::shape_error,
        "must equal d_k (queries.shape(0)) = " + std::to_string(queries.shape(0)),
        stub_line("arguments::attention_weights_columns("));
}

TEST(SelfAttentionColumnsTest, RejectsTokensAsRows) {
    const parameters good = odd_shape();
    parameters p = odd_shape();
    p.X = xt::transpose(p.X);  // (N, D): the row convention
    ATTN_EXPECT_REJECTS(
        attn::scaled_dot_product_self_attention(good.X, good.W_v, good.W_q, good.W_k, good.b_v,
                                                good.b_q, good.b_k),
        attn::scaled_dot_product_self_attention(p.X, p.W_v, p.W_q, p.W_k, p.b_v, p.b_q, p.b_k),
        "X with its tokens as rows, shape " + attn::shape_string(p.X.shape()) + " = (N, D)",
        attn::shape_error,
        "W_v has shape " + attn::shape_string(p.W_v.shape()) +
            ", but its dimension 1 must equal D (X.shape(0)) = " + std::to_string(p.X.shape(0)),
        stub_line("arguments::scaled_dot_product_self_attention("));
}

TEST(SelfAttentionColumnsTest, RejectsQueryAndKeyWeightsOfDifferentSizes) {
    const parameters good = odd_shape();
    parameters p = odd_shape();
    p.W_k = p.W_v;  // (d_v, D) = (4, 5), but the keys must have d_k = 3 rows like the queries
    ATTN_EXPECT_REJECTS(
        attn::scaled_dot_product_self_attention(good.X, good.W_v, good.W_q, good.W_k, good.b_v,
                                                good.b_q, good.b_k),
        attn::scaled_dot_product_self_attention(p.X, p.W_v, p.W_q, p.W_k, p.b_v, p.b_q, p.b_k),
        "W_k of shape " + attn::shape_string(p.W_k.shape()) + ", W_q of " +
            attn::shape_string(p.W_q.shape()) + ": another d_k",
        attn::shape_error, "must equal d_k (W_q.shape(0)) = " + std::to_string(p.W_q.shape(0)),
        stub_line("arguments::scaled_dot_product_self_attention("));
}

TEST(SelfAttentionColumnsTest, RejectsBiasesOfWrongShape) {
    const parameters good = odd_shape();
    parameters p = odd_shape();
    p.b_q = xt::transpose(p.b_q);  // a row (1, d_k), not a column
    ATTN_EXPECT_REJECTS(
        attn::scaled_dot_product_self_attention(good.X, good.W_v, good.W_q, good.W_k, good.b_v,
                                                good.b_q, good.b_k),
        attn::scaled_dot_product_self_attention(p.X, p.W_v, p.W_q, p.W_k, p.b_v, p.b_q, p.b_k),
        "b_q as a row, shape " + attn::shape_string(p.b_q.shape()), attn::shape_error,
        "b_q must be one column, shape (d_k, 1), but has shape " +
            attn::shape_string(p.b_q.shape()),
        stub_line("arguments::scaled_dot_product_self_attention("));
    p = odd_shape();
    p.b_v = p.b_q;  // (d_k, 1) = (3, 1), but the values have d_v = 4 rows
    ATTN_EXPECT_REJECTS(
        attn::scaled_dot_product_self_attention(good.X, good.W_v, good.W_q, good.W_k, good.b_v,
                                                good.b_q, good.b_k),
        attn::scaled_dot_product_self_attention(p.X, p.W_v, p.W_q, p.W_k, p.b_v, p.b_q, p.b_k),
        "b_v of shape " + attn::shape_string(p.b_v.shape()) +
            " where d_v = " + std::to_string(p.W_v.shape(0)) + " rows belong",
        attn::shape_error, "must equal d_v (W_v.shape(0)) = " + std::to_string(p.W_v.shape(0)),
        stub_line("arguments::scaled_dot_product_self_attention("));
}

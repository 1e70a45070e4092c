// tests/test_07_scaled_attention.cpp — Exercise 07: scaled dot-product attention for one
// query, step by step (ch03.ipynb In [19] to In [22]; 12_1_Self_Attention.ipynb Exercises 2,
// 4, 5 and 6). Compiled once; linked against exercises/ and solutions/07_scaled_attention.cpp,
// and the reference solutions of the earlier exercises. The cases, among them
// weights_lesson_d_k_64 (why the scores are divided by sqrt(d_k)), are in
// reference_data/07_scaled_attention/.
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xview.hpp>

#include <stdexcept>
#include <string>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(attention_scores) {
    const auto query = the_case.input<1>("query");  // (d_k,)
    const auto keys = the_case.input<2>("keys");    // (T, d_k)
    ATTN_RESULT("scores", attn::attention_scores(query, keys));
}

ATTN_CASE(scaled_attention_weights) {
    const auto scores = the_case.input<1>("scores");  // (T,)
    const auto d_k = static_cast<std::size_t>(the_case.integer("d_k"));
    ATTN_RESULT("weights", attn::scaled_attention_weights(scores, d_k));
}

ATTN_CASE(weighted_values) {
    const auto weights = the_case.input<1>("weights");  // (T,)
    const auto values = the_case.input<2>("values");    // (T, d_v)
    ATTN_RESULT("context", attn::weighted_values(weights, values));
}

// Exercise 2's scaled scores of one query, and Exercise 4's weights: their softmax (exercise
// 03's reference softmax, so only the scores are yours).
ATTN_CASE(scaled_scores_column) {
    const auto keys = the_case.input<2>("keys");    // (d_k, N)
    const auto query = the_case.input<2>("query");  // (d_k, 1)
    const attn::Vector scores = ATTN_RESULT("scores", attn::scaled_scores_column(keys, query));
    ATTN_RESULT("weights", attn::softmax(scores));
}

ATTN_CASE(weighted_values_column) {
    const auto weights = the_case.input<1>("weights");  // (N,)
    const auto values = the_case.input<2>("values");    // (d_v, N)
    ATTN_RESULT("x_prime", attn::weighted_values_column(weights, values));
}

// The column query's attention is its scaled scores, then the weighted values: where both fail, fix
// the callee first.
ATTN_CASE_CALLS(self_attention_column_query, "scaled_scores_column", "weighted_values_column");

ATTN_CASE(self_attention_column_query) {
    const auto queries = the_case.input<2>("queries");  // (d_k, N)
    const auto keys = the_case.input<2>("keys");        // (d_k, N)
    const auto values = the_case.input<2>("values");    // (d_v, N)
    const auto n = static_cast<std::size_t>(the_case.integer("n"));
    ATTN_RESULT("x_prime", attn::self_attention_column_query(queries, keys, values, n));
}

TEST(ScaledAttentionTest, RejectsKeysOfAnotherLength) {
    const auto query = case_input<1>("07_scaled_attention/scores_seed42", "query");  // (2,)
    const auto keys = case_input<2>("07_scaled_attention/scores_seed42", "keys");    // (6, 2)
    const attn::Matrix keys_transposed = xt::transpose(keys);
    ATTN_EXPECT_REJECTS(
        attn::attention_scores(query, keys), attn::attention_scores(query, keys_transposed),
        "keys transposed, shape " + attn::shape_string(keys_transposed.shape()) + " = (d_k, T)",
        attn::shape_error,
        "keys has shape " + attn::shape_string(keys_transposed.shape()) +
            ", but its dimension 1 must equal d_k (the length of query) = " +
            std::to_string(query.shape(0)),
        stub_line("arguments::attention_scores("));
}

TEST(ScaledAttentionTest, RejectsZeroKeyLength) {
    const auto scores = case_input<1>("07_scaled_attention/weights_seed42", "scores");
    const std::size_t some_d_k = scores.size();  // any d_k > 0 is valid
    ATTN_EXPECT_REJECTS(attn::scaled_attention_weights(scores, some_d_k),
                        attn::scaled_attention_weights(scores, 0), "d_k = 0", std::invalid_argument,
                        "d_k is 0", stub_line("arguments::scaled_attention_weights("));
    ATTN_EXPECT_REJECTS(attn::scaled_attention_weights(scores, 1),
                        attn::scaled_attention_weights(attn::Vector{}, 1), "no scores, shape (0,)",
                        attn::shape_error, "scores is empty",
                        stub_line("arguments::scaled_attention_weights("));
}

TEST(ScaledAttentionTest, RejectsWeightsOfWrongLength) {
    const auto values = case_input<2>("07_scaled_attention/context_seed42", "values");  // (6, 2)
    const auto weights = case_input<1>("07_scaled_attention/context_seed42", "weights");
    const attn::Vector one_too_many = xt::zeros<float>({values.shape(0) + 1});
    ATTN_EXPECT_REJECTS(
        attn::weighted_values(weights, values), attn::weighted_values(one_too_many, values),
        "weights of length T + 1 = " + std::to_string(one_too_many.size()), attn::shape_error,
        "must equal T (values.shape(0)) = " + std::to_string(values.shape(0)),
        stub_line("arguments::weighted_values("));
    const auto column_values = case_input<2>("07_scaled_attention/column_values_x1", "values");
    const auto column_weights = case_input<1>("07_scaled_attention/column_values_x1", "weights");
    ATTN_EXPECT_REJECTS(
        attn::weighted_values_column(column_weights, column_values),
        attn::weighted_values_column(one_too_many, column_values),
        "weights of length " + std::to_string(one_too_many.size()) +
            " for N = " + std::to_string(column_values.shape(1)) + " tokens",
        attn::shape_error,
        "must equal N (values.shape(1)) = " + std::to_string(column_values.shape(1)),
        stub_line("arguments::weighted_values_column("));
}

TEST(ScaledAttentionTest, RejectsQueryThatIsNotOneColumn) {
    const std::string key = "07_scaled_attention/column_query_x1";
    const auto queries = case_input<2>(key, "queries");  // (4, 3): every query, not one
    const auto keys = case_input<2>(key, "keys");
    const attn::Matrix query = xt::view(queries, xt::all(), xt::range(0, 1));  // (d_k, 1)
    const attn::kit::check_line check = stub_line("arguments::scaled_scores_column(");
    ATTN_EXPECT_REJECTS(
        attn::scaled_scores_column(keys, query), attn::scaled_scores_column(keys, queries),
        "every query at once, shape " + attn::shape_string(queries.shape()), attn::shape_error,
        "query must be one column, shape (d_k, 1), but has shape " +
            attn::shape_string(queries.shape()),
        check);
    const attn::Matrix query_row = xt::transpose(query);
    ATTN_EXPECT_REJECTS(
        attn::scaled_scores_column(keys, query), attn::scaled_scores_column(keys, query_row),
        "the query as a row, shape " + attn::shape_string(query_row.shape()), attn::shape_error,
        "but has shape " + attn::shape_string(query_row.shape()), check);
}

TEST(ScaledAttentionTest, RejectsQueryIndexPastTheLastToken) {
    const std::string key = "07_scaled_attention/column_query_x1";
    const auto queries = case_input<2>(key, "queries");
    const auto keys = case_input<2>(key, "keys");
    const auto values = case_input<2>(key, "values");
    const std::size_t N = queries.shape(1);
    ATTN_EXPECT_REJECTS(
        attn::self_attention_column_query(queries, keys, values, 0),
        attn::self_attention_column_query(queries, keys, values, N),
        "n = N = " + std::to_string(N) + ", one past the last token", std::out_of_range,
        "n " + std::to_string(N) + " is out of range for " + std::to_string(N) + " tokens",
        stub_line("arguments::self_attention_column_query("));
    const attn::Matrix fewer_values = xt::view(values, xt::all(), xt::range(0, N - 1));
    ATTN_EXPECT_REJECTS(attn::self_attention_column_query(queries, keys, values, 0),
                        attn::self_attention_column_query(queries, keys, fewer_values, 0),
                        "values of N - 1 = " + std::to_string(N - 1) + " tokens", attn::shape_error,
                        "must equal N (queries.shape(1)) = " + std::to_string(N),
                        stub_line("arguments::self_attention_column_query("));
}

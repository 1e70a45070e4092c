// solutions/07_scaled_attention.cpp — reference solution of Exercise 07: scaled dot-product
// attention for one query, step by step.
//
// Source: ch03.ipynb In [19] to In [22]; 12_1_Self_Attention.ipynb Exercises 2, 4, 5 and 6
// (see exercises/07_scaled_attention.cpp). Declared in include/attn/trainable_attention.hpp.
// Uses exercise 03 (softmax); the kit links its reference solution.
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

Vector attention_scores(const Vector& query, const Matrix& keys) {
    checks::require_non_empty("attention_scores", "query", query);
    checks::require_non_empty("attention_scores", "keys", keys);
    checks::require_length("attention_scores", "keys", keys, 1, query.shape(0),
                           "d_k (the length of query)");

    return xt::linalg::dot(keys, query);  // scores[t] = dot(keys[t], query)
}

Vector scaled_attention_weights(const Vector& scores, std::size_t d_k) {
    checks::require_non_empty("scaled_attention_weights", "scores", scores);
    if (d_k == 0) {
        throw std::invalid_argument(
            "scaled_attention_weights: d_k is 0, but it is the length "
            "of a key vector: at least 1");
    }

    const Vector scaled = scores / std::sqrt(static_cast<float>(d_k));
    return softmax(scaled);
}

Vector weighted_values(const Vector& weights, const Matrix& values) {
    checks::require_non_empty("weighted_values", "values", values);
    checks::require_length("weighted_values", "weights", weights, 0, values.shape(0),
                           "T (values.shape(0))");

    return xt::linalg::dot(weights, values);  // context[j] = sum_t weights[t] * values[t, j]
}

Vector scaled_scores_column(const Matrix& keys, const Matrix& query) {
    checks::require_non_empty("scaled_scores_column", "keys", keys);
    checks::require_non_empty("scaled_scores_column", "query", query);
    checks::require_column("scaled_scores_column", "query", query, "d_k");
    checks::require_length("scaled_scores_column", "keys", keys, 0, query.shape(0),
                           "d_k (query.shape(0))");

    const Vector q = xt::col(query, 0);
    const Vector dots = xt::linalg::dot(xt::transpose(keys), q);  // dots[m] = dot(keys[:, m], q)
    return dots / std::sqrt(static_cast<float>(query.shape(0)));
}

Matrix weighted_values_column(const Vector& weights, const Matrix& values) {
    checks::require_non_empty("weighted_values_column", "values", values);
    checks::require_length("weighted_values_column", "weights", weights, 0, values.shape(1),
                           "N (values.shape(1))");

    Matrix x_prime = xt::zeros<float>({values.shape(0), std::size_t{1}});
    xt::col(x_prime, 0) = xt::linalg::dot(values, weights);  // sum_m weights[m] * values[:, m]
    return x_prime;
}

Matrix self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                   std::size_t n) {
    checks::require_non_empty("self_attention_column_query", "queries", queries);
    checks::require_length("self_attention_column_query", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");
    checks::require_length("self_attention_column_query", "keys", keys, 1, queries.shape(1),
                           "N (queries.shape(1))");
    checks::require_length("self_attention_column_query", "values", values, 1, queries.shape(1),
                           "N (queries.shape(1))");
    checks::require_non_empty("self_attention_column_query", "values", values);
    checks::require_row_index("self_attention_column_query", "n", n, queries.shape(1));

    const Matrix query = xt::view(queries, xt::all(), xt::range(n, n + 1));  // (d_k, 1)
    return weighted_values_column(softmax(scaled_scores_column(keys, query)), values);
}

}  // namespace attn

// tests/kit/slips/07_scaled_attention.cpp — solutions/07_scaled_attention.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The row convention, one step at a time: the scores, their scale, the weighted values.
// slip: scaled_too_early -> divided the scores by sqrt(d_k) already
// slip: unscaled -> left out the division by sqrt(d_k)
// slip: divided_by_d_k -> divided by d_k instead of sqrt(d_k)
// slip: multiplied_by_sqrt -> multiplied by sqrt(d_k) instead of dividing
// slip: scaled_after_softmax -> divided the weights by sqrt(d_k) after softmax
// slip: sqrt_of_T -> divided by sqrt(T)
// not yet named: integer_root (the root kept in a size_t: "6 of 6 values differ; worst at
//   [0]: got 0.565926, expected 0.43619", unnamed; at d_k = 2 it is the unscaled slip)
// slip: last_value_skipped -> left out the last token
// The column convention (12_1_Self_Attention.ipynb): keys and queries are columns.
// slip: column_sqrt_of_N -> divided by sqrt(N)
// slip: key_as_query -> used key n as the query
// slip: weighted_keys -> weighted the keys instead of the values
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

Vector attention_scores(const Vector& query, const Matrix& keys) {
    arguments::attention_scores(query, keys);  // bad input -> a clear error

    if (slip("scaled_too_early")) {
        return xt::linalg::dot(keys, query) / std::sqrt(static_cast<float>(keys.shape(1)));
    }
    return xt::linalg::dot(keys, query);  // scores[t] = dot(keys[t], query)
}

Vector scaled_attention_weights(const Vector& scores, std::size_t d_k) {
    arguments::scaled_attention_weights(scores, d_k);  // bad input -> a clear error

    float scale = std::sqrt(static_cast<float>(d_k));
    if (slip("unscaled")) scale = 1.0f;
    if (slip("divided_by_d_k")) scale = static_cast<float>(d_k);
    if (slip("multiplied_by_sqrt")) scale = 1.0f / std::sqrt(static_cast<float>(d_k));
    if (slip("sqrt_of_T")) scale = std::sqrt(static_cast<float>(scores.size()));
    // The root kept in an integer: sqrt(2) becomes 1, sqrt(4) stays 2.
    if (slip("integer_root")) scale = static_cast<std::size_t>(std::sqrt(d_k));
    if (slip("scaled_after_softmax")) return softmax(scores) / scale;
    const Vector scaled = scores / scale;
    return softmax(scaled);
}

Vector weighted_values(const Vector& weights, const Matrix& values) {
    arguments::weighted_values(weights, values);  // bad input -> a clear error

    if (slip("last_value_skipped")) {  // t < T - 1
        Vector context = xt::zeros<float>({values.shape(1)});
        for (std::size_t t = 0; t < values.shape(0) - 1; ++t) {
            context += weights(t) * xt::row(values, t);
        }
        return context;
    }
    return xt::linalg::dot(weights, values);  // context[j] = sum_t weights[t] * values[t, j]
}

Vector scaled_scores_column(const Matrix& keys, const Matrix& query) {
    arguments::scaled_scores_column(keys, query);  // bad input -> a clear error

    const Vector q = xt::col(query, 0);
    const Vector dots = xt::linalg::dot(xt::transpose(keys), q);  // dots[m] = dot(keys[:, m], q)
    if (slip("column_sqrt_of_N")) return dots / std::sqrt(static_cast<float>(keys.shape(1)));
    return dots / std::sqrt(static_cast<float>(query.shape(0)));
}

Matrix weighted_values_column(const Vector& weights, const Matrix& values) {
    arguments::weighted_values_column(weights, values);  // bad input -> a clear error

    Matrix x_prime = xt::zeros<float>({values.shape(0), std::size_t{1}});
    xt::col(x_prime, 0) = xt::linalg::dot(values, weights);  // sum_m weights[m] * values[:, m]
    return x_prime;
}

Matrix self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                   std::size_t n) {
    arguments::self_attention_column_query(queries, keys, values, n);  // bad input -> a clear error

    const Matrix& asked = slip("key_as_query") ? keys : queries;
    const Matrix query = xt::view(asked, xt::all(), xt::range(n, n + 1));  // (d_k, 1)
    const Matrix& mixed = slip("weighted_keys") ? keys : values;
    return weighted_values_column(softmax(scaled_scores_column(keys, query)), mixed);
}

}  // namespace attn

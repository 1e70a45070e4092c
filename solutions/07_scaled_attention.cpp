// solutions/07_scaled_attention.cpp — reference solution of Exercise 07: scaled dot-product
// attention for one query, step by step.
//
// Source: ch03.ipynb In [19] to In [22]; 12_1_Self_Attention.ipynb Exercises 2, 4, 5 and 6
// (see exercises/07_scaled_attention.cpp). Declared in include/attn/trainable_attention.hpp.
// Uses exercise 03 (softmax); the kit links its reference solution.
#include "attn/arguments.hpp"
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
    arguments::attention_scores(query, keys);  // bad input -> a clear error

    return xt::linalg::dot(keys, query);  // scores[t] = dot(keys[t], query)
}

Vector scaled_attention_weights(const Vector& scores, std::size_t d_k) {
    arguments::scaled_attention_weights(scores, d_k);  // bad input -> a clear error

    const Vector scaled = scores / std::sqrt(static_cast<float>(d_k));
    return softmax(scaled);
}

Vector weighted_values(const Vector& weights, const Matrix& values) {
    arguments::weighted_values(weights, values);  // bad input -> a clear error

    return xt::linalg::dot(weights, values);  // context[j] = sum_t weights[t] * values[t, j]
}

Vector scaled_scores_column(const Matrix& keys, const Matrix& query) {
    arguments::scaled_scores_column(keys, query);  // bad input -> a clear error

    const Vector q = xt::col(query, 0);
    const Vector dots = xt::linalg::dot(xt::transpose(keys), q);  // dots[m] = dot(keys[:, m], q)
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

    const Matrix query = xt::view(queries, xt::all(), xt::range(n, n + 1));  // (d_k, 1)
    return weighted_values_column(softmax(scaled_scores_column(keys, query)), values);
}

}  // namespace attn

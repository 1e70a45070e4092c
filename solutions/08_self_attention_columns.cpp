// solutions/08_self_attention_columns.cpp — reference solution of Exercise 08: self-attention
// in matrix form, column convention.
//
// Source: 12_1_Self_Attention.ipynb Exercise 7 (see exercises/08_self_attention_columns.cpp).
// Declared in include/attn/trainable_attention.hpp. Uses exercises 03 (softmax) and 06
// (project_columns); the kit links their reference solutions.
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

#include <cmath>

namespace attn {

Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    checks::require_non_empty("attention_weights_columns", "queries", queries);
    checks::require_non_empty("attention_weights_columns", "keys", keys);
    checks::require_length("attention_weights_columns", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");

    const Matrix scores = xt::linalg::dot(xt::transpose(keys), queries);  // (N, N)
    const Matrix scaled = scores / std::sqrt(static_cast<float>(keys.shape(0)));
    return softmax(scaled, 0);  // softmax_cols: every column sums to 1
}

Matrix scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                         const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                         const Matrix& b_k) {
    const char* const function = "scaled_dot_product_self_attention";
    checks::require_non_empty(function, "X", X);
    checks::require_non_empty(function, "W_q", W_q);
    checks::require_non_empty(function, "W_v", W_v);
    checks::require_length(function, "W_v", W_v, 1, X.shape(0), "D (X.shape(0))");
    checks::require_length(function, "W_q", W_q, 1, X.shape(0), "D (X.shape(0))");
    checks::require_length(function, "W_k", W_k, 1, X.shape(0), "D (X.shape(0))");
    checks::require_length(function, "W_k", W_k, 0, W_q.shape(0), "d_k (W_q.shape(0))");
    checks::require_column(function, "b_v", b_v, "d_v");
    checks::require_column(function, "b_q", b_q, "d_k");
    checks::require_column(function, "b_k", b_k, "d_k");
    checks::require_length(function, "b_v", b_v, 0, W_v.shape(0), "d_v (W_v.shape(0))");
    checks::require_length(function, "b_q", b_q, 0, W_q.shape(0), "d_k (W_q.shape(0))");
    checks::require_length(function, "b_k", b_k, 0, W_k.shape(0), "d_k (W_k.shape(0))");

    const Matrix queries = project_columns(W_q, X, b_q);  // (d_k, N)
    const Matrix keys = project_columns(W_k, X, b_k);     // (d_k, N)
    const Matrix values = project_columns(W_v, X, b_v);   // (d_v, N)
    return xt::linalg::dot(values, attention_weights_columns(queries, keys));
}

}  // namespace attn

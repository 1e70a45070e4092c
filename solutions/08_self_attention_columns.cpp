// solutions/08_self_attention_columns.cpp — reference solution of Exercise 08: self-attention
// in matrix form, column convention.
//
// Source: 12_1_Self_Attention.ipynb Exercise 7 (see exercises/08_self_attention_columns.cpp).
// Declared in include/attn/trainable_attention.hpp. Uses exercises 03 (softmax) and 06
// (project_columns); the kit links their reference solutions.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

#include <cmath>

namespace attn {

Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    arguments::attention_weights_columns(queries, keys);  // bad input -> a clear error

    const Matrix scores = xt::linalg::dot(xt::transpose(keys), queries);  // (N, N)
    const Matrix scaled = scores / std::sqrt(static_cast<float>(keys.shape(0)));
    return softmax(scaled, 0);  // softmax_cols: every column sums to 1
}

Matrix scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                         const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                         const Matrix& b_k) {
    // bad input -> a clear error
    arguments::scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k);

    const Matrix queries = project_columns(W_q, X, b_q);  // (d_k, N)
    const Matrix keys = project_columns(W_k, X, b_k);     // (d_k, N)
    const Matrix values = project_columns(W_v, X, b_v);   // (d_v, N)
    return xt::linalg::dot(values, attention_weights_columns(queries, keys));
}

}  // namespace attn

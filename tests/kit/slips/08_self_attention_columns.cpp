// tests/kit/slips/08_self_attention_columns.cpp — solutions/08_self_attention_columns.cpp with
// the slips students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py
// runs them all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The column convention's weights: a token is a column, and so is each query's distribution.
// slip: unscaled -> left out the division by sqrt(d_k)
// slip: sqrt_of_N -> divided by sqrt(N)
// slip: scores_transposed -> computed queries.T @ keys
// slip: row_softmax -> softmax over the wrong axis (dim=1 instead of dim=0)
// The whole of Exercise 7: the projections and the product with the values.
// slip: weights_transposed -> multiplied the values by the transposed weights
// slip: forgot_bias -> left out the biases
// slip: swapped_W_v_W_q -> used W_v for the queries and W_q for the values
// slip: returned_weights -> returned the attention weights
// not yet named: weights_on_the_left (weights @ values.T: "has shape (3, 4), expected (4, 3)",
//   no mistake named)
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>

#include <cmath>

namespace attn {

Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    arguments::attention_weights_columns(queries, keys);  // bad input -> a clear error

    const Matrix scores = slip("scores_transposed")
                              ? Matrix(xt::linalg::dot(xt::transpose(queries), keys))
                              : Matrix(xt::linalg::dot(xt::transpose(keys), queries));  // (N, N)
    float scale = std::sqrt(static_cast<float>(keys.shape(0)));
    if (slip("unscaled")) scale = 1.0f;
    if (slip("sqrt_of_N")) scale = std::sqrt(static_cast<float>(keys.shape(1)));
    const Matrix scaled = scores / scale;
    // softmax_cols: every column sums to 1; the slip takes the row convention's dim
    return softmax(scaled, slip("row_softmax") ? -1 : 0);
}

Matrix scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                         const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                         const Matrix& b_k) {
    // bad input -> a clear error
    arguments::scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k);

    if (slip("forgot_bias")) {
        const Matrix queries = xt::linalg::dot(W_q, X);
        const Matrix keys = xt::linalg::dot(W_k, X);
        const Matrix values = xt::linalg::dot(W_v, X);
        return xt::linalg::dot(values, attention_weights_columns(queries, keys));
    }
    if (slip("swapped_W_v_W_q")) {  // (X, W_q, W_k, W_v, ...) read as the queries first
        const Matrix queries = project_columns(W_v, X, b_v);
        const Matrix keys = project_columns(W_k, X, b_k);
        const Matrix values = project_columns(W_q, X, b_q);
        return xt::linalg::dot(values, attention_weights_columns(queries, keys));
    }
    const Matrix queries = project_columns(W_q, X, b_q);  // (d_k, N)
    const Matrix keys = project_columns(W_k, X, b_k);     // (d_k, N)
    const Matrix values = project_columns(W_v, X, b_v);   // (d_v, N)
    const Matrix weights = attention_weights_columns(queries, keys);
    if (slip("returned_weights")) return weights;
    if (slip("weights_transposed")) return xt::linalg::dot(values, xt::transpose(weights));
    if (slip("weights_on_the_left")) {  // weights @ values.T, the row convention's order
        return xt::linalg::dot(weights, xt::transpose(values));
    }
    return xt::linalg::dot(values, weights);
}

}  // namespace attn

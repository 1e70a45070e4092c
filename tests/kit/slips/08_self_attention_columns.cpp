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
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>

#include <cmath>

namespace attn {

Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    checks::require_non_empty("attention_weights_columns", "queries", queries);
    checks::require_non_empty("attention_weights_columns", "keys", keys);
    checks::require_length("attention_weights_columns", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");

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

// tests/kit/slips/09_self_attention_v1.cpp — solutions/09_self_attention_v1.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The scale of the scores.
// slip: unscaled -> left out the division by sqrt(d_k)
// slip: scaled_by_d_in -> sqrt(d_in)
// not yet named: d_k_from_the_rows (keys.shape(0), T, for d_k: "12 of 12 values differ; worst
//   at [1, 0]: got 0.295507, expected 0.3061", unnamed)
// slip: scaled_after_softmax -> divided the weights, not the scores, by sqrt(d_k)
// The products' order and which projection goes where.
// slip: keys_times_queries -> scored keys @ queries.T
// slip: weights_transposed -> multiplied the values by the transposed weights
// slip: column_softmax -> softmax over the columns
// slip: queries_as_keys -> used the queries as keys
// slip: keys_as_values -> used the keys as values
// slip: weighted_inputs -> weighted the inputs instead of the values
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v1::forward(const Matrix& x) const {
    arguments::self_attention_v1_forward(x, W_query, W_key, W_value);  // bad input -> a clear error

    const Matrix queries = xt::linalg::dot(x, W_query);  // (T, d_out)
    const Matrix keys = slip("queries_as_keys") ? queries : Matrix(xt::linalg::dot(x, W_key));
    const Matrix values = slip("keys_as_values") ? keys : Matrix(xt::linalg::dot(x, W_value));

    const Matrix scores = slip("keys_times_queries")
                              ? Matrix(xt::linalg::dot(keys, xt::transpose(queries)))
                              : Matrix(xt::linalg::dot(queries, xt::transpose(keys)));  // (T, T)
    float d_k = static_cast<float>(keys.shape(1));
    if (slip("scaled_by_d_in")) d_k = static_cast<float>(x.shape(1));
    if (slip("unscaled")) d_k = 1.0f;
    if (slip("d_k_from_the_rows")) d_k = static_cast<float>(keys.shape(0));  // T, not d_out
    if (slip("scaled_after_softmax")) {
        const Matrix weights = softmax(scores, -1) / std::sqrt(d_k);
        return xt::linalg::dot(weights, values);
    }
    const Matrix scaled = scores / std::sqrt(d_k);
    const int dim = slip("column_softmax") ? 0 : -1;
    const Matrix weights = softmax(scaled, dim);  // each row sums to 1
    if (slip("weights_transposed")) return xt::linalg::dot(xt::transpose(weights), values);
    if (slip("weighted_inputs")) return xt::linalg::dot(weights, x);
    return xt::linalg::dot(weights, values);  // (T, d_out)
}

}  // namespace attn

// tests/kit/slips/10_self_attention_v2.cpp — solutions/10_self_attention_v2.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// nn.Linear's forward, x @ weight.T + bias, written by hand.
// slip: weight_not_transposed -> without transposing the weight
// slip: bias_ignored -> left out the biases
// slip: bias_subtracted -> subtracted the biases
// The attention after the projections, as in exercise 09.
// slip: unscaled -> left out the division by sqrt(d_k)
// slip: scaled_by_d_in -> sqrt(d_in)
// d_k read from the weight's shape(1), as v1's (d_in, d_out) matrix has it: d_in here.
// slip: d_k_from_the_weight -> sqrt(d_in)
// slip: column_softmax -> softmax over the columns
// slip: keys_times_queries -> scored keys @ queries.T
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v2::forward(const Matrix& x) const {
    arguments::self_attention_v2_forward(x, W_query, W_key, W_value);  // bad input -> a clear error

    // nn.Linear's forward: x (T, d_in) @ weight.T (d_in, d_out) + bias (d_out,) -> (T, d_out).
    const auto apply = [&x](const Linear& layer) {
        Matrix projected = slip("weight_not_transposed")
                               ? Matrix(xt::linalg::dot(x, layer.weight))
                               : Matrix(xt::linalg::dot(x, xt::transpose(layer.weight)));
        if (layer.has_bias() && !slip("bias_ignored")) {
            if (slip("bias_subtracted")) {
                projected -= layer.bias;
            } else {
                projected += layer.bias;  // the bias broadcasts over the T rows
            }
        }
        return projected;
    };

    const Matrix queries = apply(W_query);  // (T, d_out)
    const Matrix keys = apply(W_key);       // (T, d_out)
    const Matrix values = apply(W_value);   // (T, d_out)

    const Matrix scores = slip("keys_times_queries")
                              ? Matrix(xt::linalg::dot(keys, xt::transpose(queries)))
                              : Matrix(xt::linalg::dot(queries, xt::transpose(keys)));  // (T, T)
    float d_k = static_cast<float>(keys.shape(1));
    if (slip("scaled_by_d_in")) d_k = static_cast<float>(x.shape(1));
    if (slip("d_k_from_the_weight")) d_k = static_cast<float>(W_key.weight.shape(1));  // d_in
    if (slip("unscaled")) d_k = 1.0f;
    const Matrix scaled = scores / std::sqrt(d_k);
    const int dim = slip("column_softmax") ? 0 : -1;
    const Matrix weights = softmax(scaled, dim);  // each row sums to 1
    return xt::linalg::dot(weights, values);      // (T, d_out)
}

}  // namespace attn

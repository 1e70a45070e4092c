// solutions/10_self_attention_v2.cpp — reference solution of Exercise 10: SelfAttention_v2.
//
// Source: ch03.ipynb In [24] (see exercises/10_self_attention_v2.cpp). Declared in
// include/attn/self_attention.hpp. Uses exercise 03 (softmax); the kit links its reference
// solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v2::forward(const Matrix& x) const {
    arguments::self_attention_v2_forward(x, W_query, W_key, W_value);  // bad input -> a clear error

    // nn.Linear's forward: x (T, d_in) @ weight.T (d_in, d_out) + bias (d_out,) -> (T, d_out).
    const auto apply = [&x](const Linear& layer) {
        Matrix projected = xt::linalg::dot(x, xt::transpose(layer.weight));
        if (layer.has_bias()) projected += layer.bias;  // the bias broadcasts over the T rows
        return projected;
    };

    const Matrix queries = apply(W_query);  // (T, d_out)
    const Matrix keys = apply(W_key);       // (T, d_out)
    const Matrix values = apply(W_value);   // (T, d_out)

    const Matrix scores = xt::linalg::dot(queries, xt::transpose(keys));  // (T, T)
    const float d_k = static_cast<float>(keys.shape(1));
    const Matrix scaled = scores / std::sqrt(d_k);
    const Matrix weights = softmax(scaled, -1);  // each row sums to 1
    return xt::linalg::dot(weights, values);     // (T, d_out)
}

}  // namespace attn

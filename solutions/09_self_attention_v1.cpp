// solutions/09_self_attention_v1.cpp — reference solution of Exercise 09: SelfAttention_v1.
//
// Source: ch03.ipynb In [23] (see exercises/09_self_attention_v1.cpp). Declared in
// include/attn/self_attention.hpp. Uses exercise 03 (softmax); the kit links its reference
// solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v1::forward(const Matrix& x) const {
    arguments::self_attention_v1_forward(x, W_query, W_key, W_value);  // bad input -> a clear error

    const Matrix queries = xt::linalg::dot(x, W_query);  // (T, d_out)
    const Matrix keys = xt::linalg::dot(x, W_key);       // (T, d_out)
    const Matrix values = xt::linalg::dot(x, W_value);   // (T, d_out)

    const Matrix scores = xt::linalg::dot(queries, xt::transpose(keys));  // (T, T)
    const float d_k = static_cast<float>(keys.shape(1));
    const Matrix scaled = scores / std::sqrt(d_k);
    const Matrix weights = softmax(scaled, -1);  // each row sums to 1
    return xt::linalg::dot(weights, values);     // (T, d_out)
}

}  // namespace attn

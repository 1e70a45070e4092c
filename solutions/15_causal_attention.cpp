// solutions/15_causal_attention.cpp — reference solution of Exercise 15: CausalAttention on a
// batch.
//
// Source: ch03.ipynb In [34] (see exercises/15_causal_attention.cpp). Declared in
// include/attn/causal_attention.hpp. Uses exercise 03 (softmax); the kit links its reference
// solution.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace attn {

Tensor3 CausalAttention::forward(const Tensor3& x) const {
    arguments::causal_attention_forward(x, d_in(), context_length());  // bad input -> a clear error

    const std::size_t B = x.shape(0), T = x.shape(1), d_out = W_query.weight.shape(0);
    const float scale = std::sqrt(static_cast<float>(d_out));
    Tensor3 context = xt::zeros<float>({B, T, d_out});
    for (std::size_t b = 0; b < B; ++b) {
        const Matrix x_b = xt::view(x, b, xt::all(), xt::all());  // (T, d_in)
        // x_b @ layer.weight.T (+ bias, broadcast along the rows): (T, d_in) -> (T, d_out)
        const auto project = [&x_b](const Linear& layer) {
            Matrix projected = xt::linalg::dot(x_b, xt::transpose(layer.weight));
            if (layer.has_bias()) projected += layer.bias;
            return projected;
        };
        const Matrix queries = project(W_query);  // (T, d_out)
        const Matrix keys = project(W_key);
        const Matrix values = project(W_value);

        Matrix scores = xt::linalg::dot(queries, xt::transpose(keys));  // (T, T)
        for (std::size_t i = 0; i < T; ++i) {
            for (std::size_t j = 0; j < T; ++j) {
                if (mask(i, j) != 0.0f) {  // mask[:T, :T]
                    scores(i, j) = -std::numeric_limits<float>::infinity();
                }
            }
        }
        const Matrix weights = softmax(Matrix(scores / scale), -1);
        xt::view(context, b, xt::all(), xt::all()) = xt::linalg::dot(weights, values);
    }
    return context;
}

}  // namespace attn

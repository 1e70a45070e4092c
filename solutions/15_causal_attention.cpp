// solutions/15_causal_attention.cpp — reference solution of Exercise 15: CausalAttention on a
// batch.
//
// Source: ch03.ipynb In [34] (see exercises/15_causal_attention.cpp). Declared in
// include/attn/causal_attention.hpp. Uses exercises 03 (softmax) and 13 (future_mask); the kit
// links their reference solutions.
#include "attn/causal_attention.hpp"
#include "attn/checks.hpp"
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

CausalAttention make_causal_attention(Linear W_query, Linear W_key, Linear W_value,
                                      std::size_t context_length) {
    const std::string function = "make_causal_attention";
    checks::require_layer_like(function, "W_query", W_query, "W_query", W_query);
    checks::require_layer_like(function, "W_key", W_key, "W_query", W_query);
    checks::require_layer_like(function, "W_value", W_value, "W_query", W_query);
    checks::require_positive("make_causal_attention", "context_length", context_length);

    Matrix mask = future_mask(context_length);  // exercise 13: 1 above the diagonal
    return {std::move(W_query), std::move(W_key), std::move(W_value), std::move(mask)};
}

Tensor3 causal_attention_forward(const CausalAttention& module, const Tensor3& x) {
    checks::require_non_empty("causal_attention_forward", "x", x);
    checks::require_length("causal_attention_forward", "x", x, 2, module.W_query.weight.shape(1),
                           "d_in of the weights");
    if (x.shape(1) > module.context_length()) {
        throw shape_error("causal_attention_forward: x has T = " + std::to_string(x.shape(1)) +
                          " tokens, more than the context_length = " +
                          std::to_string(module.context_length()) + " its mask was built for");
    }

    const std::size_t B = x.shape(0), T = x.shape(1), d_out = module.W_query.weight.shape(0);
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
        const Matrix queries = project(module.W_query);  // (T, d_out)
        const Matrix keys = project(module.W_key);
        const Matrix values = project(module.W_value);

        Matrix scores = xt::linalg::dot(queries, xt::transpose(keys));  // (T, T)
        for (std::size_t i = 0; i < T; ++i) {
            for (std::size_t j = 0; j < T; ++j) {
                if (module.mask(i, j) != 0.0f) {  // mask[:T, :T]
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

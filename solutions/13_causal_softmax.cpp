// solutions/13_causal_softmax.cpp — reference solution of Exercise 13: -inf above the
// diagonal before softmax.
//
// Source: ch03.ipynb In [29] and In [30] (see exercises/13_causal_softmax.cpp). Declared in
// include/attn/causal_attention.hpp. Uses exercise 03 (softmax); the kit links its reference
// solution.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include <cmath>
#include <limits>

namespace attn {

Matrix future_mask(std::size_t context_length) {
    arguments::future_mask(context_length);  // bad input -> a clear error

    return xt::triu(xt::ones<float>({context_length, context_length}), 1);
}

Matrix mask_future(const Matrix& scores) {
    arguments::mask_future(scores);  // bad input -> a clear error

    const std::size_t T = scores.shape(0);
    Matrix masked = scores;
    for (std::size_t i = 0; i < T; ++i) {
        for (std::size_t j = i + 1; j < T; ++j) {
            masked(i, j) = -std::numeric_limits<float>::infinity();
        }
    }
    return masked;
}

Matrix causal_attention_weights(const Matrix& scores, std::size_t d_k) {
    arguments::causal_attention_weights(scores, d_k);  // bad input -> a clear error

    const Matrix scaled = mask_future(scores) / std::sqrt(static_cast<float>(d_k));
    return softmax(scaled, -1);
}

}  // namespace attn

// solutions/05_all_context_vectors.cpp — reference solution of Exercise 05: all context vectors.
//
// Source: ch03.ipynb In [9], In [10], In [11] and In [13] (see
// exercises/05_all_context_vectors.cpp). Declared in include/attn/simple_attention.hpp.
// Uses exercise 03 (softmax); the kit links its reference solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Matrix attention_scores_loops(const Matrix& inputs) {
    arguments::attention_scores_loops(inputs);  // bad input -> a clear error

    const std::size_t T = inputs.shape(0);
    Matrix scores = xt::zeros<float>({T, T});
    for (std::size_t i = 0; i < T; ++i) {
        for (std::size_t j = 0; j < T; ++j) {
            scores(i, j) = xt::sum(xt::row(inputs, i) * xt::row(inputs, j))();
        }
    }
    return scores;
}

Matrix attention_scores_matmul(const Matrix& inputs) {
    arguments::attention_scores_matmul(inputs);  // bad input -> a clear error

    return xt::linalg::dot(inputs, xt::transpose(inputs));
}

Matrix all_context_vectors(const Matrix& inputs) {
    arguments::all_context_vectors(inputs);  // bad input -> a clear error

    const Matrix weights = softmax(attention_scores_matmul(inputs), -1);
    return xt::linalg::dot(weights, inputs);
}

}  // namespace attn

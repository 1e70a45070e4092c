// solutions/01_dot_scores.cpp — reference solution of Exercise 01: dot-product scores.
//
// Source: ch03.ipynb In [3] (the address is in exercises/01_dot_scores.cpp).
// Declared in include/attn/simple_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    arguments::dot_scores(inputs, query);  // bad input -> a clear error

    const std::size_t T = inputs.shape(0);
    Vector scores = xt::zeros<float>({T});
    for (std::size_t i = 0; i < T; ++i) {
        scores(i) = xt::sum(query * xt::row(inputs, i))();
    }
    return scores;
}

}  // namespace attn

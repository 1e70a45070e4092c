// solutions/04_context_vector.cpp — reference solution of Exercise 04: one context vector.
//
// Source: ch03.ipynb In [8], and In [3], In [7], In [8] for one query (see
// exercises/04_context_vector.cpp). Declared in include/attn/simple_attention.hpp.
// Uses exercises 01 (dot_scores) and 03 (softmax); the kit links their reference solutions.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector context_vector(const Matrix& inputs, const Vector& weights) {
    arguments::context_vector(inputs, weights);  // bad input -> a clear error

    Vector context = xt::zeros<float>({inputs.shape(1)});
    for (std::size_t i = 0; i < inputs.shape(0); ++i) {
        context += weights(i) * xt::row(inputs, i);
    }
    return context;
}

Vector context_vector_for_query(const Matrix& inputs, std::size_t query_index) {
    arguments::context_vector_for_query(inputs, query_index);  // bad input -> a clear error

    const Vector query = xt::row(inputs, query_index);
    return context_vector(inputs, softmax(dot_scores(inputs, query)));
}

}  // namespace attn

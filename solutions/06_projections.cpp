// solutions/06_projections.cpp — reference solution of Exercise 06: projections.
//
// Source: ch03.ipynb In [17], In [18]; 12_1_Self_Attention.ipynb Exercise 1 and step 1 of
// Exercise 7 (see exercises/06_projections.cpp). Declared in include/attn/trainable_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

namespace attn {

Vector project_token(const Vector& x, const Matrix& W) {
    arguments::project_token(x, W);  // bad input -> a clear error

    return xt::linalg::dot(x, W);
}

Matrix project_rows(const Matrix& inputs, const Matrix& W) {
    arguments::project_rows(inputs, W);  // bad input -> a clear error

    return xt::linalg::dot(inputs, W);
}

Matrix project_columns(const Matrix& W, const Matrix& X, const Matrix& b) {
    arguments::project_columns(W, X, b);  // bad input -> a clear error

    const Matrix product = xt::linalg::dot(W, X);  // (d_out, N)
    return product + b;                            // b (d_out, 1) broadcasts over the N columns
}

}  // namespace attn

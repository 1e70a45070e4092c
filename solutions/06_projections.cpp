// solutions/06_projections.cpp — reference solution of Exercise 06: projections.
//
// Source: ch03.ipynb In [17], In [18]; 12_1_Self_Attention.ipynb Exercise 1 and step 1 of
// Exercise 7 (see exercises/06_projections.cpp). Declared in include/attn/trainable_attention.hpp.
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

namespace attn {

Vector project_token(const Vector& x, const Matrix& W) {
    checks::require_non_empty("project_token", "x", x);
    checks::require_non_empty("project_token", "W", W);
    checks::require_length("project_token", "W", W, 0, x.shape(0), "d_in (the length of x)");

    return xt::linalg::dot(x, W);
}

Matrix project_rows(const Matrix& inputs, const Matrix& W) {
    checks::require_non_empty("project_rows", "inputs", inputs);
    checks::require_non_empty("project_rows", "W", W);
    checks::require_length("project_rows", "W", W, 0, inputs.shape(1), "d_in (inputs.shape(1))");

    return xt::linalg::dot(inputs, W);
}

Matrix project_columns(const Matrix& W, const Matrix& X, const Matrix& b) {
    checks::require_non_empty("project_columns", "W", W);
    checks::require_non_empty("project_columns", "X", X);
    checks::require_length("project_columns", "X", X, 0, W.shape(1), "D (W.shape(1))");
    checks::require_column("project_columns", "b", b, "d_out");
    checks::require_length("project_columns", "b", b, 0, W.shape(0), "d_out (W.shape(0))");

    const Matrix product = xt::linalg::dot(W, X);  // (d_out, N)
    return product + b;                            // b (d_out, 1) broadcasts over the N columns
}

}  // namespace attn

// tests/kit/slips/06_projections.cpp — solutions/06_projections.cpp with the slips students
// make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them all).
// Without ATTN_SLIP it is the solution and must pass every test.
//
// The row convention x @ W, written out as loops.
// slip: token_first_input_skipped -> left out x[0] * W[0, :]
// slip: token_last_input_skipped -> left out the last input dimension
// slip: token_weight_transposed -> multiplied by W.T instead of W
// slip: rows_first_token_only -> projected only the first token
// slip: rows_last_input_skipped -> left out the last input dimension
// The column convention W x + b: the bias.
// slip: forgot_bias -> left out the bias b
// slip: bias_first_column_only -> added b to the first column only
// slip: bias_subtracted -> subtracted the bias
// slip: bias_times_x -> multiplied by the bias instead of adding it
// not yet named: bias_as_row (b.T added: "project_columns(W, X, b) threw xt::broadcast_error:
//   Incompatible dimension of arrays: LHS shape = (4, 3, ) RHS shape = (1, 4, )", xtensor's words)
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

namespace attn {
namespace {

// x @ W as a student writes it out: entry j adds x[k] * W[k, j] over k in [first, last).
Vector loop_product(const Vector& x, const Matrix& W, std::size_t first, std::size_t last) {
    Vector out = xt::zeros<float>({W.shape(1)});
    for (std::size_t j = 0; j < W.shape(1); ++j) {
        for (std::size_t k = first; k < last; ++k) out(j) += x(k) * W(k, j);
    }
    return out;
}

}  // namespace

Vector project_token(const Vector& x, const Matrix& W) {
    arguments::project_token(x, W);  // bad input -> a clear error

    const std::size_t d_in = x.shape(0);
    if (slip("token_first_input_skipped")) return loop_product(x, W, 1, d_in);  // k from 1
    if (slip("token_last_input_skipped")) return loop_product(x, W, 0, d_in - 1);
    if (slip("token_weight_transposed")) return xt::linalg::dot(W, x);  // W @ x: W.T's product
    return xt::linalg::dot(x, W);
}

Matrix project_rows(const Matrix& inputs, const Matrix& W) {
    arguments::project_rows(inputs, W);  // bad input -> a clear error

    if (slip("rows_first_token_only") || slip("rows_last_input_skipped")) {
        const std::size_t T = inputs.shape(0), d_in = inputs.shape(1);
        Matrix out = xt::zeros<float>({T, W.shape(1)});
        for (std::size_t t = 0; t < T; ++t) {
            if (slip("rows_first_token_only")) {  // row(inputs, 0) where row t belongs
                xt::row(out, t) = loop_product(xt::row(inputs, 0), W, 0, d_in);
            } else {
                xt::row(out, t) = loop_product(xt::row(inputs, t), W, 0, d_in - 1);
            }
        }
        return out;
    }
    return xt::linalg::dot(inputs, W);
}

Matrix project_columns(const Matrix& W, const Matrix& X, const Matrix& b) {
    arguments::project_columns(W, X, b);  // bad input -> a clear error

    const Matrix product = xt::linalg::dot(W, X);  // (d_out, N)
    if (slip("forgot_bias")) return product;
    if (slip("bias_subtracted")) return product - b;
    if (slip("bias_times_x")) return product * b;
    if (slip("bias_first_column_only")) {
        Matrix out = product;
        xt::col(out, 0) += xt::col(b, 0);
        return out;
    }
    if (slip("bias_as_row")) {  // b.T (1, d_out) broadcast down the rows
        return product + xt::transpose(b);
    }
    return product + b;  // b (d_out, 1) broadcasts over the N columns
}

}  // namespace attn

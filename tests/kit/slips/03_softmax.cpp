// tests/kit/slips/03_softmax.cpp — solutions/03_softmax.cpp with the slips students make in it,
// each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them all). Without
// ATTN_SLIP it is the solution and must pass every test.
//
// slip: no_max_subtracted -> no max subtracted
// slip: naive_made_stable -> subtracted the max in the naive softmax
// slip: min_subtracted -> subtracted the min instead of the max
// slip: numerator_shift -> subtracted the max in the numerator only
// slip: raw_sum -> divided exp(x) by the sum of the raw scores
//   (on spread logits its values reach 1e20: it is matched within its own magnitude's roundoff)
// not yet named: int_total (exercise 02's `int total`: "the weights sum to 1.051, not 1", the
//   same masked-matrix words)
// The matrix softmax along the wrong axis, or reduced the wrong way.
// Issue 41: rows only, whatever dim says. On the notebook's symmetric scores the column
// softmax's answer is this one transposed, yet the kit names the axis, not a transpose.
// slip: rows_only -> softmax over the wrong axis (dim=1 instead of dim=0)
// slip: negative_dim_as_columns -> softmax over the wrong axis (dim=0 instead of dim=-1)
// slip: global_max -> subtracted one max for the whole matrix
// slip: no_keep_dims -> without keep_dims
// slip: whole_matrix -> normalised over the whole matrix
// not yet named: row_loop_past_end (i <= R over the rows: "crashed in
//   softmax_matrix.cols_dim_minus2: it aborted (SIGABRT ...)", a column case, where the slip
//   runs for the rows only; exercise 02's loop past the end is named "out of bounds")
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector softmax_naive(const Vector& x) {
    arguments::softmax_naive(x);  // bad input -> a clear error

    if (slip("naive_made_stable")) {
        Vector e = xt::exp(x - xt::amax(x)());
        return e / xt::sum(e)();
    }
    Vector e = xt::exp(x);
    return e / xt::sum(e)();
}

Vector softmax(const Vector& x) {
    arguments::softmax(x);  // bad input -> a clear error

    if (slip("no_max_subtracted")) {  // the naive form again: exp(1000) is inf
        Vector e = xt::exp(x);
        return e / xt::sum(e)();
    }
    if (slip("min_subtracted")) {
        Vector e = xt::exp(x - xt::amin(x)());
        return e / xt::sum(e)();
    }
    if (slip("numerator_shift")) {
        Vector e = xt::exp(x - xt::amax(x)());
        return e / xt::sum(xt::exp(x))();
    }
    if (slip("raw_sum")) return xt::exp(x) / xt::sum(x)();
    if (slip("int_total")) {  // the total of exercise 02's int_total slip
        Vector e = xt::exp(x - xt::amax(x)());
        const int total = xt::sum(e)();
        return e / total;
    }
    Vector e = xt::exp(x - xt::amax(x)());
    return e / xt::sum(e)();
}

Matrix softmax(const Matrix& scores, int dim) {
    // bad input -> a clear error; axis is 0 or 1 (dim -1 is 1)
    std::size_t axis = arguments::softmax(scores, dim);

    // The rows only, whatever dim says: on the notebook's scores inputs @ inputs.T, which are
    // symmetric, the column softmax it should have been is this result transposed.
    if (slip("rows_only")) axis = 1;
    // dim = -1 taken for "not 1", so for the columns.
    if (slip("negative_dim_as_columns")) axis = dim == 1 ? 1 : 0;
    if (slip("global_max")) {
        const Matrix e = xt::exp(scores - xt::amax(scores)());
        const Matrix sum = xt::sum(e, {axis}, xt::keep_dims);
        return e / sum;
    }
    if (slip("no_keep_dims")) {  // the sums (R,) broadcast against the columns
        const Matrix max = xt::amax(scores, {axis}, xt::keep_dims);
        const Matrix e = xt::exp(scores - max);
        const Vector sum = xt::sum(e, {axis});
        return e / sum;
    }
    if (slip("whole_matrix")) {
        const Matrix e = xt::exp(scores);
        return e / xt::sum(e)();
    }
    if (slip("row_loop_past_end") && axis == 1) {  // each row by the vector softmax, i <= R
        Matrix weights = scores;
        for (std::size_t i = 0; i <= scores.shape(0); ++i) {
            xt::row(weights, i) = softmax(Vector(xt::row(scores, i)));
        }
        return weights;
    }

    const Matrix max = xt::amax(scores, {axis}, xt::keep_dims);
    const Matrix e = xt::exp(scores - max);
    const Matrix sum = xt::sum(e, {axis}, xt::keep_dims);
    return e / sum;
}

}  // namespace attn

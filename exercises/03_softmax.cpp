// exercises/03_softmax.cpp — Exercise 03: softmax, naive and max-subtracted, rows or columns.
//
// The notebook cells it mirrors, In [6], In [7] and In [11] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   torch.exp(x) / torch.exp(x).sum(dim=0)                   softmax_naive
//   attn_weights_2 = torch.softmax(attn_scores_2, dim=0)     softmax
//   attn_weights = torch.softmax(attn_scores, dim=-1)        softmax(scores, -1)
// and, for dim = 0, the softmax_cols cell of Understanding Deep Learning's notebook 12.1:
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//   np.exp(data_in) / np.sum(np.exp(data_in), axis=0)
// Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 03`. Stuck? `tools/kit hint 03`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [7]" "ch03.ipynb In [11]"`.
//
// Goal: softmax turns any scores into positive weights that add up to 1. Three functions:
// the naive formula, the max-subtracted form that cannot overflow, and the max-subtracted
// form along a chosen dim of a matrix, like torch.softmax(scores, dim).
// Each function's maths, shapes and the notebook's values: include/attn/simple_attention.hpp,
// Exercise 03.
// Worked example: [0, ln 3] -> exp -> [1, 3] -> divide by 4 -> [0.25, 0.75]
//
// An xtensor 0.24 trap: `e / xt::sum(e, {axis}, xt::keep_dims)`, the numpy way to write it,
// reads past the end of a buffer when it broadcasts the lazy reduction: you get values that
// change from run to run (-1e15, inf, nan) or a crash, and no error. The same holds for
// `x - xt::amax(x, {axis}, xt::keep_dims)`, and for a reduction kept in `auto`. Store each
// keep_dims reduction in a Matrix (or Vector) before you use it:
//   const Matrix sums = xt::sum(e, {axis}, xt::keep_dims);  // shape (R, 1) or (1, C)
//   return e / sums;
// (or pass `xt::keep_dims | xt::evaluation_strategy::immediate`). A full reduction read as a
// float, `x / xt::sum(x)()`, is safe.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector softmax_naive(const Vector& x) {
    arguments::softmax_naive(x);  // bad input -> a clear error

    // TODO 1. e = exp of every element of x.
    //      2. Return e divided by the sum of e.
    throw not_implemented("exercises/03_softmax.cpp", "softmax_naive(x)");
}

Vector softmax(const Vector& x) {
    arguments::softmax(x);  // bad input -> a clear error

    // TODO 1. m = the largest element of x.
    //      2. e = exp(x - m): every exponent <= 0, so nothing overflows.
    //      3. Return e divided by the sum of e. [1000, 1001] must give [0.2689, 0.7311].
    throw not_implemented("exercises/03_softmax.cpp", "softmax(x)");
}

Matrix softmax(const Matrix& scores, int dim) {
    // bad input -> a clear error; axis is 0 or 1 (dim -1 is 1)
    [[maybe_unused]] const std::size_t axis = arguments::softmax(scores, dim);

    // TODO 1. The max along `axis` (each row's for axis 1, each column's for axis 0), kept as
    //         a Matrix with keep_dims (see the trap above).
    //      2. e = exp(scores - those maxima).
    //      3. The sums of e along `axis`, kept as a Matrix the same way.
    //      4. Return e / sums: with axis 1 every row sums to 1, with axis 0 every column.
    throw not_implemented("exercises/03_softmax.cpp", "softmax(scores, dim)");
}

}  // namespace attn

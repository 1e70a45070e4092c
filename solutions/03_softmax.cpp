// solutions/03_softmax.cpp — reference solution of Exercise 03: softmax.
//
// Source: ch03.ipynb In [6], In [7] and In [11]; for dim 0, 12_1_Self_Attention.ipynb's
// softmax_cols. The notebooks' addresses are in exercises/03_softmax.cpp.
// Declared in include/attn/simple_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector softmax_naive(const Vector& x) {
    arguments::softmax_naive(x);  // bad input -> a clear error

    Vector e = xt::exp(x);
    return e / xt::sum(e)();
}

Vector softmax(const Vector& x) {
    arguments::softmax(x);  // bad input -> a clear error

    Vector e = xt::exp(x - xt::amax(x)());
    return e / xt::sum(e)();
}

Matrix softmax(const Matrix& scores, int dim) {
    // bad input -> a clear error; axis is 0 or 1 (dim -1 is 1)
    const std::size_t axis = arguments::softmax(scores, dim);

    // keep_dims leaves the reduced axis with length 1, so the max and the sum broadcast
    // back over the rows (axis 1) or the columns (axis 0) they were taken along. They are
    // stored in a Matrix first: xtensor 0.24 broadcasts a lazy keep_dims reduction wrongly.
    const Matrix max = xt::amax(scores, {axis}, xt::keep_dims);
    const Matrix e = xt::exp(scores - max);
    const Matrix sum = xt::sum(e, {axis}, xt::keep_dims);
    return e / sum;
}

}  // namespace attn

// exercises/03_softmax.cpp — Exercise 03: softmax, naive and max-subtracted, rows or columns.
//
// Source: seed 001 §3.3.1 In [4], §3.3.2 In [9]; seed 003 Exercise 3 and In [28].
// Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 03`. Stuck? `tools/kit hint 03`.
//
// Goal: softmax turns any scores into positive weights that add up to 1.
//   softmax(x)_i = exp(x_i) / sum_j exp(x_j)
// Worked example: [0, ln 3] -> exp -> [1, 3] -> divide by 4 -> [0.25, 0.75]
// Three functions: the naive formula, the max-subtracted form that cannot overflow
// (softmax(x) = softmax(x - max(x))), and the max-subtracted form along a chosen dim of a
// matrix, like torch.softmax(scores, dim).
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector softmax_naive(const Vector& x) {
    checks::require_non_empty("softmax_naive", "x", x);

    // TODO: exp of every element, divided by the sum of those exps.
    throw not_implemented("exercises/03_softmax.cpp", "softmax_naive(x)");
}

Vector softmax(const Vector& x) {
    checks::require_non_empty("softmax", "x", x);

    // TODO: subtract max(x) from every element first, then as softmax_naive.
    // [1000, 1001] must give [0.2689, 0.7311], not [nan, nan].
    throw not_implemented("exercises/03_softmax.cpp", "softmax(x)");
}

Matrix softmax(const Matrix& scores, int dim) {
    [[maybe_unused]] const std::size_t axis = checks::normalize_dim("softmax", dim);  // 0 or 1
    checks::require_non_empty("softmax", "scores", scores);

    // TODO: the max-subtracted softmax along `axis`: with axis 1 every row sums to 1, with
    // axis 0 every column does. Subtract each row's (or column's) own max.
    throw not_implemented("exercises/03_softmax.cpp", "softmax(scores, dim)");
}

}  // namespace attn

// exercises/02_normalize_by_sum.cpp — Exercise 02: attention weights by dividing by the sum.
//
// The notebook cell it mirrors, In [5] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()
// Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 02`. Stuck? `tools/kit hint 02`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [5]"`.
//
// Goal: turn scores into weights that add up to 1, the naive way (exercise 03 does it
// properly with softmax).
// Each function's maths, shapes and the notebook's values: include/attn/simple_attention.hpp,
// Exercise 02.
// Worked example: [1, 3] -> [0.25, 0.75]
// Divide by the total as a float, `xt::sum(scores)()`. Not by a keep_dims reduction such as
// `xt::sum(scores, {0}, xt::keep_dims)` left unevaluated: xtensor 0.24 reads past the end of
// a buffer when it broadcasts one (see exercise 03).
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>

namespace attn {

Vector normalize_by_sum(const Vector& scores) {
    arguments::normalize_by_sum(scores);  // bad input -> a clear error

    // TODO 1. The sum of all scores, as a float.
    //      2. Return every score divided by that sum.
    throw not_implemented("exercises/02_normalize_by_sum.cpp", "normalize_by_sum(scores)");
}

}  // namespace attn

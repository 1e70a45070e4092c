// exercises/14_dropout.cpp — Exercise 14: inverted dropout with a keep mask.
//
// The notebook cells it mirrors, In [31] and In [32] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   dropout = torch.nn.Dropout(0.5)
//   dropout(example); dropout(attn_weights)                                    dropout
// Declared in include/attn/causal_attention.hpp.
// Check your work: `tools/kit check 14`. Stuck? `tools/kit hint 14`.
//
// Goal: while a model trains, dropout sets a random part of the attention weights to 0 (each
// entry with probability p) and divides the kept ones by 1 - p, so that on average every
// entry keeps its value. Which entries survive is random; here it is given to you as `keep`
// (1 = keep, 0 = drop), because PyTorch draws a different pattern for the same seed on
// different machines, and a test must not depend on that.
// The maths, shapes and the notebook's values: include/attn/causal_attention.hpp, Exercise 14.
// Worked example, p = 0.5: x [[1, 1], [1, 1]], keep [[1, 0], [0, 1]] -> [[2, 0], [0, 2]]
// (In [31] prints such a matrix of 0s and 2s; its pattern will differ from yours.)
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>

#include <stdexcept>
#include <string>

namespace attn {

Matrix dropout(const Matrix& x, const Matrix& keep, float p, [[maybe_unused]] bool training) {
    arguments::dropout(x, keep, p);  // bad input -> a clear error

    // TODO 1. Not training (eval mode): return x unchanged.
    //      2. p = 1: everything is dropped; return zeros of x's shape (1 - p is 0).
    //      3. Otherwise return x * keep / (1 - p), elementwise.
    throw not_implemented("exercises/14_dropout.cpp", "dropout(x, keep, p, training)");
}

}  // namespace attn

// exercises/01_dot_scores.cpp — Exercise 01: dot-product scores of one query against every input.
//
// The notebook cell it mirrors, In [3] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   attn_scores_2[i] = torch.dot(x_i, query)
// Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 01`. Stuck? `tools/kit hint 01`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [3]"`.
//
// Goal: how strongly does the query token "attend" to each input token? Score each input
// row by its dot product with the query.
// Each function's maths, shapes and the notebook's values: include/attn/simple_attention.hpp,
// Exercise 01.
// Worked example: inputs = [[1, 0], [0, 2], [1, 1]], query = [1, 2] -> scores = [1, 4, 3]
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    arguments::dot_scores(inputs, query);  // bad input -> a clear error

    // TODO 1. Make a Vector of T = inputs.shape(0) zeros.
    //      2. For each row i of inputs: scores(i) = the dot product of query with that row.
    //      3. Return the scores.
    throw not_implemented("exercises/01_dot_scores.cpp", "dot_scores(inputs, query)");
}

}  // namespace attn

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
//   inputs: (T, d_in), query: (d_in,) -> scores: (T,)
//   scores[i] = sum_k query[k] * inputs[i, k]
// Worked example: inputs = [[1, 0], [0, 2], [1, 1]], query = [1, 2] -> scores = [1, 4, 3]
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    // TODO: return a Vector of T scores, one dot product per row of `inputs`.
    throw not_implemented("exercises/01_dot_scores.cpp", "dot_scores(inputs, query)");
}

}  // namespace attn

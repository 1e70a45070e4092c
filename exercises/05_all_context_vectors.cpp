// exercises/05_all_context_vectors.cpp — Exercise 05: all-pairs scores and all context vectors.
//
// The notebook cells it mirrors, In [9] to In [13] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   attn_scores[i, j] = torch.dot(x_i, x_j)                   attention_scores_loops
//   attn_scores = inputs @ inputs.T                           attention_scores_matmul
//   all_context_vecs = torch.softmax(attn_scores, dim=-1) @ inputs     all_context_vectors
// Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 05`. Stuck? `tools/kit hint 05`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [9]" "ch03.ipynb In [13]"`.
//
// Goal: exercises 01–04 for every token at once: all-pairs scores, each row softmaxed into
// weights, and the weights times the inputs, row i being token i's context vector.
// Each function's maths, shapes and the notebook's values: include/attn/simple_attention.hpp,
// Exercise 05.
// Worked example: inputs = [[1, 0], [0, 1]] -> scores = [[1, 0], [0, 1]]
// First with two loops, then as the single matrix product inputs @ inputs.T: both must
// agree. all_context_vectors uses softmax from exercise 03 (the kit's reference version).
// If you write the softmax out instead, store each keep_dims reduction in a Matrix before you
// divide by it: xtensor 0.24 reads past a buffer on the lazy `e / xt::sum(e, {1},
// xt::keep_dims)` (exercise 03's stub says more).
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Matrix attention_scores_loops(const Matrix& inputs) {
    arguments::attention_scores_loops(inputs);  // bad input -> a clear error

    // TODO 1. A (T, T) Matrix of zeros, T = inputs.shape(0).
    //      2. For each i and each j: scores(i, j) = dot(row i of inputs, row j of inputs).
    //      3. Return the scores.
    throw not_implemented("exercises/05_all_context_vectors.cpp", "attention_scores_loops(inputs)");
}

Matrix attention_scores_matmul(const Matrix& inputs) {
    arguments::attention_scores_matmul(inputs);  // bad input -> a clear error

    // TODO 1. Return the same matrix as one product, inputs @ inputs.T.
    throw not_implemented("exercises/05_all_context_vectors.cpp",
                          "attention_scores_matmul(inputs)");
}

Matrix all_context_vectors(const Matrix& inputs) {
    arguments::all_context_vectors(inputs);  // bad input -> a clear error

    // TODO 1. scores = inputs @ inputs.T.
    //      2. weights = softmax(scores, -1): each row sums to 1.
    //      3. Return weights @ inputs.
    throw not_implemented("exercises/05_all_context_vectors.cpp", "all_context_vectors(inputs)");
}

}  // namespace attn

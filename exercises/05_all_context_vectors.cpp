// exercises/05_all_context_vectors.cpp — Exercise 05: all-pairs scores and all context vectors.
//
// Source: seed 001 §3.3.2, In [7] to In [10]. Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 05`. Stuck? `tools/kit hint 05`.
//
// Goal: exercises 01–04 for every token at once.
//   inputs: (T, d_in) -> scores: (T, T), scores[i, j] = dot(inputs[i], inputs[j])
//   weights = softmax(scores, dim=-1)            each row sums to 1
//   context vectors = weights @ inputs: (T, d_in) row i is token i's context vector
// Worked example: inputs = [[1, 0], [0, 1]] -> scores = [[1, 0], [0, 1]]
// First with two loops, then as the single matrix product inputs @ inputs.T: both must
// agree. all_context_vectors uses softmax from exercise 03 (the kit's reference version).
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Matrix attention_scores_loops(const Matrix& inputs) {
    checks::require_non_empty("attention_scores_loops", "inputs", inputs);

    // TODO: a T×T matrix; fill scores(i, j) with a double loop over i and j.
    throw not_implemented("exercises/05_all_context_vectors.cpp", "attention_scores_loops(inputs)");
}

Matrix attention_scores_matmul(const Matrix& inputs) {
    checks::require_non_empty("attention_scores_matmul", "inputs", inputs);

    // TODO: the same matrix as one product, inputs @ inputs.T.
    throw not_implemented("exercises/05_all_context_vectors.cpp",
                          "attention_scores_matmul(inputs)");
}

Matrix all_context_vectors(const Matrix& inputs) {
    checks::require_non_empty("all_context_vectors", "inputs", inputs);

    // TODO: scores, then row-wise softmax, then weights @ inputs.
    throw not_implemented("exercises/05_all_context_vectors.cpp", "all_context_vectors(inputs)");
}

}  // namespace attn

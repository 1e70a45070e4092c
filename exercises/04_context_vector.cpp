// exercises/04_context_vector.cpp — Exercise 04: one context vector.
//
// The notebook cells it mirrors, In [8] (and, for a query, In [3], In [7], In [8] in a row)
// of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   context_vec_2 += attn_weights_2[i]*x_i
// Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 04`. Stuck? `tools/kit hint 04`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [8]" "ch03.ipynb In [3], In [7], In [8]"`.
//
// Goal: the context vector of a query is what it "sees" of the sentence: every input token,
// scaled by its attention weight, summed.
// Each function's maths, shapes and the notebook's values: include/attn/simple_attention.hpp,
// Exercise 04.
// Worked example: inputs = [[1, 0], [0, 2]], weights = [0.25, 0.75] -> context = [0.25, 1.5]
// context_vector_for_query chains the earlier exercises: dot_scores (01) and softmax (03).
// Your tests link the kit's reference versions of those, so a bug there cannot fail this one.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector context_vector(const Matrix& inputs, const Vector& weights) {
    arguments::context_vector(inputs, weights);  // bad input -> a clear error

    // TODO 1. Start from a Vector of d_in = inputs.shape(1) zeros.
    //      2. For each row i of inputs: add weights(i) * that row.
    //      3. Return the sum.
    throw not_implemented("exercises/04_context_vector.cpp", "context_vector(inputs, weights)");
}

Vector context_vector_for_query(const Matrix& inputs, std::size_t query_index) {
    arguments::context_vector_for_query(inputs, query_index);  // bad input -> a clear error

    // TODO 1. query = row query_index of inputs.
    //      2. scores = dot_scores(inputs, query).
    //      3. weights = softmax(scores).
    //      4. Return context_vector(inputs, weights).
    throw not_implemented("exercises/04_context_vector.cpp",
                          "context_vector_for_query(inputs, query_index)");
}

}  // namespace attn

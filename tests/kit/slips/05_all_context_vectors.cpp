// tests/kit/slips/05_all_context_vectors.cpp — solutions/05_all_context_vectors.cpp with the
// slips students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py
// runs them all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The double loop of In [9]: its bounds and what it multiplies.
// slip: upper_triangle -> filled only the upper triangle
// slip: diagonal_only -> filled only the diagonal
// slip: row_self_dot -> dotted each query with itself
//   (on the cancelling case its values are far above the answer's scale: matched within their
//   own magnitude's roundoff)
// The matrix product of In [10] the wrong way round, and every token's context vector.
// slip: feature_gram -> computed inputs.T @ inputs
// On the symmetric scores inputs @ inputs.T the two give the same numbers: named together.
// slip: column_softmax -> softmax over the columns (dim=0), or multiplied by the transposed
// slip: weights_transposed -> softmax over the columns (dim=0), or multiplied by the transposed
// slip: returned_weights -> returned the attention weights
// inputs @ weights, the operands swapped: xtensor-blas throws, and the kit names the line.
// slip: operands_swapped -> at exercises/05_all_context_vectors.cpp:85
// Issue 41: each row by exercise 04's weighted sum, copied into this file as a helper with a slip
// in it (the kit links 04's reference solution, so a slip in the student's own 04 cannot reach 05):
// 05 fails downstream of the helper, and names the helper's mistake.
// slip: helper_last_row_skipped -> left out the last token
// slip: helper_reversed_weights -> paired the weights with the wrong tokens
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {
namespace {

// Exercise 04's context_vector as the student wrote it there, copied in: sum over i of
// weights[i] * inputs[i].
Vector weighted_sum(const Matrix& inputs, const Vector& weights) {
    const std::size_t T = inputs.shape(0);
    Vector context = xt::zeros<float>({inputs.shape(1)});
    if (slip("helper_last_row_skipped")) {  // i < T - 1
        for (std::size_t i = 0; i < T - 1; ++i) context += weights(i) * xt::row(inputs, i);
        return context;
    }
    if (slip("helper_reversed_weights")) {
        for (std::size_t i = 0; i < T; ++i) context += weights(T - 1 - i) * xt::row(inputs, i);
        return context;
    }
    for (std::size_t i = 0; i < T; ++i) context += weights(i) * xt::row(inputs, i);
    return context;
}

}  // namespace

Matrix attention_scores_loops(const Matrix& inputs) {
    arguments::attention_scores_loops(inputs);  // bad input -> a clear error

    const std::size_t T = inputs.shape(0);
    Matrix scores = xt::zeros<float>({T, T});
    for (std::size_t i = 0; i < T; ++i) {
        const std::size_t first = slip("upper_triangle") ? i : 0;  // j starts at i
        for (std::size_t j = first; j < T; ++j) {
            if (slip("diagonal_only") && j != i) continue;
            const std::size_t other = slip("row_self_dot") ? i : j;
            scores(i, j) = xt::sum(xt::row(inputs, i) * xt::row(inputs, other))();
        }
    }
    return scores;
}

Matrix attention_scores_matmul(const Matrix& inputs) {
    arguments::attention_scores_matmul(inputs);  // bad input -> a clear error

    if (slip("feature_gram")) return xt::linalg::dot(xt::transpose(inputs), inputs);
    return xt::linalg::dot(inputs, xt::transpose(inputs));
}

Matrix all_context_vectors(const Matrix& inputs) {
    arguments::all_context_vectors(inputs);  // bad input -> a clear error

    const int dim = slip("column_softmax") ? 0 : -1;
    const Matrix weights = softmax(attention_scores_matmul(inputs), dim);
    if (slip("returned_weights")) return weights;
    if (slip("operands_swapped")) {
        return xt::linalg::dot(inputs, weights);
    }
    if (slip("weights_transposed")) return xt::linalg::dot(xt::transpose(weights), inputs);
    if (slip("helper_last_row_skipped") || slip("helper_reversed_weights")) {
        Matrix context = xt::zeros<float>(inputs.shape());
        for (std::size_t i = 0; i < inputs.shape(0); ++i) {
            xt::row(context, i) = weighted_sum(inputs, Vector(xt::row(weights, i)));
        }
        return context;
    }
    return xt::linalg::dot(weights, inputs);
}

}  // namespace attn

// exercises/07_scaled_attention.cpp — Exercise 07: scaled dot-product attention for one query,
// step by step.
//
// The notebook cells it mirrors, In [19] to In [22] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   attn_scores_2 = query_2 @ keys.T                                      attention_scores
//   attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)      scaled_attention_weights
//   context_vec_2 = attn_weights_2 @ values                               weighted_values
// and Exercises 2, 4, 5 and 6 of Understanding Deep Learning's self-attention notebook:
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//   torch.matmul(query.T, key).squeeze() / math.sqrt(D)                   scaled_scores_column
//   sum over m of attention_weights[m] * all_values[m]                    weighted_values_column
//   all of it for query n self_attention_column_query
// Declared in include/attn/trainable_attention.hpp.
// Check your work: `tools/kit check 07`. Stuck? `tools/kit hint 07`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [21]" "12_1_Self_Attention.ipynb the all_x_prime cell"`.
//
// Goal: exercises 01–04 again, now on projected queries, keys and values, and with one new
// step: the scores are divided by sqrt(d_k), d_k being the length of a key vector.
// Each function's maths, shapes and the notebook's values:
// include/attn/trainable_attention.hpp, Exercise 07.
// Which numbers: ch03.ipynb draws the weights at torch.manual_seed(123), and the cases named
//   *_seed123 follow it; the *_seed42 cases draw them at seed 42, the numbers the header quotes.
//   `tools/kit show 07 weights_seed123` prints one of them with its source.
// Why sqrt(d_k)? A dot product adds d_k products, so its spread grows like sqrt(d_k). Left
// unscaled, long vectors give large scores and softmax turns them into a near one-hot row
// (tiny gradients, slow training). Dividing by sqrt(d_k) keeps the scores' spread near 1.
// Worked example: scores = [2, 0], d_k = 4 -> softmax([1, 0]) = [0.7311, 0.2689]
//   (unscaled, softmax([2, 0]) would be [0.8808, 0.1192]).
// The first three functions follow the row convention (a token is a ROW), the last three the
// column convention (a token is a COLUMN). softmax from exercise 03 is yours to call.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

Vector attention_scores(const Vector& query, const Matrix& keys) {
    arguments::attention_scores(query, keys);  // bad input -> a clear error

    // TODO 1. Return query @ keys.T: one dot product of the query with every key (row).
    throw not_implemented("exercises/07_scaled_attention.cpp", "attention_scores(query, keys)");
}

Vector scaled_attention_weights(const Vector& scores, std::size_t d_k) {
    arguments::scaled_attention_weights(scores, d_k);  // bad input -> a clear error

    // TODO 1. scaled = scores / sqrt(d_k), in float.
    //      2. Return softmax(scaled).
    throw not_implemented("exercises/07_scaled_attention.cpp",
                          "scaled_attention_weights(scores, d_k)");
}

Vector weighted_values(const Vector& weights, const Matrix& values) {
    arguments::weighted_values(weights, values);  // bad input -> a clear error

    // TODO 1. Return weights @ values: the rows of values, row t scaled by weights(t), summed.
    throw not_implemented("exercises/07_scaled_attention.cpp", "weighted_values(weights, values)");
}

Vector scaled_scores_column(const Matrix& keys, const Matrix& query) {
    arguments::scaled_scores_column(keys, query);  // bad input -> a clear error

    // TODO 1. d_k = query.shape(0).
    //      2. dots = keys.T @ query, (N, 1): row m is dot(query, keys[:, m]).
    //      3. Return dots / sqrt(d_k) as a Vector of N scores.
    throw not_implemented("exercises/07_scaled_attention.cpp", "scaled_scores_column(keys, query)");
}

Matrix weighted_values_column(const Vector& weights, const Matrix& values) {
    arguments::weighted_values_column(weights, values);  // bad input -> a clear error

    // TODO 1. Return values @ weights as a (d_v, 1) column: the sum over m of
    //         weights(m) * values[:, m].
    throw not_implemented("exercises/07_scaled_attention.cpp",
                          "weighted_values_column(weights, values)");
}

Matrix self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                   std::size_t n) {
    arguments::self_attention_column_query(queries, keys, values, n);  // bad input -> a clear error

    // TODO 1. query = column n of queries, as a (d_k, 1) Matrix.
    //      2. scores = scaled_scores_column(keys, query).
    //      3. weights = softmax(scores).
    //      4. Return weighted_values_column(weights, values).
    throw not_implemented("exercises/07_scaled_attention.cpp",
                          "self_attention_column_query(queries, keys, values, n)");
}

}  // namespace attn

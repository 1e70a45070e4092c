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
//   scores[t]  = dot(query, key t)                   how well key t matches the query
//   weights    = softmax(scores / sqrt(d_k))         positive, summing to 1
//   context    = sum_t weights[t] * value t          what the query takes from each token
// Why sqrt(d_k)? A dot product adds d_k products, so its spread grows like sqrt(d_k). Left
// unscaled, long vectors give large scores and softmax turns them into a near one-hot row
// (tiny gradients, slow training). Dividing by sqrt(d_k) keeps the scores' spread near 1.
// Worked example: scores = [2, 0], d_k = 4 -> softmax([1, 0]) = [0.7311, 0.2689]
//   (unscaled, softmax([2, 0]) would be [0.8808, 0.1192]).
// Row convention: keys and values are (T, d), one token per ROW. Column convention: keys and
// values are (d, N), one token per COLUMN, a query is a (d_k, 1) column and an output a
// (d_v, 1) column. softmax from exercise 03 is yours to call.
#include "attn/checks.hpp"
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
    checks::require_non_empty("attention_scores", "query", query);
    checks::require_non_empty("attention_scores", "keys", keys);
    checks::require_length("attention_scores", "keys", keys, 1, query.shape(0),
                           "d_k (the length of query)");

    // TODO: one dot product of the query with every key (row of keys): query @ keys.T.
    throw not_implemented("exercises/07_scaled_attention.cpp", "attention_scores(query, keys)");
}

Vector scaled_attention_weights(const Vector& scores, std::size_t d_k) {
    checks::require_non_empty("scaled_attention_weights", "scores", scores);
    if (d_k == 0) {
        throw std::invalid_argument(
            "scaled_attention_weights: d_k is 0, but it is the length "
            "of a key vector: at least 1");
    }

    // TODO: divide the scores by sqrt(d_k), then softmax.
    throw not_implemented("exercises/07_scaled_attention.cpp",
                          "scaled_attention_weights(scores, d_k)");
}

Vector weighted_values(const Vector& weights, const Matrix& values) {
    checks::require_non_empty("weighted_values", "values", values);
    checks::require_length("weighted_values", "weights", weights, 0, values.shape(0),
                           "T (values.shape(0))");

    // TODO: the rows of values, row t scaled by weights(t), summed: weights @ values.
    throw not_implemented("exercises/07_scaled_attention.cpp", "weighted_values(weights, values)");
}

Vector scaled_scores_column(const Matrix& keys, const Matrix& query) {
    checks::require_non_empty("scaled_scores_column", "keys", keys);
    checks::require_non_empty("scaled_scores_column", "query", query);
    checks::require_column("scaled_scores_column", "query", query, "d_k");
    checks::require_length("scaled_scores_column", "keys", keys, 0, query.shape(0),
                           "d_k (query.shape(0))");

    // TODO: for every key COLUMN m, dot(query, keys[:, m]) / sqrt(d_k), d_k = query.shape(0).
    throw not_implemented("exercises/07_scaled_attention.cpp", "scaled_scores_column(keys, query)");
}

Matrix weighted_values_column(const Vector& weights, const Matrix& values) {
    checks::require_non_empty("weighted_values_column", "values", values);
    checks::require_length("weighted_values_column", "weights", weights, 0, values.shape(1),
                           "N (values.shape(1))");

    // TODO: the (d_v, 1) column sum over m of weights(m) * values[:, m].
    throw not_implemented("exercises/07_scaled_attention.cpp",
                          "weighted_values_column(weights, values)");
}

Matrix self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                   std::size_t n) {
    checks::require_non_empty("self_attention_column_query", "queries", queries);
    checks::require_length("self_attention_column_query", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");
    checks::require_length("self_attention_column_query", "keys", keys, 1, queries.shape(1),
                           "N (queries.shape(1))");
    checks::require_length("self_attention_column_query", "values", values, 1, queries.shape(1),
                           "N (queries.shape(1))");
    checks::require_non_empty("self_attention_column_query", "values", values);
    checks::require_row_index("self_attention_column_query", "n", n, queries.shape(1));

    // TODO: query n is column n of queries, as a (d_k, 1) matrix; score it against the keys
    // (scaled_scores_column), softmax, and weight the values (weighted_values_column).
    throw not_implemented("exercises/07_scaled_attention.cpp",
                          "self_attention_column_query(queries, keys, values, n)");
}

}  // namespace attn

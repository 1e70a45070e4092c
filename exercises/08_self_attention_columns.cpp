// exercises/08_self_attention_columns.cpp — Exercise 08: self-attention in matrix form, in the
// column convention.
//
// The notebook cell it mirrors, Exercise 7 of Understanding Deep Learning's self-attention
// notebook (in its PyTorch form):
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//   attention_weights = softmax_cols(torch.matmul(keys.T, queries) / torch.sqrt(d_k))
//                                                                   attention_weights_columns
//   X_prime = scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k)
//                                                                   scaled_dot_product_self_attention
// Declared in include/attn/trainable_attention.hpp.
// Check your work: `tools/kit check 08`. Stuck? `tools/kit hint 08`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book '12_1_Self_Attention.ipynb the "X_prime'`.
//
// Goal: exercise 07 for every token at once, with matrices. The N tokens are the columns of
// X (D, N).
//   queries = W_q X + b_q, keys = W_k X + b_k: (d_k, N); values = W_v X + b_v: (d_v, N)
//   scores  = keys.T @ queries: (N, N), column n = query n's score against every key
//   weights = softmax of every COLUMN of scores / sqrt(d_k)       (softmax_cols)
//   X_prime = values @ weights: (d_v, N), column n = token n's output
// Worked example: queries = keys = [[2, 0]] (d_k = 1, N = 2) -> scores = [[4, 0], [0, 0]],
//   weights = [[0.9820, 0.5], [0.0180, 0.5]]: each column sums to 1.
// project_columns (exercise 06) and softmax(m, 0) (exercise 03) are yours to call. Mind the
// order of the parameters: values first, (X, W_v, W_q, W_k, b_v, b_q, b_k), as in the notebook.
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

#include <cmath>

namespace attn {

Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    checks::require_non_empty("attention_weights_columns", "queries", queries);
    checks::require_non_empty("attention_weights_columns", "keys", keys);
    checks::require_length("attention_weights_columns", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");

    // TODO: keys.T @ queries, divided by sqrt(d_k), then softmax of every column.
    throw not_implemented("exercises/08_self_attention_columns.cpp",
                          "attention_weights_columns(queries, keys)");
}

Matrix scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                         const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                         const Matrix& b_k) {
    const char* const function = "scaled_dot_product_self_attention";
    checks::require_non_empty(function, "X", X);
    checks::require_non_empty(function, "W_q", W_q);
    checks::require_non_empty(function, "W_v", W_v);
    checks::require_length(function, "W_v", W_v, 1, X.shape(0), "D (X.shape(0))");
    checks::require_length(function, "W_q", W_q, 1, X.shape(0), "D (X.shape(0))");
    checks::require_length(function, "W_k", W_k, 1, X.shape(0), "D (X.shape(0))");
    checks::require_length(function, "W_k", W_k, 0, W_q.shape(0), "d_k (W_q.shape(0))");
    checks::require_column(function, "b_v", b_v, "d_v");
    checks::require_column(function, "b_q", b_q, "d_k");
    checks::require_column(function, "b_k", b_k, "d_k");
    checks::require_length(function, "b_v", b_v, 0, W_v.shape(0), "d_v (W_v.shape(0))");
    checks::require_length(function, "b_q", b_q, 0, W_q.shape(0), "d_k (W_q.shape(0))");
    checks::require_length(function, "b_k", b_k, 0, W_k.shape(0), "d_k (W_k.shape(0))");

    // TODO: project queries, keys and values, weight them (attention_weights_columns), and
    // return values @ weights.
    throw not_implemented("exercises/08_self_attention_columns.cpp",
                          "scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k)");
}

}  // namespace attn

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
// X (D, N); column n of every result belongs to token n.
// Each function's maths, shapes and the notebook's values:
// include/attn/trainable_attention.hpp, Exercise 08.
// Worked example: queries = keys = [[2, 0]] (d_k = 1, N = 2) -> scores = [[4, 0], [0, 0]],
//   weights = [[0.9820, 0.5], [0.0180, 0.5]]: each column sums to 1.
// project_columns (exercise 06) and softmax(m, 0) (exercise 03) are yours to call. Mind the
// order of the parameters: values first, (X, W_v, W_q, W_k, b_v, b_q, b_k), as in the notebook.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

#include <cmath>

namespace attn {

Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    arguments::attention_weights_columns(queries, keys);  // bad input -> a clear error

    // TODO 1. d_k = keys.shape(0).
    //      2. scores = keys.T @ queries, (N, N): column n holds query n's scores.
    //      3. Return softmax(scores / sqrt(d_k), 0): every COLUMN sums to 1.
    throw not_implemented("exercises/08_self_attention_columns.cpp",
                          "attention_weights_columns(queries, keys)");
}

Matrix scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                         const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                         const Matrix& b_k) {
    // bad input -> a clear error
    arguments::scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k);

    // TODO 1. queries = project_columns(W_q, X, b_q); keys and values likewise, with
    //         (W_k, b_k) and (W_v, b_v).
    //      2. weights = attention_weights_columns(queries, keys), (N, N).
    //      3. Return values @ weights, (d_v, N).
    throw not_implemented("exercises/08_self_attention_columns.cpp",
                          "scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k)");
}

}  // namespace attn

// exercises/06_projections.cpp — Exercise 06: queries, keys and values from trainable weights.
//
// The notebook cells it mirrors, In [17] and In [18] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   query_2 = x_2 @ W_query                                    project_token
//   keys = inputs @ W_key                                      project_rows
// and Exercise 1 (step 1 of Exercise 7) of Understanding Deep Learning's self-attention notebook:
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//   query = torch.matmul(W_q, x) + b_q                         project_columns
// Declared in include/attn/trainable_attention.hpp.
// Check your work: `tools/kit check 06`. Stuck? `tools/kit hint 06`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [17]"`.
//
// Goal: from here on attention has trainable weights. Each token is PROJECTED by a weight
// matrix into a query (what it looks for), a key (what it offers) and a value (what it passes
// on). The same product, written in the two conventions you will meet: the row convention
// (PyTorch, the book: a token is a ROW, projected as x @ W) and the column convention
// (udlbook: a token is a COLUMN, projected as W x + b).
// Each function's maths, shapes and the notebook's values:
// include/attn/trainable_attention.hpp, Exercise 06.
// Which numbers: ch03.ipynb draws W_query, W_key and W_value at torch.manual_seed(123), and the
//   cases named *_seed123_* follow it; the *_seed42_* cases draw them at seed 42, the numbers the
//   header quotes.
//   `tools/kit show 06 token_seed123_query_2` prints one of them with its source.
// Worked example (rows): x = [1, 2], W = [[1, 0, 1], [0, 1, 1]] -> x @ W = [1, 2, 3]
// Worked example (columns): W = [[1, 2]], X = [[1, 0], [0, 1]], b = [[10]] -> [[11, 12]]
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

namespace attn {

Vector project_token(const Vector& x, const Matrix& W) {
    arguments::project_token(x, W);  // bad input -> a clear error

    // TODO 1. Return x @ W, the projection of one token: d_out entries.
    throw not_implemented("exercises/06_projections.cpp", "project_token(x, W)");
}

Matrix project_rows(const Matrix& inputs, const Matrix& W) {
    arguments::project_rows(inputs, W);  // bad input -> a clear error

    // TODO 1. Return inputs @ W: every token (row of inputs) projected at once.
    throw not_implemented("exercises/06_projections.cpp", "project_rows(inputs, W)");
}

Matrix project_columns(const Matrix& W, const Matrix& X, const Matrix& b) {
    arguments::project_columns(W, X, b);  // bad input -> a clear error

    // TODO 1. WX = W @ X, (d_out, N).
    //      2. Return WX + b: the bias column added to every column (b broadcasts).
    throw not_implemented("exercises/06_projections.cpp", "project_columns(W, X, b)");
}

}  // namespace attn

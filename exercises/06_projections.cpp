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
// on). The same product, written in the two conventions you will meet:
//   row convention (PyTorch, the book): a token is a ROW x of length d_in, W is (d_in, d_out),
//     projection = x @ W, projection[j] = sum_k x[k] * W[k, j]            -> (d_out,)
//     all T tokens (rows of inputs) at once: inputs @ W                   -> (T, d_out)
//   column convention (udlbook): a token is a COLUMN (D, 1), W is (d_out, D), b is (d_out, 1),
//     projection = W x + b; all N tokens (columns of X) at once: W X + b -> (d_out, N)
// Worked example (rows): x = [1, 2], W = [[1, 0, 1], [0, 1, 1]] -> x @ W = [1, 2, 3]
// Worked example (columns): W = [[1, 2]], X = [[1, 0], [0, 1]], b = [[10]] -> [[11, 12]]
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>

namespace attn {

Vector project_token(const Vector& x, const Matrix& W) {
    checks::require_non_empty("project_token", "x", x);
    checks::require_non_empty("project_token", "W", W);
    checks::require_length("project_token", "W", W, 0, x.shape(0), "d_in (the length of x)");

    // TODO: the projection of one token, x @ W: d_out entries.
    throw not_implemented("exercises/06_projections.cpp", "project_token(x, W)");
}

Matrix project_rows(const Matrix& inputs, const Matrix& W) {
    checks::require_non_empty("project_rows", "inputs", inputs);
    checks::require_non_empty("project_rows", "W", W);
    checks::require_length("project_rows", "W", W, 0, inputs.shape(1), "d_in (inputs.shape(1))");

    // TODO: every token (row of inputs) projected at once, inputs @ W.
    throw not_implemented("exercises/06_projections.cpp", "project_rows(inputs, W)");
}

Matrix project_columns(const Matrix& W, const Matrix& X, const Matrix& b) {
    checks::require_non_empty("project_columns", "W", W);
    checks::require_non_empty("project_columns", "X", X);
    checks::require_length("project_columns", "X", X, 0, W.shape(1), "D (W.shape(1))");
    checks::require_column("project_columns", "b", b, "d_out");
    checks::require_length("project_columns", "b", b, 0, W.shape(0), "d_out (W.shape(0))");

    // TODO: W X + b, the bias column added to every column of W X.
    throw not_implemented("exercises/06_projections.cpp", "project_columns(W, X, b)");
}

}  // namespace attn

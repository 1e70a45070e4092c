// attn/multi_head_attention.hpp — group D: multi-head attention (exercises 16 to 21).
//
// Mirrors section 3.6 of the book "Build a Large Language Model (From Scratch)", the solution of
// its Exercise 3.2, a tutorial on multi-head attention, and Exercise 8 of Understanding Deep
// Learning's self-attention notebook. Each exercise names its cells; the public notebooks:
//   ch03.ipynb, the book's chapter 3 notebook:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   exercise-solutions.ipynb, the book's exercise solutions:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   12_1_Self_Attention.ipynb (Understanding Deep Learning, column convention):
//     https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//
// Several heads look at the same tokens, each with its own projections, and their context
// vectors are put side by side: with num_heads heads of head_dim features each, a token's
// output has num_heads * head_dim features. First as a list of exercise 15's CausalAttention
// modules (the wrapper), then as one module whose projections hold every head at once and are
// split into heads by reshaping (the fused MultiHeadAttention, "one big matmul instead of
// many").
//
// Convention (row convention, as in PyTorch): x is a batch (B, T, d_in); a batch split into
// heads is an attn::Tensor4 (B, num_heads, T, head_dim). Every module is written like its
// nn.Module (attn/module.hpp): parameters under the names of PyTorch's state_dict(), a
// constructor that checks them, forward(x) the exercise. Every check is in attn/checks.hpp.
#pragma once

#include "attn/causal_attention.hpp"
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/module.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// ---- Exercise 16 -------------------------------------------------------------------------

// ---- Exercise 17 -------------------------------------------------------------------------

// ---- Exercise 18 -------------------------------------------------------------------------

// ---- Exercise 19 -------------------------------------------------------------------------

// ---- Exercise 20 -------------------------------------------------------------------------

// ---- Exercise 21 — two heads in the column convention, combined by W_c (UDL Exercise 8) ---
// Understanding Deep Learning's multi-head notebook, in its PyTorch form (X at
// torch.manual_seed(3), the parameters at torch.manual_seed(0); the numpy original draws
// other numbers and prints other true values):
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_2_Multihead_Self_Attention.ipynb
//   X_prime = multihead_scaled_self_attention(X, W_v1, W_q1, W_k1, b_v1, b_q1, b_k1,
//                                             W_v2, W_q2, W_k2, b_v2, b_q2, b_k2, W_c)
// The COLUMN convention of exercise 08 (a token is a column of X), with several heads: each
// head is exercise 08's scaled_dot_product_self_attention with its own parameters, the heads'
// outputs are stacked along dim 0 (their ROWS, torch.cat(..., dim=0)), and W_c mixes them:
//   head h:  (d_v, N) = V_h @ softmax_cols(K_h.T @ Q_h / sqrt(d_k))
//   stacked: (num_heads * d_v, N), head h in rows h * d_v to (h + 1) * d_v - 1
//   X_prime = W_c @ stacked: (D_out, N), column n is token n's output
// Every head has the same shapes (the first head's). The notebook: D = 8, N = 6, two heads of
// d_k = d_v = D / 2 = 4, W_c (8, 8); X_prime is 8x6, its first row
//   [7.501, 15.386, 12.121, 23.458, 5.546, -7.499].

// One head's parameters, exercise 08's in the order the notebook draws them:
// W_q, W_k: (d_k, D), W_v: (d_v, D); b_q, b_k: (d_k, 1), b_v: (d_v, 1) columns.
struct ColumnHead {
    Matrix W_q, W_k, W_v, b_q, b_k, b_v;
};
using ColumnHeads = std::vector<ColumnHead>;  // head 0 first, as torch.cat stacks them

// X: (D, N), heads: num_heads >= 1 heads of one shape, W_c: (D_out, num_heads * d_v)
// -> X_prime (D_out, N). Throws attn::shape_error for an empty X or no heads, a head whose
// shapes do not fit X or differ from the first head's, or W_c whose columns are not
// num_heads * d_v.
Matrix multi_head_attention_columns(const Matrix& X, const ColumnHeads& heads, const Matrix& W_c);

}  // namespace attn

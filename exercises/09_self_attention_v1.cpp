// exercises/09_self_attention_v1.cpp — Exercise 09: SelfAttention_v1, attention as a module.
//
// The notebook cell it mirrors, In [23] of the book's chapter 3 notebook (Listing 3.1):
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   keys = x @ self.W_key
//   queries = x @ self.W_query
//   values = x @ self.W_value
//   attn_scores = queries @ keys.T
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//   context_vec = attn_weights @ values
// Declared in include/attn/self_attention.hpp.
// Check your work: `tools/kit check 09`. Stuck? `tools/kit hint 09`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [23]" "004 text"`.
//   attn::TorchGenerator torch(42); attn::SelfAttention_v1 sa_v1(3, 2, torch);
// is the cell's torch.manual_seed(...) and constructor: the same parameters, bit for bit.
//
// Goal: one context vector per token, from three trainable projections. The module holds
// W_query, W_key and W_value; every token (a row of x) is projected by x @ W.
// The module's maths, shapes and the notebook's values: include/attn/self_attention.hpp,
// Exercise 09.
// Which numbers: ch03.ipynb builds SelfAttention_v1 at torch.manual_seed(123), and the case
//   notebook_seed123 follows it; notebook_seed42 runs the same cell at seed 42.
//   `tools/kit show 09 notebook_seed123` prints one of them with its source.
// Worked example: d_in = d_out = 1, W_query = W_key = W_value = [[1]], x = [[0], [2]]:
//   queries = keys = values = [[0], [2]], scores = [[0, 0], [0, 4]],
//   weights = softmax([[0, 0], [0, 4]]) = [[0.5, 0.5], [0.018, 0.982]] (sqrt(1) = 1),
//   context = [[1.0], [1.964]]: token 1 attends mostly to itself.
// `softmax(matrix, -1)` from exercise 03 is there for you (the kit's reference version).
// `xt::linalg::dot(a, b)` is the matrix product a @ b of two 2-D tensors, and
// `xt::transpose(m)` a transposed view.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v1::forward(const Matrix& x) const {
    arguments::self_attention_v1_forward(x, W_query, W_key, W_value);  // bad input -> a clear error

    // TODO 1. queries = x @ W_query; keys = x @ W_key; values = x @ W_value: (T, d_out) each.
    //      2. scores = queries @ keys.T, (T, T).
    //      3. weights = softmax(scores / sqrt(d_k), -1), d_k = keys.shape(1).
    //      4. Return weights @ values, (T, d_out).
    throw not_implemented("exercises/09_self_attention_v1.cpp", "SelfAttention_v1::forward(x)");
}

}  // namespace attn

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
// W_query, W_key and W_value, each of shape (d_in, d_out); every token (a row of x) is
// projected by x @ W.
//   x: (T, d_in) -> queries, keys, values: (T, d_out)
//   scores = queries @ keys.T                       (T, T), scores[i, j] = q_i . k_j
//   weights = softmax(scores / sqrt(d_k), dim=-1)   d_k = d_out, the keys' width
//   context = weights @ values                      (T, d_out)
// Worked example: d_in = d_out = 1, W_query = W_key = W_value = [[1]], x = [[0], [2]]:
//   queries = keys = values = [[0], [2]], scores = [[0, 0], [0, 4]],
//   weights = softmax([[0, 0], [0, 4]]) = [[0.5, 0.5], [0.018, 0.982]] (sqrt(1) = 1),
//   context = [[1.0], [1.964]]: token 1 attends mostly to itself.
// `softmax(matrix, -1)` from exercise 03 is there for you (the kit's reference version).
// `xt::linalg::dot(a, b)` is the matrix product a @ b of two 2-D tensors, and
// `xt::transpose(m)` a transposed view.
#include "attn/errors.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v1::forward(const Matrix& x) const {
    const std::string function = "SelfAttention_v1.forward";
    checks::require_same_shape(function, "W_key", W_key, W_query);
    checks::require_same_shape(function, "W_value", W_value, W_query);
    checks::require_tokens(function, x, "W_query", W_query, /*rows_are_d_in=*/true);

    // TODO: project x to queries, keys and values, score every query against every key,
    // scale by 1 / sqrt(d_k), softmax each row, and weight the values.
    throw not_implemented("exercises/09_self_attention_v1.cpp", "SelfAttention_v1::forward(x)");
}

}  // namespace attn

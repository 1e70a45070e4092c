// attn/simple_attention.hpp — group A: self-attention without trainable weights.
//
// Mirrors section 3.3 of the book "Build a Large Language Model (From Scratch)": six tokens
// "Your journey starts with one step", each embedded as a 3-D row of `inputs` (T = 6 tokens,
// d_in = 3). Each exercise below names its cells ("ch03.ipynb In [3]") and their PyTorch
// calls; the book's chapter 3 notebook, ch03.ipynb, is public:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
// Exercise 03's column softmax follows softmax_cols in Understanding Deep Learning's
// 12_1_Self_Attention.ipynb:
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//
// Convention (row convention, as in PyTorch): a token is a ROW; inputs has shape (T, d_in);
// scores[i, j] compares query token i with key token j; row i of the weights sums to 1.
//
// Each exercise below is one or more functions (03 has three, 04 and 05 more than one). You
// write them in exercises/NN_name.cpp; the reference answers are in solutions/NN_name.cpp.
// Every function throws attn::shape_error when an argument has the wrong shape (the stubs'
// first line makes those checks: one call into attn/arguments.hpp).
#pragma once

#include "attn/tensor.hpp"

#include <cstddef>

namespace attn {

// ---- Exercise 01 — dot-product scores (book §3.3.1) --------------------------------------
// ch03.ipynb In [3]: attn_scores_2[i] = torch.dot(x_i, query)
// The attention score of the query against every input token, one dot product per token:
//   scores[i] = sum_k query[k] * inputs[i, k]
// inputs: (T, d_in), query: (d_in,) -> scores: (T,)
// With query = inputs[1] ("journey"): [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]
Vector dot_scores(const Matrix& inputs, const Vector& query);

// ---- Exercise 02 — normalising by the sum (book §3.3.1) ----------------------------------
// ch03.ipynb In [5]: attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()
// The naive attention weights: each score divided by the sum of all scores.
//   weights[i] = scores[i] / sum_j scores[j]
// scores: (T,) -> weights: (T,), summing to 1
// [0.9544, 1.4950, ...] -> [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]
Vector normalize_by_sum(const Vector& scores);

// ---- Exercise 03 — softmax (book §3.3.1 and §3.3.2) -------------------------------------
// ch03.ipynb In [6]: torch.exp(x) / torch.exp(x).sum(dim=0)                  (softmax_naive)
// ch03.ipynb In [7]: attn_weights_2 = torch.softmax(attn_scores_2, dim=0)    (softmax)
// ch03.ipynb In [11]: attn_weights = torch.softmax(attn_scores, dim=-1)      (rows)
// 12_1_Self_Attention.ipynb, the softmax_cols cell:                          (columns)
//   np.exp(data_in) / np.sum(np.exp(data_in), axis=0)
// softmax(x)_i = exp(x_i) / sum_j exp(x_j): positive weights that sum to 1.
//
// softmax_naive: exactly that formula. exp(1000) overflows float32 to inf, so the naive
// form turns [1000, 1001] into [nan, nan].
// x: (n,) -> (n,)
Vector softmax_naive(const Vector& x);

// softmax: the max-subtracted form, softmax(x) = softmax(x - max(x)). Identical in exact
// arithmetic, but every exp() argument is <= 0, so nothing overflows:
// [1000, 1001] -> [0.2689, 0.7311]. This is what torch.softmax computes.
// x: (n,) -> (n,)
Vector softmax(const Vector& x);

// softmax of a matrix along one dimension, as torch.softmax(scores, dim):
//   dim = -1 or 1: each ROW sums to 1 (the attention weights of ch03.ipynb In [11])
//   dim = 0 or -2: each COLUMN sums to 1 (softmax_cols, in the column convention)
// scores: (R, C) -> (R, C). Any other dim throws std::out_of_range.
Matrix softmax(const Matrix& scores, int dim);

// ---- Exercise 04 — one context vector (book §3.3.1) --------------------------------------
// ch03.ipynb In [8]: context_vec_2 += attn_weights_2[i]*x_i
// The context vector of one query: the inputs weighted by the attention weights, summed.
//   context[k] = sum_i weights[i] * inputs[i, k]
// inputs: (T, d_in), weights: (T,) -> context: (d_in,)
// With the softmax weights of query "journey": [0.4419, 0.6515, 0.5683]
Vector context_vector(const Matrix& inputs, const Vector& weights);

// In [3], In [7] and In [8] in a row for the token at `query_index`: dot_scores (exercise 01),
// softmax (exercise 03), then context_vector. Query 0 ("Your"): [0.4421, 0.5931, 0.5790]
// inputs: (T, d_in) -> context: (d_in,). query_index >= T throws std::out_of_range.
Vector context_vector_for_query(const Matrix& inputs, std::size_t query_index);

// ---- Exercise 05 — all context vectors at once (book §3.3.2) -----------------------------
// ch03.ipynb In [9]: attn_scores[i, j] = torch.dot(x_i, x_j)
// ch03.ipynb In [10]: attn_scores = inputs @ inputs.T
// ch03.ipynb In [11], In [13]: all_context_vecs = torch.softmax(attn_scores, dim=-1) @ inputs
// All-pairs attention scores, scores[i, j] = dot(inputs[i], inputs[j]), computed two ways:
// with a double loop (In [9]) and as one matrix product inputs @ inputs.T (In [10]).
// inputs: (T, d_in) -> scores: (T, T)
Matrix attention_scores_loops(const Matrix& inputs);
Matrix attention_scores_matmul(const Matrix& inputs);

// Every token's context vector: softmax(inputs @ inputs.T, dim=-1) @ inputs (In [11], [13]).
// inputs: (T, d_in) -> context vectors: (T, d_in); row 1 is exercise 04's context vector.
Matrix all_context_vectors(const Matrix& inputs);

}  // namespace attn

// attn/trainable_attention.hpp — group B, first part: self-attention with trainable weights,
// projections and scaled attention step by step (exercises 06, 07 and 08).
//
// Two notebooks, two conventions; every function below says which one it follows.
//
// ROW convention — section 3.4.1 of the book "Build a Large Language Model (From Scratch)",
// ch03.ipynb In [15] to In [22]:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   A token is a ROW. inputs: (T, d_in), the six "Your journey starts with one step" tokens
//   (T = 6, d_in = 3). The weights are (d_in, d_out) matrices, d_out = 2, drawn by
//   torch.rand after torch.manual_seed(...), and a token is projected as x @ W.
//   The public notebook draws at seed 123 (query_2 = [0.4306, 1.4551]), the course's copy of
//   it at seed 42 (query_2 = [1.0760, 1.7344]). The kit's cases cover both.
//
// COLUMN convention — Understanding Deep Learning's 12_1_Self_Attention.ipynb, Exercises 1
// to 7, in its PyTorch form (inputs at torch.manual_seed(3), weights at torch.manual_seed(0)):
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//   A token is a COLUMN x of shape (D, 1); N = 3 tokens, D = 4. X: (D, N) holds them as its
//   columns. The weights are (d_out, D) and the biases (d_out, 1) columns, and a token is
//   projected as W x + b. Attention weights are normalised along the COLUMNS (softmax_cols):
//   column n of a (N, N) weight matrix belongs to query n.
//
// The same maths in both: the dot product of a query with a key, divided by sqrt(d_k) (d_k
// is the length of a key vector), softmax, then the attention-weighted sum of the values.
// Every function throws attn::shape_error when an argument has the wrong shape (the stubs'
// first line makes those checks: one call into attn/arguments.hpp). You may call the
// earlier exercises' functions, e.g. softmax from exercise 03
// (include/attn/simple_attention.hpp); the kit links their reference versions.
#pragma once

#include "attn/tensor.hpp"

#include <cstddef>

namespace attn {

// ---- Exercise 06 — projections: queries, keys and values ---------------------------------
// Row convention (book §3.4.1):
// ch03.ipynb In [17]: query_2 = x_2 @ W_query
// A token x (d_in,) times a weight W (d_in, d_out): its query (or key, or value), d_out
// entries, projection[j] = sum_k x[k] * W[k, j].
// x: (d_in,), W: (d_in, d_out) -> (d_out,)
// x_2 = inputs[1] ("journey"), W_query at seed 42 -> [1.0760, 1.7344]
Vector project_token(const Vector& x, const Matrix& W);

// ch03.ipynb In [18]: keys = inputs @ W_key; values = inputs @ W_value
// Every token at once: row t of the result is project_token(inputs[t], W).
// inputs: (T, d_in), W: (d_in, d_out) -> (T, d_out)        (keys.shape == (6, 2))
Matrix project_rows(const Matrix& inputs, const Matrix& W);

// Column convention (12_1_Self_Attention.ipynb Exercise 1, and step 1 of Exercise 7):
//   query = torch.matmul(W_q, x) + b_q
// W (d_out, D) times the token columns X (D, N), plus the bias column b added to every
// column: projections[:, n] = W @ X[:, n] + b. One token is the case N = 1.
// W: (d_out, D), X: (D, N), b: (d_out, 1) -> (d_out, N)
Matrix project_columns(const Matrix& W, const Matrix& X, const Matrix& b);

// ---- Exercise 07 — scaled dot-product attention for one query, step by step --------------
// Row convention (book §3.4.1), for the query of token 2:
// ch03.ipynb In [20]: attn_scores_2 = query_2 @ keys.T    (In [19]: one of them, attn_score_22)
// The score of the query against every key, one dot product per token (exercise 01 with
// projected vectors): scores[t] = sum_k query[k] * keys[t, k].
// query: (d_k,), keys: (T, d_k) -> (T,)
// Seed 42: [2.7084, 3.3338, 3.3013, 1.7563, 1.7869, 2.1966] (attn_score_22 = 3.3338)
Vector attention_scores(const Vector& query, const Matrix& keys);

// ch03.ipynb In [21]: attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
// SCALED attention weights: the scores divided by sqrt(d_k), then softmax. d_k is the
// length of a key vector (keys.shape[-1]). Without the scaling, the dot products of long
// vectors (they grow like sqrt(d_k)) push softmax towards a one-hot row.
// scores: (T,), d_k >= 1 -> (T,), summing to 1
// Seed 42 (d_k = 2): [0.1723, 0.2681, 0.2620, 0.0879, 0.0898, 0.1200]
Vector scaled_attention_weights(const Vector& scores, std::size_t d_k);

// ch03.ipynb In [22]: context_vec_2 = attn_weights_2 @ values
// The context vector: the values weighted by the attention weights and summed,
// context[j] = sum_t weights[t] * values[t, j].
// weights: (T,), values: (T, d_v) -> (d_v,)
// Seed 42: [1.4201, 0.8892]
Vector weighted_values(const Vector& weights, const Matrix& values);

// Column convention (12_1_Self_Attention.ipynb), for one query column:
// Exercise 2: dot_product = torch.matmul(query.T, key).squeeze(); dot_product / math.sqrt(D)
// The scaled score of the query against every key COLUMN: scores[m] = dot(query, keys[:, m])
// / sqrt(d_k), d_k = query.shape(0) (the notebook's D). Exercise 4's weights are
// softmax(scores) of these.
// keys: (d_k, N), query: (d_k, 1) -> (N,)
// Query of x_1: [-2.8869, 3.6531, -1.1920]; its softmax: [0.0014, 0.9908, 0.0078]
Vector scaled_scores_column(const Matrix& keys, const Matrix& query);

// Exercise 5: the sum over m of weights[m] * v_m, v_m = values[:, m], a (d_v, 1) column.
// weights: (N,), values: (d_v, N) -> (d_v, 1)
// Weights of x_1: [[0.2117], [1.0697], [-3.3355], [-4.9260]]
Matrix weighted_values_column(const Vector& weights, const Matrix& values);

// Exercise 6, all steps for query n: scaled_scores_column of queries[:, n], softmax, then
// weighted_values_column. queries, keys: (d_k, N), values: (d_v, N), n < N -> (d_v, 1).
// n = 1: [[0.6486], [0.9883], [-2.4109], [-3.0185]]. n >= N throws std::out_of_range.
Matrix self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                   std::size_t n);

// ---- Exercise 08 — self-attention in matrix form, column convention ----------------------
// 12_1_Self_Attention.ipynb Exercise 7, steps 2 to 4:
//   attention_weights = softmax_cols(torch.matmul(keys.T, queries) / torch.sqrt(d_k))
// Every query's weights at once: scores = keys.T @ queries, (N, N), column n holding query
// n's scores against every key; divided by sqrt(d_k), d_k = keys.shape(0); softmax of each
// COLUMN. Column n of the result is exercise 07's softmax(scaled_scores_column(keys,
// queries[:, n])). queries, keys: (d_k, N) -> (N, N), every column summing to 1.
Matrix attention_weights_columns(const Matrix& queries, const Matrix& keys);

// 12_1_Self_Attention.ipynb Exercise 7:
//   X_prime = scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k)
// The whole mechanism: queries, keys and values by project_columns (exercise 06), the
// attention weights above, then X_prime = values @ weights: column n is token n's output.
// Mind the order of the parameters: values first, as in the notebook.
// X: (D, N), W_v: (d_v, D), W_q and W_k: (d_k, D), b_v: (d_v, 1), b_q and b_k: (d_k, 1)
// -> (d_v, N). The notebook (D = d_k = d_v = 4, N = 3):
//   [[ 0.2117,  0.6486,  0.6463],
//    [ 1.0697,  0.9883,  0.8405],
//    [-3.3355, -2.4109, -1.6421],
//    [-4.9260, -3.0185, -0.0805]]
Matrix scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                         const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                         const Matrix& b_k);

}  // namespace attn

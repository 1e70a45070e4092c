// attn/arguments.hpp — the argument checks of every exercise's functions, one call each.
//
// A student's function starts with one line, arguments::dot_scores(inputs, query), that
// rejects bad input with a message naming the problem (an attn::shape_error, or a
// std::invalid_argument or std::out_of_range for a value out of range) before the part the
// student writes. The stub and the solution make that same call, so their checks cannot
// drift apart, and the stub shows the TODO, not a dozen check lines. Each function is named
// after the API function it checks (include/attn/*.hpp); a method's after its class. The
// building blocks are in attn/checks.hpp. Exercises 23 and 24 (the GPU track, compiled by
// nvcc too) have theirs in attn/arguments_gpu.hpp, free of xtensor. The checks' bodies are
// in kit/api/arguments.cpp.
#pragma once

#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace attn::arguments {

// ---- Exercise 01 — dot-product scores (book §3.3.1) --------------------------------------
void dot_scores(const Matrix& inputs, const Vector& query);

// ---- Exercise 02 — normalising by the sum (book §3.3.1) ----------------------------------
void normalize_by_sum(const Vector& scores);

// ---- Exercise 03 — softmax (book §3.3.1 and §3.3.2) -------------------------------------
void softmax_naive(const Vector& x);
void softmax(const Vector& x);

// Returns the axis of `dim`, 0 or 1 (dim -1 is axis 1).
std::size_t softmax(const Matrix& scores, int dim);

// ---- Exercise 04 — one context vector (book §3.3.1) --------------------------------------
void context_vector(const Matrix& inputs, const Vector& weights);
void context_vector_for_query(const Matrix& inputs, std::size_t query_index);

// ---- Exercise 05 — all context vectors at once (book §3.3.2) -----------------------------
void attention_scores_loops(const Matrix& inputs);
void attention_scores_matmul(const Matrix& inputs);
void all_context_vectors(const Matrix& inputs);

// ---- Exercise 06 — projections: queries, keys and values ---------------------------------
void project_token(const Vector& x, const Matrix& W);
void project_rows(const Matrix& inputs, const Matrix& W);
void project_columns(const Matrix& W, const Matrix& X, const Matrix& b);

// ---- Exercise 07 — scaled dot-product attention for one query, step by step --------------
void attention_scores(const Vector& query, const Matrix& keys);
void scaled_attention_weights(const Vector& scores, std::size_t d_k);
void weighted_values(const Vector& weights, const Matrix& values);
void scaled_scores_column(const Matrix& keys, const Matrix& query);
void weighted_values_column(const Vector& weights, const Matrix& values);
void self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                 std::size_t n);

// ---- Exercise 08 — self-attention in matrix form, column convention ----------------------
void attention_weights_columns(const Matrix& queries, const Matrix& keys);
void scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
                                       const Matrix& W_k, const Matrix& b_v, const Matrix& b_q,
                                       const Matrix& b_k);

// ---- Exercise 09 — SelfAttention_v1 (book §3.4.2, Listing 3.1) ---------------------------
// The constructor SelfAttention_v1(W_query, W_key, W_value).
void self_attention_v1(const Matrix& W_query, const Matrix& W_key, const Matrix& W_value);

// SelfAttention_v1::forward(x), given the module's three (d_in, d_out) matrices.
void self_attention_v1_forward(const Matrix& x, const Matrix& W_query, const Matrix& W_key,
                               const Matrix& W_value);

// ---- Exercise 10 — SelfAttention_v2 (book §3.4.2, Listing 3.2) ---------------------------
// The constructor SelfAttention_v2(W_query, W_key, W_value).
void self_attention_v2(const Linear& W_query, const Linear& W_key, const Linear& W_value);

// SelfAttention_v2::forward(x), given the module's three Linear layers.
void self_attention_v2_forward(const Matrix& x, const Linear& W_query, const Linear& W_key,
                               const Linear& W_value);

// ---- Exercise 11 — Exercise 3.1: v2's weights in v1 -------------------------------------
// From: SelfAttention_v2, To: SelfAttention_v1 (attn/self_attention.hpp).
template <class From, class To>
void transfer_weights(const From& from, const To& to) {
    checks::require_transferable("transfer_weights", from, to);
}

// ---- Exercise 12 — the tril mask, then renormalise (book §3.5.1) -------------------------
void tril_mask(std::size_t context_length);
void apply_tril_mask(const Matrix& weights);
void mask_and_renormalize(const Matrix& weights);

// ---- Exercise 13 — -inf above the diagonal, before softmax (book §3.5.1) -----------------
void future_mask(std::size_t context_length);
void mask_future(const Matrix& scores);
void causal_attention_weights(const Matrix& scores, std::size_t d_k);

// ---- Exercise 14 — dropout (book §3.5.2) --------------------------------------------------
void dropout(const Matrix& x, const Matrix& keep, float p);

// ---- Exercise 15 — CausalAttention on a batch (book §3.5.3) -------------------------------
// The constructor CausalAttention(W_query, W_key, W_value, context_length).
void causal_attention(const Linear& W_query, const Linear& W_key, const Linear& W_value,
                      std::size_t context_length);

// CausalAttention::forward(x), given the module's d_in() and context_length().
void causal_attention_forward(const Tensor3& x, std::size_t d_in, std::size_t context_length);

// ---- Exercise 16 — MultiHeadAttentionWrapper: heads side by side (book §3.6.1) -----------
// The constructor MultiHeadAttentionWrapper(heads); Head: CausalAttention.
template <class Head>
void multi_head_attention_wrapper(const std::vector<Head>& heads) {
    checks::require_heads_alike("MultiHeadAttentionWrapper", heads);
}

// MultiHeadAttentionWrapper::forward(x), given the module's d_in() and context_length().
void multi_head_attention_wrapper_forward(const Tensor3& x, std::size_t d_in,
                                          std::size_t context_length);

// ---- Exercise 17 — Exercise 3.2: the output width chosen by one argument -----------------
void wrapper_for_output_width(std::size_t output_width, std::size_t num_heads);

// ---- Exercise 18 — Exercise 3.2 the other way: heads split, no mask, fc_out ----------------
// The constructor UnmaskedMultiHeadAttention(W_query, W_key, W_value, fc_out, num_heads).
void unmasked_multi_head_attention(const Linear& W_query, const Linear& W_key,
                                   const Linear& W_value, const Linear& fc_out,
                                   std::size_t num_heads);

// UnmaskedMultiHeadAttention::forward(x), given the module's d_in().
void unmasked_multi_head_attention_forward(const Tensor3& x, std::size_t d_in);

// ---- Exercise 19 — MultiHeadAttention: one projection, split into heads (book §3.6.2) ----
void split_heads(const Tensor3& projected, std::size_t num_heads);
void merge_heads(const Tensor4& heads);
void truncated_mask(const Matrix& mask, std::size_t T);

// The constructor MultiHeadAttention(W_query, W_key, W_value, out_proj, num_heads,
// context_length).
void multi_head_attention(const Linear& W_query, const Linear& W_key, const Linear& W_value,
                          const Linear& out_proj, std::size_t num_heads,
                          std::size_t context_length);

// MultiHeadAttention::forward(x), given the module's d_in() and context_length().
void multi_head_attention_forward(const Tensor3& x, std::size_t d_in, std::size_t context_length);

// ---- Exercise 21 — two heads in the column convention, combined by W_c (UDL Exercise 8) ---
// Heads: attn::ColumnHeads (attn/multi_head_attention.hpp).
template <class Heads>
void multi_head_attention_columns(const Matrix& X, const Heads& heads, const Matrix& W_c) {
    const char* const function = "multi_head_attention_columns";
    checks::require_non_empty(function, "X", X);
    checks::require_column_heads(function, heads, X.shape(0));
    checks::require_length(function, "W_c", W_c, 1, heads.size() * heads[0].W_v.shape(0),
                           "num_heads * d_v (the rows of the stacked heads)");
}

// ---- Exercise 22 — GPT-2 small's attention layer: build it, count it (Exercise 3.3) -------
void score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T);
void mask_buffer_bytes(std::size_t context_length);

// forward_flops(module, batch, T): the module is built, so only the sizes are checked.
void forward_flops(std::size_t batch, std::size_t T);

}  // namespace attn::arguments

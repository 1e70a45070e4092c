// kit/api/arguments.cpp — the bodies of include/attn/arguments.hpp's argument checks.
//
// Compiled once into attn_api, not inline in the header: each body instantiates xtensor's
// templates, and every exercise file includes arguments.hpp, so the recompile after a
// student's edit paid for all of them.
#include "attn/arguments.hpp"

#include "attn/checks.hpp"
#include "attn/errors.hpp"

#include <xtensor/xoperation.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace attn::arguments {

// ---- Exercise 01 — dot-product scores (book §3.3.1) --------------------------------------
void dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");
}

// ---- Exercise 02 — normalising by the sum (book §3.3.1) ----------------------------------
void normalize_by_sum(const Vector& scores) {
    checks::require_non_empty("normalize_by_sum", "scores", scores);
}

// ---- Exercise 03 — softmax (book §3.3.1 and §3.3.2) -------------------------------------
void softmax_naive(const Vector& x) { checks::require_non_empty("softmax_naive", "x", x); }

void softmax(const Vector& x) { checks::require_non_empty("softmax", "x", x); }

std::size_t softmax(const Matrix& scores, int dim) {
    const std::size_t axis = checks::normalize_dim("softmax", dim);
    checks::require_non_empty("softmax", "scores", scores);
    return axis;
}

// ---- Exercise 04 — one context vector (book §3.3.1) --------------------------------------
void context_vector(const Matrix& inputs, const Vector& weights) {
    checks::require_non_empty("context_vector", "inputs", inputs);
    checks::require_length("context_vector", "weights", weights, 0, inputs.shape(0), "T");
}

void context_vector_for_query(const Matrix& inputs, std::size_t query_index) {
    checks::require_non_empty("context_vector_for_query", "inputs", inputs);
    checks::require_row_index("context_vector_for_query", "query_index", query_index,
                              inputs.shape(0));
}

// ---- Exercise 05 — all context vectors at once (book §3.3.2) -----------------------------
void attention_scores_loops(const Matrix& inputs) {
    checks::require_non_empty("attention_scores_loops", "inputs", inputs);
}

void attention_scores_matmul(const Matrix& inputs) {
    checks::require_non_empty("attention_scores_matmul", "inputs", inputs);
}

void all_context_vectors(const Matrix& inputs) {
    checks::require_non_empty("all_context_vectors", "inputs", inputs);
}

// ---- Exercise 06 — projections: queries, keys and values ---------------------------------
void project_token(const Vector& x, const Matrix& W) {
    checks::require_non_empty("project_token", "x", x);
    checks::require_non_empty("project_token", "W", W);
    checks::require_length("project_token", "W", W, 0, x.shape(0), "d_in (the length of x)");
}

void project_rows(const Matrix& inputs, const Matrix& W) {
    checks::require_non_empty("project_rows", "inputs", inputs);
    checks::require_non_empty("project_rows", "W", W);
    checks::require_length("project_rows", "W", W, 0, inputs.shape(1), "d_in (inputs.shape(1))");
}

void project_columns(const Matrix& W, const Matrix& X, const Matrix& b) {
    checks::require_non_empty("project_columns", "W", W);
    checks::require_non_empty("project_columns", "X", X);
    checks::require_length("project_columns", "X", X, 0, W.shape(1), "D (W.shape(1))");
    checks::require_column("project_columns", "b", b, "d_out");
    checks::require_length("project_columns", "b", b, 0, W.shape(0), "d_out (W.shape(0))");
}

// ---- Exercise 07 — scaled dot-product attention for one query, step by step --------------
void attention_scores(const Vector& query, const Matrix& keys) {
    checks::require_non_empty("attention_scores", "query", query);
    checks::require_non_empty("attention_scores", "keys", keys);
    checks::require_length("attention_scores", "keys", keys, 1, query.shape(0),
                           "d_k (the length of query)");
}

void scaled_attention_weights(const Vector& scores, std::size_t d_k) {
    checks::require_non_empty("scaled_attention_weights", "scores", scores);
    if (d_k == 0) {
        throw std::invalid_argument(
            "scaled_attention_weights: d_k is 0, but it is the length "
            "of a key vector: at least 1");
    }
}

void weighted_values(const Vector& weights, const Matrix& values) {
    checks::require_non_empty("weighted_values", "values", values);
    checks::require_length("weighted_values", "weights", weights, 0, values.shape(0),
                           "T (values.shape(0))");
}

void scaled_scores_column(const Matrix& keys, const Matrix& query) {
    checks::require_non_empty("scaled_scores_column", "keys", keys);
    checks::require_non_empty("scaled_scores_column", "query", query);
    checks::require_column("scaled_scores_column", "query", query, "d_k");
    checks::require_length("scaled_scores_column", "keys", keys, 0, query.shape(0),
                           "d_k (query.shape(0))");
}

void weighted_values_column(const Vector& weights, const Matrix& values) {
    checks::require_non_empty("weighted_values_column", "values", values);
    checks::require_length("weighted_values_column", "weights", weights, 0, values.shape(1),
                           "N (values.shape(1))");
}

void self_attention_column_query(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                 std::size_t n) {
    checks::require_non_empty("self_attention_column_query", "queries", queries);
    checks::require_length("self_attention_column_query", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");
    checks::require_length("self_attention_column_query", "keys", keys, 1, queries.shape(1),
                           "N (queries.shape(1))");
    checks::require_length("self_attention_column_query", "values", values, 1, queries.shape(1),
                           "N (queries.shape(1))");
    checks::require_non_empty("self_attention_column_query", "values", values);
    checks::require_row_index("self_attention_column_query", "n", n, queries.shape(1));
}

// ---- Exercise 08 — self-attention in matrix form, column convention ----------------------
void attention_weights_columns(const Matrix& queries, const Matrix& keys) {
    checks::require_non_empty("attention_weights_columns", "queries", queries);
    checks::require_non_empty("attention_weights_columns", "keys", keys);
    checks::require_length("attention_weights_columns", "keys", keys, 0, queries.shape(0),
                           "d_k (queries.shape(0))");
}

void scaled_dot_product_self_attention(const Matrix& X, const Matrix& W_v, const Matrix& W_q,
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
}

// ---- Exercise 09 — SelfAttention_v1 (book §3.4.2, Listing 3.1) ---------------------------
void self_attention_v1(const Matrix& W_query, const Matrix& W_key, const Matrix& W_value) {
    checks::require_non_empty("SelfAttention_v1", "W_query", W_query);
    checks::require_same_shape("SelfAttention_v1", "W_key", W_key, W_query);
    checks::require_same_shape("SelfAttention_v1", "W_value", W_value, W_query);
}

void self_attention_v1_forward(const Matrix& x, const Matrix& W_query, const Matrix& W_key,
                               const Matrix& W_value) {
    const std::string function = "SelfAttention_v1.forward";
    checks::require_same_shape(function, "W_key", W_key, W_query);
    checks::require_same_shape(function, "W_value", W_value, W_query);
    checks::require_tokens(function, x, "W_query", W_query, /*rows_are_d_in=*/true);
}

// ---- Exercise 10 — SelfAttention_v2 (book §3.4.2, Listing 3.2) ---------------------------
void self_attention_v2(const Linear& W_query, const Linear& W_key, const Linear& W_value) {
    checks::require_layer_like("SelfAttention_v2", "W_query", W_query, "W_query", W_query);
    checks::require_layer_like("SelfAttention_v2", "W_key", W_key, "W_query", W_query, true);
    checks::require_layer_like("SelfAttention_v2", "W_value", W_value, "W_query", W_query, true);
}

void self_attention_v2_forward(const Matrix& x, const Linear& W_query, const Linear& W_key,
                               const Linear& W_value) {
    const std::string function = "SelfAttention_v2.forward";
    checks::require_same_shape(function, "W_key.weight", W_key.weight, W_query.weight);
    checks::require_same_shape(function, "W_value.weight", W_value.weight, W_query.weight);
    checks::require_tokens(function, x, "W_query.weight", W_query.weight,
                           /*rows_are_d_in=*/false);
}

// ---- Exercise 11 — Exercise 3.1: v2's weights in v1 -------------------------------------
// ---- Exercise 12 — the tril mask, then renormalise (book §3.5.1) -------------------------
void tril_mask(std::size_t context_length) {
    checks::require_positive("tril_mask", "context_length", context_length);
}

void apply_tril_mask(const Matrix& weights) {
    checks::require_square("apply_tril_mask", "weights", weights);
}

void mask_and_renormalize(const Matrix& weights) {
    checks::require_square("mask_and_renormalize", "weights", weights);
}

// ---- Exercise 13 — -inf above the diagonal, before softmax (book §3.5.1) -----------------
void future_mask(std::size_t context_length) {
    checks::require_positive("future_mask", "context_length", context_length);
}

void mask_future(const Matrix& scores) { checks::require_square("mask_future", "scores", scores); }

void causal_attention_weights(const Matrix& scores, std::size_t d_k) {
    checks::require_square("causal_attention_weights", "scores", scores);
    checks::require_positive("causal_attention_weights", "d_k", d_k);
}

// ---- Exercise 14 — dropout (book §3.5.2) --------------------------------------------------
void dropout(const Matrix& x, const Matrix& keep, float p) {
    if (keep.shape() != x.shape()) {
        throw shape_error("dropout: keep has shape " + shape_string(keep.shape()) +
                          ", but it must have x's shape " + shape_string(x.shape()));
    }
    if (!(p >= 0.0f && p <= 1.0f)) {
        throw std::invalid_argument("dropout: p = " + std::to_string(p) +
                                    " is not a probability: it must lie in [0, 1]");
    }
    if (!xt::all(xt::equal(keep, 0.0f) || xt::equal(keep, 1.0f))) {
        throw std::invalid_argument(
            "dropout: keep holds a value other than 0 or 1 (1 keeps "
            "an entry, 0 drops it)");
    }
}

// ---- Exercise 15 — CausalAttention on a batch (book §3.5.3) -------------------------------
void causal_attention(const Linear& W_query, const Linear& W_key, const Linear& W_value,
                      std::size_t context_length) {
    checks::require_layer_like("CausalAttention", "W_query", W_query, "W_query", W_query);
    checks::require_layer_like("CausalAttention", "W_key", W_key, "W_query", W_query, true);
    checks::require_layer_like("CausalAttention", "W_value", W_value, "W_query", W_query, true);
    checks::require_positive("CausalAttention", "context_length", context_length);
}

void causal_attention_forward(const Tensor3& x, std::size_t d_in, std::size_t context_length) {
    checks::require_batch("CausalAttention.forward", x, d_in, context_length);
}

// ---- Exercise 16 — MultiHeadAttentionWrapper: heads side by side (book §3.6.1) -----------
void multi_head_attention_wrapper_forward(const Tensor3& x, std::size_t d_in,
                                          std::size_t context_length) {
    checks::require_batch("MultiHeadAttentionWrapper.forward", x, d_in, context_length);
}

// ---- Exercise 17 — Exercise 3.2: the output width chosen by one argument -----------------
void wrapper_for_output_width(std::size_t output_width, std::size_t num_heads) {
    checks::require_divisible("wrapper_for_output_width", "output_width", output_width, num_heads);
}

// ---- Exercise 18 — Exercise 3.2 the other way: heads split, no mask, fc_out ----------------
void unmasked_multi_head_attention(const Linear& W_query, const Linear& W_key,
                                   const Linear& W_value, const Linear& fc_out,
                                   std::size_t num_heads) {
    const std::string kName = "UnmaskedMultiHeadAttention";
    checks::require_no_bias(kName, "W_query", W_query);
    checks::require_no_bias(kName, "W_key", W_key);
    checks::require_no_bias(kName, "W_value", W_value);
    checks::require_no_bias(kName, "fc_out", fc_out);
    checks::require_layer_like(kName, "W_query", W_query, "W_query", W_query);
    checks::require_layer_like(kName, "W_key", W_key, "W_query", W_query);
    checks::require_layer_like(kName, "W_value", W_value, "W_query", W_query);
    checks::require_square_layer(kName, "fc_out", fc_out, W_query.d_out());
    checks::require_divisible(kName, "d_out", W_query.d_out(), num_heads);
}

void unmasked_multi_head_attention_forward(const Tensor3& x, std::size_t d_in) {
    checks::require_batch_without_mask("UnmaskedMultiHeadAttention.forward", x, d_in);
}

// ---- Exercise 19 — MultiHeadAttention: one projection, split into heads (book §3.6.2) ----
void split_heads(const Tensor3& projected, std::size_t num_heads) {
    checks::require_non_empty("split_heads", "projected", projected);
    checks::require_divisible("split_heads", "d_out", projected.shape(2), num_heads);
}

void merge_heads(const Tensor4& heads) { checks::require_heads_tensor("merge_heads", heads); }

void truncated_mask(const Matrix& mask, std::size_t T) {
    checks::require_mask_for("truncated_mask", mask, T);
}

void multi_head_attention(const Linear& W_query, const Linear& W_key, const Linear& W_value,
                          const Linear& out_proj, std::size_t num_heads,
                          std::size_t context_length) {
    const std::string module = "MultiHeadAttention";
    checks::require_layer_like(module, "W_query", W_query, "W_query", W_query);
    checks::require_layer_like(module, "W_key", W_key, "W_query", W_query, true);
    checks::require_layer_like(module, "W_value", W_value, "W_query", W_query, true);
    checks::require_square_layer(module, "out_proj", out_proj, W_query.d_out());
    checks::require_divisible(module, "d_out", W_query.d_out(), num_heads);
    checks::require_positive(module, "context_length", context_length);
}

void multi_head_attention_forward(const Tensor3& x, std::size_t d_in, std::size_t context_length) {
    checks::require_batch("MultiHeadAttention.forward", x, d_in, context_length);
}

// ---- Exercise 21 — two heads in the column convention, combined by W_c (UDL Exercise 8) ---
// ---- Exercise 22 — GPT-2 small's attention layer: build it, count it (Exercise 3.3) -------
void score_tensor_bytes(std::size_t batch, std::size_t num_heads, std::size_t T) {
    checks::require_positive("score_tensor_bytes", "batch", batch);
    checks::require_positive("score_tensor_bytes", "num_heads", num_heads);
    checks::require_positive("score_tensor_bytes", "T", T);
}

void mask_buffer_bytes(std::size_t context_length) {
    checks::require_positive("mask_buffer_bytes", "context_length", context_length);
}

void forward_flops(std::size_t batch, std::size_t T) {
    checks::require_positive("forward_flops", "batch", batch);
    checks::require_positive("forward_flops", "T", T);
}

}  // namespace attn::arguments

// attn/checks.hpp — the argument checks of every exercise and module, in one place.
//
// The stubs and the modules' constructors call these before the part you write, so a caller
// who passes a wrong shape gets an attn::shape_error (or std::invalid_argument for a value out
// of range) naming the problem, instead of reading memory out of bounds. Each check's message
// names the function, the argument, its shape and the shape it must have. The bodies of the
// checks that are not templates are in kit/api/checks.cpp.
#pragma once

#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn::checks {

// `what` must have at least one element in every dimension ("inputs is empty: shape (0, 3)").
template <class Tensor>
void require_non_empty(const std::string& function, const std::string& what, const Tensor& t) {
    if (t.size() == 0) {
        throw shape_error(function + ": " + what + " is empty: shape " + shape_string(t.shape()));
    }
}

// `what` must have exactly `expected` elements along `axis`.
template <class Tensor>
void require_length(const std::string& function, const std::string& what, const Tensor& t,
                    std::size_t axis, std::size_t expected, const std::string& expected_name) {
    if (t.shape()[axis] != expected) {
        throw shape_error(function + ": " + what + " has shape " + shape_string(t.shape()) +
                          ", but its dimension " + std::to_string(axis) + " must equal " +
                          expected_name + " = " + std::to_string(expected));
    }
}

// A PyTorch-style dim for a rank-2 tensor: 0, 1, -1 or -2. Returns the axis as 0 or 1.
std::size_t normalize_dim(const std::string& function, int dim);

// An index into the rows of a (T, d) matrix.
void require_row_index(const std::string& function, const std::string& what, std::size_t index,
                       std::size_t rows);

// `what` must be ONE column, shape (rows, 1), as a token is in the column convention
// ("query must be one column, shape (d_k, 1), but has shape (4, 2)").
template <class Tensor>
void require_column(const std::string& function, const std::string& what, const Tensor& t,
                    const std::string& rows_name) {
    if (t.dimension() != 2 || t.shape()[1] != 1) {
        throw shape_error(function + ": " + what + " must be one column, shape (" + rows_name +
                          ", 1), but has shape " + shape_string(t.shape()));
    }
}

// ---- modules (exercises 09 onwards) -------------------------------------------------------

// A count that must be at least 1 ("context_length is 0: it must be at least 1").
void require_positive(const std::string& function, const std::string& what, std::size_t value);

// `what` must be a non-empty square (T, T) matrix of scores or weights.
void require_square(const std::string& function, const std::string& what, const Matrix& m);

// The three projections of a module have one shape: "W_key has shape (3, 4), but W_query
// has (3, 2)".
void require_same_shape(const std::string& module, const std::string& name, const Matrix& matrix,
                        const Matrix& first);

// A Linear layer of a module whose layers share `first`'s shape: weight (d_out, d_in) like
// first's, bias empty or (d_out,); `same_bias`: a bias exactly when `first` has one.
void require_layer_like(const std::string& function, const std::string& name, const Linear& layer,
                        const std::string& first_name, const Linear& first, bool same_bias = false);

// forward(x) needs tokens whose d_in matches the parameters: "SelfAttention_v1.forward: x has
// shape (6, 4), but W_query has shape (3, 2): ...". `rows_are_d_in`: v1's (d_in, d_out)
// matrices; false for nn.Linear's (d_out, d_in) weights.
void require_tokens(const std::string& function, const Matrix& x, const std::string& parameter,
                    const Matrix& matrix, bool rows_are_d_in);

// A batch x (B, T, d_in) for a module of `d_in` features whose mask was built for
// `context_length` tokens: not empty, d_in features, T <= context_length.
void require_batch(const std::string& function, const Tensor3& x, std::size_t d_in,
                   std::size_t context_length);

// Exercise 11: `from` (a SelfAttention_v2) without biases, and `to` (a SelfAttention_v1)
// holding (d_in, d_out) matrices, the shape of from's weights transposed.
template <class From, class To>
void require_transferable(const std::string& function, const From& from, const To& to) {
    require_same_shape(function, "from.W_key.weight", from.W_key.weight, from.W_query.weight);
    require_same_shape(function, "from.W_value.weight", from.W_value.weight, from.W_query.weight);
    if (from.qkv_bias()) {
        throw std::invalid_argument(function +
                                    ": the SelfAttention_v2 has biases (qkv_bias=True), but "
                                    "SelfAttention_v1 computes x @ W and has none: without "
                                    "them the two modules would not give the same output");
    }
    const std::vector<std::size_t> wanted{from.d_in(), from.d_out()};
    for (const auto& [name, matrix] :
         {std::pair<std::string, const Matrix*>{"W_query", &to.W_query},
          {"W_key", &to.W_key},
          {"W_value", &to.W_value}}) {
        if (std::vector<std::size_t>(matrix->shape().begin(), matrix->shape().end()) != wanted) {
            throw shape_error(function + ": the SelfAttention_v1's " + name + " has shape " +
                              shape_string(matrix->shape()) + ", but the SelfAttention_v2's " +
                              name + ".weight is " + shape_string(from.W_query.weight.shape()) +
                              ", so it transposed is " + shape_string(wanted) +
                              " = (d_in, d_out): the two modules must map the same d_in to "
                              "the same d_out");
        }
    }
}

// ---- multi-head attention (exercises 16 onwards) ------------------------------------------

// Exercise 18

// A layer of a module whose layers have no bias (nn.Linear(..., bias=False)): "fc_out has a
// bias, shape (2,), but UnmaskedMultiHeadAttention's layers have none".
void require_no_bias(const std::string& function, const std::string& name, const Linear& layer);

// An output projection over the merged heads (out_proj, fc_out): weight (d_out, d_out),
// non-empty, a bias (d_out,) if it has one.
void require_square_layer(const std::string& function, const std::string& name, const Linear& layer,
                          std::size_t d_out);

// A batch x (B, T, d_in) for a module without a mask (any T): not empty, d_in features.
void require_batch_without_mask(const std::string& function, const Tensor3& x, std::size_t d_in);

// `total` features split into `num_heads` heads of equal width: "d_out = 6 is not divisible
// by num_heads = 4".
void require_divisible(const std::string& function, const std::string& what, std::size_t total,
                       std::size_t num_heads);

// The heads of a MultiHeadAttentionWrapper: at least one, all of head 0's d_in, d_out and
// context_length (they read the same x, and their outputs are put side by side).
template <class Head>
void require_heads_alike(const std::string& module, const std::vector<Head>& heads) {
    if (heads.empty()) {
        throw shape_error(module + ": no heads: num_heads must be at least 1");
    }
    for (std::size_t h = 1; h < heads.size(); ++h) {
        const Head& head = heads[h];
        if (head.d_in() != heads[0].d_in() || head.d_out() != heads[0].d_out() ||
            head.context_length() != heads[0].context_length()) {
            throw shape_error(module + ": head " + std::to_string(h) +
                              " has d_in = " + std::to_string(head.d_in()) +
                              ", d_out = " + std::to_string(head.d_out()) +
                              ", context_length = " + std::to_string(head.context_length()) +
                              ", but head 0 has " + std::to_string(heads[0].d_in()) + ", " +
                              std::to_string(heads[0].d_out()) + ", " +
                              std::to_string(heads[0].context_length()) +
                              ": the heads of one module are alike");
        }
    }
}

// Exercise 21

// Heads in the column convention (attn::ColumnHead: W_q, W_k, W_v, b_q, b_k, b_v) for tokens
// X of D features: at least one head; the first fits X as exercise 08's parameters do (W_q,
// W_k: (d_k, D), W_v: (d_v, D), b_q, b_k: (d_k, 1), b_v: (d_v, 1)); every other head has the
// first one's shapes, so that the heads' outputs stack into num_heads * d_v rows.
template <class Head>
void require_column_heads(const std::string& function, const std::vector<Head>& heads,
                          std::size_t D) {
    if (heads.empty()) {
        throw shape_error(function +
                          ": heads is empty: multi-head attention needs at least one head");
    }
    const Head& first = heads[0];
    require_non_empty(function, "heads[0].W_q", first.W_q);
    require_non_empty(function, "heads[0].W_v", first.W_v);
    require_length(function, "heads[0].W_q", first.W_q, 1, D, "D (X.shape(0))");
    require_length(function, "heads[0].W_k", first.W_k, 1, D, "D (X.shape(0))");
    require_length(function, "heads[0].W_v", first.W_v, 1, D, "D (X.shape(0))");
    require_length(function, "heads[0].W_k", first.W_k, 0, first.W_q.shape(0),
                   "d_k (heads[0].W_q.shape(0))");
    require_column(function, "heads[0].b_q", first.b_q, "d_k");
    require_column(function, "heads[0].b_k", first.b_k, "d_k");
    require_column(function, "heads[0].b_v", first.b_v, "d_v");
    require_length(function, "heads[0].b_q", first.b_q, 0, first.W_q.shape(0), "d_k");
    require_length(function, "heads[0].b_k", first.b_k, 0, first.W_q.shape(0), "d_k");
    require_length(function, "heads[0].b_v", first.b_v, 0, first.W_v.shape(0), "d_v");
    const auto parts = [](const Head& head) {
        return std::vector<std::pair<std::string, const Matrix*>>{
            {"W_q", &head.W_q}, {"W_k", &head.W_k}, {"W_v", &head.W_v},
            {"b_q", &head.b_q}, {"b_k", &head.b_k}, {"b_v", &head.b_v}};
    };
    for (std::size_t h = 1; h < heads.size(); ++h) {
        const auto first_parts = parts(first), head_parts = parts(heads[h]);
        for (std::size_t i = 0; i < head_parts.size(); ++i) {
            const auto& [name, matrix] = head_parts[i];
            const Matrix& expected = *first_parts[i].second;
            if (matrix->shape() != expected.shape()) {
                throw shape_error(
                    function + ": heads[" + std::to_string(h) + "]." + name + " has shape " +
                    shape_string(matrix->shape()) + ", but heads[0]." + name + " has " +
                    shape_string(expected.shape()) + ": every head has the first head's shapes");
            }
        }
    }
}

// A heads tensor (B, num_heads, T, head_dim) with something in it.
void require_heads_tensor(const std::string& function, const Tensor4& heads);

// Exercise 23: queries, keys and values (B, heads, T, head_dim), not empty, of one shape:
// "keys has shape (1, 2, 5, 8), but queries has (1, 2, 6, 8)".
void require_attention_heads(const std::string& function, const Tensor4& queries,
                             const Tensor4& keys, const Tensor4& values);

// truncated_mask's arguments: a square mask of at least T rows, 1 <= T.
void require_mask_for(const std::string& function, const Matrix& mask, std::size_t T);

}  // namespace attn::checks

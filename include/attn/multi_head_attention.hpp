// attn/multi_head_attention.hpp — group D: multi-head attention (exercises 16 to 21).
//
// Mirrors section 3.6 of the book "Build a Large Language Model (From Scratch)", the solution of
// its Exercise 3.2, the course's multi-head attention notes, and Exercise 8 of Understanding
// Deep Learning's step-by-step self-attention exercises (its multi-head notebook). Each
// exercise names its cells; the public notebooks:
//   ch03.ipynb, the book's chapter 3 notebook:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   exercise-solutions.ipynb, the book's exercise solutions:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   12_2_Multihead_Self_Attention.ipynb (Understanding Deep Learning, column convention):
//     https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_2_Multihead_Self_Attention.ipynb
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
// constructor that checks them (attn/arguments.hpp), forward(x) the exercise.
#pragma once

#include "attn/arguments.hpp"
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

// ---- Exercise 16 — MultiHeadAttentionWrapper: heads side by side (book §3.6.1) -----------
// ch03.ipynb In [35]:
//   class MultiHeadAttentionWrapper(nn.Module):
//       def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
//           self.heads = nn.ModuleList([CausalAttention(d_in, d_out, context_length, dropout,
//                                                       qkv_bias) for _ in range(num_heads)])
//       def forward(self, x):
//           return torch.cat([head(x) for head in self.heads], dim=-1)
// num_heads CausalAttention modules (exercise 15), each with its own weights, all reading the
// same x; their contexts are concatenated along the last axis, head 0's features first:
//   x (B, T, d_in) -> head h: (B, T, d_out) -> context (B, T, num_heads * d_out)
// context[b, t, h * d_out + k] is feature k of head h. In state_dict() the heads are
// "heads.0.W_query.weight", "heads.1.W_query.weight", ... (nn.ModuleList numbers them).
// Printed at torch.manual_seed(123), d_in 3, d_out 2, 2 heads, on the batch of two copies of
// the six inputs (ch03.ipynb In [35]): shape (2, 6, 4), first row
//   [-0.4519, 0.2216, 0.4772, 0.1063]
// (head 0's [-0.4519, 0.2216] is exercise 15's first row: the same weights).
struct MultiHeadAttentionWrapper {
    std::vector<CausalAttention> heads;

    // Throws shape_error unless there is a head and all share head 0's d_in, d_out and
    // context_length.
    explicit MultiHeadAttentionWrapper(std::vector<CausalAttention> heads_)
        : heads(std::move(heads_)) {
        arguments::multi_head_attention_wrapper(heads);
    }

    // MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout=0.0, num_heads,
    // qkv_bias): head h's layers are "<prefix>heads.<h>.W_query", ... from `source`.
    MultiHeadAttentionWrapper(std::size_t d_in, std::size_t d_out, std::size_t context_length,
                              std::size_t num_heads, bool qkv_bias, ParameterSource& source,
                              const std::string& prefix = "")
        : MultiHeadAttentionWrapper(
              make_heads(d_in, d_out, context_length, num_heads, qkv_bias, source, prefix)) {}

    // The module of a state_dict holding heads.0.W_query.weight, ..., heads.<num_heads-1>...
    static MultiHeadAttentionWrapper load(const StateDict& state, std::size_t num_heads,
                                          std::size_t context_length) {
        checks::require_positive("MultiHeadAttentionWrapper", "num_heads", num_heads);
        std::vector<CausalAttention> heads;
        for (std::size_t h = 0; h < num_heads; ++h) {
            const StateDict head = state.under(head_prefix(h));
            if (head.tensors().empty()) {
                throw shape_error("MultiHeadAttentionWrapper: the state_dict has no " +
                                  head_prefix(h) +
                                  "* entries, but num_heads = " + std::to_string(num_heads));
            }
            heads.push_back(CausalAttention::load(head, context_length));
        }
        return MultiHeadAttentionWrapper(std::move(heads));
    }

    std::size_t num_heads() const { return heads.size(); }
    std::size_t d_in() const { return heads[0].d_in(); }
    std::size_t d_out() const { return num_heads() * heads[0].d_out(); }  // all heads' features
    std::size_t context_length() const { return heads[0].context_length(); }

    StateDict state_dict() const {
        StateDict state;
        for (std::size_t h = 0; h < heads.size(); ++h) {
            state.set_all(head_prefix(h), heads[h].state_dict());
        }
        return state;
    }

    // Exercise 16. x: (B, T, d_in) -> (B, T, num_heads * d_out): every head's forward(x),
    // concatenated along the last axis in head order. x is checked as CausalAttention.forward
    // checks it (d_in, T <= context_length).
    Tensor3 forward(const Tensor3& x) const;
    Tensor3 operator()(const Tensor3& x) const { return forward(x); }  // mha(batch)

    static std::string head_prefix(std::size_t h) { return "heads." + std::to_string(h) + "."; }

private:
    static std::vector<CausalAttention> make_heads(std::size_t d_in, std::size_t d_out,
                                                   std::size_t context_length,
                                                   std::size_t num_heads, bool qkv_bias,
                                                   ParameterSource& source,
                                                   const std::string& prefix) {
        checks::require_positive("MultiHeadAttentionWrapper", "num_heads", num_heads);
        std::vector<CausalAttention> heads;
        for (std::size_t h = 0; h < num_heads; ++h) {
            heads.emplace_back(d_in, d_out, context_length, qkv_bias, source,
                               prefix + head_prefix(h));
        }
        return heads;
    }
};

// ---- Exercise 17 — Exercise 3.2: the output width chosen by one argument -----------------
// The book's Exercise 3.2 (exercise-solutions.ipynb, "Exercise 3.2"): "Change the input
// arguments for the MultiHeadAttentionWrapper(..., num_heads=2) call such that the output
// context vectors are two-dimensional instead of four-dimensional while keeping the setting
// num_heads=2. You don't have to modify the class implementation."
// The wrapper's output has num_heads * d_out features (exercise 16), so an output of
// `output_width` features with num_heads heads needs heads of d_out = output_width / num_heads:
// for the exercise, d_out = 1.
// Returns MultiHeadAttentionWrapper(d_in, d_out, context_length, num_heads, qkv_bias = false,
// source) with that d_out; its forward gives (B, T, output_width).
// output_width not divisible by num_heads (or num_heads = 0) throws attn::shape_error: the
// heads could not share the features equally.
// At torch.manual_seed(123), d_in 3, output_width 2, 2 heads, on the batch of In [35] (the
// goldens come from the corrected CausalAttention; the course's own copy of the chapter
// prints this exercise's output with its stale-`masked` slip, see exercise 15), shape (2, 6, 2):
//   [[-0.5740, 0.2216], [-0.7320, 0.0155], [-0.7774, -0.0546], [-0.6979, -0.0817], ...]
MultiHeadAttentionWrapper wrapper_for_output_width(std::size_t d_in, std::size_t output_width,
                                                   std::size_t context_length,
                                                   std::size_t num_heads, ParameterSource& source);

// ---- Exercise 18 — Exercise 3.2 the other way: heads split, no mask, fc_out ----------------
// exercise-solutions.ipynb, Exercise 3.2, as the course's own solutions notebook solves
// it: a class they call MultiHeadAttentionWrapper, though it wraps no heads; the book's own
// solution changes d_out of the wrapper instead (exercise 17). Its __init__:
//   assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
//   self.d_k = d_out // num_heads
//   self.W_query = nn.Linear(d_in, d_out, bias=False)     (and W_key, W_value)
//   self.fc_out = nn.Linear(d_out, d_out, bias=False)
// ONE projection per Q, K and V for all heads at once; head h is its columns h * head_dim to
// (h + 1) * head_dim - 1, head_dim = d_out / num_heads (the notebook's d_k). No causal mask:
// every token attends to every token. No biases anywhere. fc_out mixes the merged heads.
struct UnmaskedMultiHeadAttention {
    static constexpr const char* kName = "UnmaskedMultiHeadAttention";

    Linear W_query;  // weight (d_out, d_in), no bias
    Linear W_key;    // weight (d_out, d_in), no bias
    Linear W_value;  // weight (d_out, d_in), no bias
    Linear fc_out;   // weight (d_out, d_out), no bias
    std::size_t num_heads;

    // __init__ from its layers: W_query, W_key and W_value non-empty and of one shape
    // (d_out, d_in), fc_out (d_out, d_out), no layer with a bias, num_heads >= 1 dividing
    // d_out; else attn::shape_error.
    UnmaskedMultiHeadAttention(Linear W_query_, Linear W_key_, Linear W_value_, Linear fc_out_,
                               std::size_t num_heads_)
        : W_query(std::move(W_query_)),
          W_key(std::move(W_key_)),
          W_value(std::move(W_value_)),
          fc_out(std::move(fc_out_)),
          num_heads(num_heads_) {
        arguments::unmasked_multi_head_attention(W_query, W_key, W_value, fc_out, num_heads);
    }

    // MultiHeadAttentionWrapper(d_in, d_out, num_heads) of the course's solution, its layers
    // "<prefix>W_query", ..., "<prefix>fc_out" from `source`.
    UnmaskedMultiHeadAttention(std::size_t d_in, std::size_t d_out, std::size_t num_heads_,
                               ParameterSource& source, const std::string& prefix = "")
        : UnmaskedMultiHeadAttention{Linear::make(source, prefix + "W_query", d_in, d_out, false),
                                     Linear::make(source, prefix + "W_key", d_in, d_out, false),
                                     Linear::make(source, prefix + "W_value", d_in, d_out, false),
                                     Linear::make(source, prefix + "fc_out", d_out, d_out, false),
                                     num_heads_} {}

    // The module of a state_dict's layers (W_query.weight, W_key.weight, W_value.weight,
    // fc_out.weight); num_heads is an argument of __init__, not a parameter.
    static UnmaskedMultiHeadAttention load(const StateDict& state, std::size_t num_heads) {
        return {Linear::load(state, "W_query"), Linear::load(state, "W_key"),
                Linear::load(state, "W_value"), Linear::load(state, "fc_out"), num_heads};
    }

    std::size_t d_in() const { return W_query.d_in(); }
    std::size_t d_out() const { return W_query.d_out(); }
    std::size_t head_dim() const { return d_out() / num_heads; }  // the notebook's d_k

    StateDict state_dict() const {
        StateDict state;
        W_query.save(state, "W_query");
        W_key.save(state, "W_key");
        W_value.save(state, "W_value");
        fc_out.save(state, "fc_out");
        return state;
    }

    // Exercise 18, forward (the course's solution of Exercise 3.2). For every batch item b:
    //   q, k, v = x[b] @ W.T for each of W_query, W_key, W_value             (T, d_out)
    //   for every head h, on its columns c = h * head_dim .. (h + 1) * head_dim - 1:
    //     context[:, c] = softmax(q[:, c] @ k[:, c].T / sqrt(head_dim), dim=-1) @ v[:, c]
    //   out[b] = context @ fc_out.weight.T                                    (T, d_out)
    // x: (B, T, d_in) -> (B, T, d_out). Any T: there is no mask, so no context_length.
    // At seed 42 on inputs = torch.randn(1, 5, 4), d_out = 2, num_heads = 2 (its printout):
    //   [[[-0.0267, -0.0087], [-0.0919, -0.0284], [-0.0792, -0.0155], [-0.0848, -0.0206],
    //     [-0.0685, -0.0139]]]
    // An empty x, or x's d_in not the weights', throws attn::shape_error.
    Tensor3 forward(const Tensor3& x) const;
    Tensor3 operator()(const Tensor3& x) const { return forward(x); }  // mha(x)
};

// ---- Exercise 19 — MultiHeadAttention: one projection, split into heads (book §3.6.2) ----
// ch03.ipynb In [36] (the course's multi-head attention notes build the same class):
//   class MultiHeadAttention(nn.Module):
//       def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
//           assert (d_out % num_heads == 0), "d_out must be divisible by num_heads"
//           self.head_dim = d_out // num_heads
//           self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)    (and W_key, W_value)
//           self.out_proj = nn.Linear(d_out, d_out)                  # with a bias
//           self.register_buffer("mask", torch.triu(torch.ones(context_length,
//                                                              context_length), diagonal=1))
//       def forward(self, x):
//           b, num_tokens, d_in = x.shape
//           keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
//           keys = keys.transpose(1, 2)                        (and queries, values)
//           attn_scores = queries @ keys.transpose(2, 3)
//           mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
//           attn_scores.masked_fill_(mask_bool, -torch.inf)
//           attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//           context_vec = (attn_weights @ values).transpose(1, 2)
//           context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
//           return self.out_proj(context_vec)
// The wrapper's heads again, but fused: ONE (d_out, d_in) projection computes every head's
// queries at once, and its d_out = num_heads * head_dim features are cut into num_heads
// slices of head_dim. Head h's features are [h * head_dim, (h + 1) * head_dim): the rows
// h * head_dim ... of W_query.weight are head h's own weights (exercise 20 shows it).
// Shapes through forward, for x (B, T, d_in):
//   queries = W_query(x)                      (B, T, d_out)
//   split_heads(queries, num_heads)           (B, num_heads, T, head_dim)
//   scores, per batch item and head           (T, T), masked where truncated_mask is true
//   softmax(scores / sqrt(head_dim)) @ values (B, num_heads, T, head_dim)
//   merge_heads(...)                          (B, T, d_out)
//   out_proj(...)                             (B, T, d_out)
// Printed at torch.manual_seed(123), d_in 3, d_out 2, 2 heads, on the batch of two copies of
// the six inputs (as the course's multi-head attention notes run it): shape (2, 6, 2), first rows
//   [[0.3190, 0.4858], [0.2943, 0.3897], [0.2856, 0.3593], ...]
// The course's copy of ch03.ipynb runs the same cell at seed 42, after its two wrappers drew
// from the generator: [[-0.6380, 0.3370], [-0.7576, 0.2926], ...]

// Exercise 19a. q.view(b, num_tokens, num_heads, head_dim).transpose(1, 2):
//   projected (B, T, d_out) -> heads (B, num_heads, T, head_dim), head_dim = d_out / num_heads
//   heads[b, h, t, k] = projected[b, t, h * head_dim + k]
// d_out not divisible by num_heads (or num_heads = 0) throws attn::shape_error.
Tensor4 split_heads(const Tensor3& projected, std::size_t num_heads);

// Exercise 19b. context_vec.transpose(1, 2).contiguous().view(b, num_tokens, d_out), the
// inverse of split_heads:
//   heads (B, num_heads, T, head_dim) -> merged (B, T, num_heads * head_dim)
//   merged[b, t, h * head_dim + k] = heads[b, h, t, k]
Tensor3 merge_heads(const Tensor4& heads);

// Exercise 19c. self.mask.bool()[:num_tokens, :num_tokens]: the first T rows and columns of
// the (context_length, context_length) mask buffer, as bools (true where a score is hidden).
//   mask (context_length, context_length), T <= context_length -> (T, T)
// T = 0, T > context_length or a mask that is not square throws attn::shape_error.
BoolMatrix truncated_mask(const Matrix& mask, std::size_t T);

struct MultiHeadAttention {
    Linear W_query;   // weight (d_out, d_in): every head's queries; bias (d_out,) or empty
    Linear W_key;     // weight (d_out, d_in)
    Linear W_value;   // weight (d_out, d_in)
    Linear out_proj;  // weight (d_out, d_out), bias (d_out,): mixes the merged heads
    std::size_t num_heads;
    Matrix mask;  // (context_length, context_length), triu of ones with diagonal=1

    // MultiHeadAttention.__init__ from its layers: W_query, W_key and W_value alike
    // ((d_out, d_in), biases all or none), out_proj (d_out, d_out) with a bias of d_out or
    // none, d_out divisible by num_heads, context_length >= 1; else attn::shape_error.
    MultiHeadAttention(Linear W_query_, Linear W_key_, Linear W_value_, Linear out_proj_,
                       std::size_t num_heads_, std::size_t context_length)
        : W_query(std::move(W_query_)),
          W_key(std::move(W_key_)),
          W_value(std::move(W_value_)),
          out_proj(std::move(out_proj_)),
          num_heads(num_heads_) {
        arguments::multi_head_attention(W_query, W_key, W_value, out_proj, num_heads,
                                        context_length);
        mask = xt::triu(xt::ones<float>({context_length, context_length}), 1);
    }

    // MultiHeadAttention(d_in, d_out, context_length, dropout=0.0, num_heads, qkv_bias):
    // its layers "<prefix>W_query", ..., "<prefix>out_proj" (always with a bias) from `source`.
    MultiHeadAttention(std::size_t d_in, std::size_t d_out, std::size_t context_length,
                       std::size_t num_heads_, bool qkv_bias, ParameterSource& source,
                       const std::string& prefix = "")
        : MultiHeadAttention{Linear::make(source, prefix + "W_query", d_in, d_out, qkv_bias),
                             Linear::make(source, prefix + "W_key", d_in, d_out, qkv_bias),
                             Linear::make(source, prefix + "W_value", d_in, d_out, qkv_bias),
                             Linear::make(source, prefix + "out_proj", d_out, d_out, true),
                             num_heads_,
                             context_length} {}

    // The module of a state_dict: W_query.weight, ..., out_proj.weight, out_proj.bias.
    static MultiHeadAttention load(const StateDict& state, std::size_t num_heads,
                                   std::size_t context_length) {
        return {Linear::load(state, "W_query"),
                Linear::load(state, "W_key"),
                Linear::load(state, "W_value"),
                Linear::load(state, "out_proj"),
                num_heads,
                context_length};
    }

    std::size_t d_in() const { return W_query.d_in(); }
    std::size_t d_out() const { return W_query.d_out(); }
    std::size_t head_dim() const { return d_out() / num_heads; }
    std::size_t context_length() const { return mask.shape(0); }

    StateDict state_dict() const {
        StateDict state;
        W_query.save(state, "W_query");
        W_key.save(state, "W_key");
        W_value.save(state, "W_value");
        out_proj.save(state, "out_proj");
        state.set("mask", mask);
        return state;
    }

    // Exercise 19d. x: (B, T, d_in) -> (B, T, d_out), as the cell above, with split_heads,
    // truncated_mask and merge_heads. T > context_length, or x's d_in not the weights',
    // throws attn::shape_error.
    Tensor3 forward(const Tensor3& x) const;
    Tensor3 operator()(const Tensor3& x) const { return forward(x); }  // mha(batch)
};

// ---- Exercise 20 — the wrapper's heads fused into one MultiHeadAttention ----------------
// The book, §3.6.2: "the MultiHeadAttention class [...] integrates the multi-head
// functionality within a single class [...]: instead of computing the heads separately, one
// matrix multiplication computes the queries of all heads"; and "Key Differences from the
// Wrapper" in the course's multi-head attention notes: one large W matrix instead of a loop
// over small ones.
// A wrapper's heads are num_heads separate (head_dim, d_in) weights; stacking them row after
// row gives one (num_heads * head_dim, d_in) weight whose rows [h * head_dim, (h + 1) *
// head_dim) are head h's, which is exactly the block split_heads hands head h. So the fused
// module with
//   W_query.weight = [heads[0].W_query.weight; heads[1].W_query.weight; ...]   (rows stacked;
//                    W_key, W_value alike; biases stacked the same way when the heads have them)
//   out_proj       = the identity (d_out, d_out), bias zeros (the wrapper mixes nothing)
//   num_heads, context_length as the wrapper's
// computes, for every x, what the wrapper computes: one product per projection instead of
// num_heads, the point of "one big matmul instead of many".
// wrapper (num_heads heads of (head_dim, d_in)) -> MultiHeadAttention (d_in -> num_heads *
// head_dim). The wrapper's constructor has already checked its heads alike.
MultiHeadAttention fuse_heads(const MultiHeadAttentionWrapper& wrapper);

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

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
        checks::require_heads_alike("MultiHeadAttentionWrapper", heads);
    }

    // MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout=0.0, num_heads,
    // qkv_bias): head h's layers are "<prefix>heads.<h>.W_query", ... from `source`.
    MultiHeadAttentionWrapper(std::size_t d_in, std::size_t d_out, std::size_t context_length,
                              std::size_t num_heads, bool qkv_bias, ParameterSource& source,
                              const std::string& prefix = "")
        : MultiHeadAttentionWrapper(make_heads(d_in, d_out, context_length, num_heads, qkv_bias,
                                               source, prefix)) {}

    // The module of a state_dict holding heads.0.W_query.weight, ..., heads.<num_heads-1>...
    static MultiHeadAttentionWrapper load(const StateDict& state, std::size_t num_heads,
                                          std::size_t context_length) {
        checks::require_positive("MultiHeadAttentionWrapper", "num_heads", num_heads);
        std::vector<CausalAttention> heads;
        for (std::size_t h = 0; h < num_heads; ++h) {
            const StateDict head = state.under(head_prefix(h));
            if (head.tensors().empty()) {
                throw shape_error("MultiHeadAttentionWrapper: the state_dict has no " +
                                  head_prefix(h) + "* entries, but num_heads = " +
                                  std::to_string(num_heads));
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
// goldens come from the corrected CausalAttention; notebook 001 prints this exercise's output
// with its stale-`masked` slip, see exercise 15), shape (2, 6, 2):
//   [[-0.5740, 0.2216], [-0.7320, 0.0155], [-0.7774, -0.0546], [-0.6979, -0.0817], ...]
MultiHeadAttentionWrapper wrapper_for_output_width(std::size_t d_in, std::size_t output_width,
                                                   std::size_t context_length,
                                                   std::size_t num_heads,
                                                   ParameterSource& source);

// ---- Exercise 18 -------------------------------------------------------------------------

// ---- Exercise 19 -------------------------------------------------------------------------

// ---- Exercise 20 -------------------------------------------------------------------------

// ---- Exercise 21 -------------------------------------------------------------------------

}  // namespace attn

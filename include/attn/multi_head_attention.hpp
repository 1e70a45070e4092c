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

// ---- Exercise 18 — Exercise 3.2 the other way: heads split, no mask, fc_out (000) ---------
// exercise-solutions.ipynb, Exercise 3.2, as the course's solutions (seed 000, In [12]) solve
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
        checks::require_no_bias(kName, "W_query", W_query);
        checks::require_no_bias(kName, "W_key", W_key);
        checks::require_no_bias(kName, "W_value", W_value);
        checks::require_no_bias(kName, "fc_out", fc_out);
        checks::require_layer_like(kName, "W_query", W_query, "W_query", W_query);
        checks::require_layer_like(kName, "W_key", W_key, "W_query", W_query);
        checks::require_layer_like(kName, "W_value", W_value, "W_query", W_query);
        checks::require_square_layer(kName, "fc_out", fc_out, d_out());
        checks::require_heads(kName, d_out(), num_heads);
    }

    // MultiHeadAttentionWrapper(d_in, d_out, num_heads) of 000 In [12], its layers
    // "<prefix>W_query", ..., "<prefix>fc_out" from `source`.
    UnmaskedMultiHeadAttention(std::size_t d_in, std::size_t d_out, std::size_t num_heads_,
                               ParameterSource& source, const std::string& prefix = "")
        : UnmaskedMultiHeadAttention(Linear::make(source, prefix + "W_query", d_in, d_out, false),
                                     Linear::make(source, prefix + "W_key", d_in, d_out, false),
                                     Linear::make(source, prefix + "W_value", d_in, d_out, false),
                                     Linear::make(source, prefix + "fc_out", d_out, d_out, false),
                                     num_heads_) {}

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

    // Exercise 18, forward (000 In [12]). For every batch item b:
    //   q, k, v = x[b] @ W.T for each of W_query, W_key, W_value             (T, d_out)
    //   for every head h, on its columns c = h * head_dim .. (h + 1) * head_dim - 1:
    //     context[:, c] = softmax(q[:, c] @ k[:, c].T / sqrt(head_dim), dim=-1) @ v[:, c]
    //   out[b] = context @ fc_out.weight.T                                    (T, d_out)
    // x: (B, T, d_in) -> (B, T, d_out). Any T: there is no mask, so no context_length.
    // At seed 42 on inputs = torch.randn(1, 5, 4), d_out = 2, num_heads = 2 (000 In [12]):
    //   [[[-0.0267, -0.0087], [-0.0919, -0.0284], [-0.0792, -0.0155], [-0.0848, -0.0206],
    //     [-0.0685, -0.0139]]]
    // An empty x, or x's d_in not the weights', throws attn::shape_error.
    Tensor3 forward(const Tensor3& x) const;
    Tensor3 operator()(const Tensor3& x) const { return forward(x); }  // mha(x)
};

// ---- Exercise 19 -------------------------------------------------------------------------

// ---- Exercise 20 -------------------------------------------------------------------------

// ---- Exercise 21 -------------------------------------------------------------------------

}  // namespace attn

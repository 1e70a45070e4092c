// attn/causal_attention.hpp — group C: causal attention (exercises 12 to 15).
//
// Mirrors section 3.5 of the book "Build a Large Language Model (From Scratch)": a token may
// attend to itself and to the tokens BEFORE it, never to the ones after it (the future). Each
// exercise names its cells ("ch03.ipynb In [26]") and their PyTorch calls; the book's chapter
// 3 notebook, ch03.ipynb, is public:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
// The notebook masks the weights of SelfAttention_v2 (In [25], seed 789): "notebook" cases use
// those, "notebook_seed42" cases the same cells at seed 42 (the course's copy's seed).
//
// Convention (row convention, as in PyTorch): row i of a (T, T) score or weight matrix is
// query token i, column j key token j; "the future" of row i is every column j > i, the
// entries above the diagonal. A batch is a Tensor3 (B, T, d): B sequences of T tokens.
//
// You write these functions in exercises/NN_name.cpp; the reference answers are in
// solutions/NN_name.cpp. Every function checks its arguments first (the stubs' first line
// does, one call into attn/arguments.hpp):
// a wrong shape throws attn::shape_error, a value out of range std::invalid_argument, each
// with a message that names the problem.
#pragma once

#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/module.hpp"
#include "attn/tensor.hpp"

#include <xtensor/xbuilder.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace attn {

// ---- Exercise 12 — the tril mask, then renormalise (book §3.5.1) -------------------------
// ch03.ipynb In [26]: mask_simple = torch.tril(torch.ones(context_length, context_length))
// The causal mask as numbers: 1 where key j may be seen by query i (j <= i, the diagonal
// included), 0 above the diagonal.
// context_length -> (context_length, context_length). For 6 tokens, as In [26] prints:
//   [[1, 0, 0, 0, 0, 0],
//    [1, 1, 0, 0, 0, 0],  ...  [1, 1, 1, 1, 1, 1]]
// context_length = 0 throws attn::shape_error.
Matrix tril_mask(std::size_t context_length);

// ch03.ipynb In [27]: masked_simple = attn_weights * mask_simple
// The softmax weights with the future zeroed: weights[i, j] where j <= i, else 0.
// weights: (T, T) -> (T, T). Row 1 at seed 42: [0.1627, 0.1780, 0, 0, 0, 0]
Matrix apply_tril_mask(const Matrix& weights);

// ch03.ipynb In [27] and In [28]:
//   masked_simple_norm = masked_simple / masked_simple.sum(dim=-1, keepdim=True)
// After the mask a row no longer sums to 1; divide each row by its own sum so it does again.
// weights: (T, T) -> (T, T), every row summing to 1. Printed (In [28], seed 789):
//   [[1.0000, 0.0000, 0.0000, ...], [0.5517, 0.4483, 0.0000, ...],
//    [0.3800, 0.3097, 0.3103, 0.0000, ...], ...]
// and at seed 42: [[1.0000, 0, ...], [0.4775, 0.5225, 0, ...], [0.3146, 0.3450, 0.3405, ...]]
Matrix mask_and_renormalize(const Matrix& weights);

// ---- Exercise 13 — -inf above the diagonal, before softmax (book §3.5.1) -----------------
// ch03.ipynb In [29]: mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
// The mask of the future: 1 strictly above the diagonal (j > i), where a score is hidden, 0 on
// and below it; exercise 12's tril mask the other way round. CausalAttention keeps this one
// as its buffer (exercise 15).
// context_length -> (context_length, context_length). For 6 tokens:
//   [[0, 1, 1, 1, 1, 1],
//    [0, 0, 1, 1, 1, 1],  ...  [0, 0, 0, 0, 0, 0]]
// context_length = 0 throws attn::shape_error.
Matrix future_mask(std::size_t context_length);

// ch03.ipynb In [29]: masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
// The scores with every entry above the diagonal (j > i) replaced by -infinity.
// scores: (T, T) -> (T, T). Row 1 at seed 789: [0.4656, 0.1723, -inf, -inf, -inf, -inf]
Matrix mask_future(const Matrix& scores);

// ch03.ipynb In [29] and In [30]:
//   attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
// exp(-inf) = 0, so softmax gives the future weight 0 and every row still sums to 1: the
// same weights as exercise 12's mask_and_renormalize of softmax(scores / sqrt(d_k)), in one
// step (the case kind two_ways checks that the two agree). d_k is the keys' dimension.
// scores: (T, T), d_k >= 1 -> weights (T, T). In [30] prints In [28]'s matrix above.
// d_k = 0 throws attn::shape_error.
Matrix causal_attention_weights(const Matrix& scores, std::size_t d_k);

// ---- Exercise 14 — dropout (book §3.5.2) --------------------------------------------------
// ch03.ipynb In [31], In [32]: dropout = torch.nn.Dropout(0.5); dropout(example)
// Inverted dropout, as nn.Dropout computes it while training: each entry is dropped (0) with
// probability p, and the kept ones are divided by 1 - p, so that every entry keeps its
// expected value (with p = 0.5 a matrix of ones becomes 0s and 2s). The random choice is an
// argument here: keep[i, j] = 1 keeps x[i, j], 0 drops it. PyTorch draws a different pattern
// for a seed on different builds, so the tests give you the mask instead of a seed.
//   training: x * keep / (1 - p); p = 1 drops everything (all zeros); at p = 0 nothing is
//             dropped (a mask drawn for p = 0 is all ones), so the result is x itself
//   eval mode (training = false): x unchanged, whatever keep and p are
// x: (R, C), keep: (R, C) of 0s and 1s, 0 <= p <= 1 -> (R, C)
// keep of another shape throws attn::shape_error; p outside [0, 1], or a keep entry other
// than 0 or 1, throws std::invalid_argument.
Matrix dropout(const Matrix& x, const Matrix& keep, float p, bool training = true);

// ---- Exercise 15 — CausalAttention on a batch (book §3.5.3) -------------------------------
// ch03.ipynb In [34]: class CausalAttention(nn.Module), with
//   self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)   (and W_key, W_value)
//   self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length),
//                                           diagonal=1))
// A module written like its nn.Module (attn/module.hpp): the parameters under the names of
// PyTorch's state_dict() ("W_query.weight", ..., and the buffer "mask"). Each Linear's weight
// is (d_out, d_in) and computes x @ weight.T (+ bias when it has one). mask is
// (context_length, context_length): 1 above the diagonal, where the scores become -inf,
// exercise 13's future_mask. The module has no dropout: forward runs as in eval mode
// (exercise 14 covers training), so nn.Dropout(0.0) of the notebook and this agree.
struct CausalAttention {
    Linear W_query;  // weight (d_out, d_in)
    Linear W_key;    // weight (d_out, d_in)
    Linear W_value;  // weight (d_out, d_in)
    Matrix mask;     // (context_length, context_length), triu of ones with diagonal=1

    // CausalAttention.__init__ from its layers: the weights must share one shape
    // (d_out, d_in), the biases be all empty or all (d_out,), context_length >= 1; else
    // attn::shape_error. Builds the mask buffer for context_length tokens.
    CausalAttention(Linear W_query_, Linear W_key_, Linear W_value_, std::size_t context_length)
        : W_query(std::move(W_query_)), W_key(std::move(W_key_)), W_value(std::move(W_value_)) {
        arguments::causal_attention(W_query, W_key, W_value, context_length);
        mask = xt::triu(xt::ones<float>({context_length, context_length}), 1);
    }

    // CausalAttention(d_in, d_out, context_length, dropout=0.0, qkv_bias), its layers
    // "<prefix>W_query", ... from `source`.
    CausalAttention(std::size_t d_in, std::size_t d_out, std::size_t context_length, bool qkv_bias,
                    ParameterSource& source, const std::string& prefix = "")
        : CausalAttention{Linear::make(source, prefix + "W_query", d_in, d_out, qkv_bias),
                          Linear::make(source, prefix + "W_key", d_in, d_out, qkv_bias),
                          Linear::make(source, prefix + "W_value", d_in, d_out, qkv_bias),
                          context_length} {}

    // The module of a state_dict's layers (W_query.weight, ..., the biases if it has them),
    // its mask built for context_length.
    static CausalAttention load(const StateDict& state, std::size_t context_length) {
        return {Linear::load(state, "W_query"), Linear::load(state, "W_key"),
                Linear::load(state, "W_value"), context_length};
    }

    std::size_t d_in() const { return W_query.d_in(); }
    std::size_t d_out() const { return W_query.d_out(); }
    std::size_t context_length() const { return mask.shape(0); }

    StateDict state_dict() const {
        StateDict state;
        W_query.save(state, "W_query");
        W_key.save(state, "W_key");
        W_value.save(state, "W_value");
        state.set("mask", mask);
        return state;
    }

    // Exercise 15, CausalAttention.forward (In [34]). For every batch item b:
    //   queries, keys, values = x[b] @ W.T for each layer            (T, d_out)
    //   scores = queries @ keys.T, with mask[:T, :T] entries set to -inf    (T, T)
    //   context[b] = softmax(scores / sqrt(d_out), dim=-1) @ values        (T, d_out)
    // x: (B, T, d_in) -> context: (B, T, d_out). The mask was built for context_length tokens
    // and is truncated to its first T rows and columns: T may be smaller, never larger.
    // At seed 123 on the batch of two copies of the inputs (In [33], In [34]):
    //   [[[-0.4519,  0.2216], [-0.5874,  0.0058], [-0.6300, -0.0632], ...], (the same again)]
    // T > context_length, or x's d_in not the weights', throws attn::shape_error.
    // (The course's own copy of the chapter has a slip here, which the public ch03.ipynb does
    // not: its forward applies softmax to a variable `masked` left over from an earlier cell,
    // not to the scores it just masked, so the numbers it prints are not this forward's. The
    // goldens come from the corrected code; if you compare with that notebook's printout, expect a
    // difference.)
    Tensor3 forward(const Tensor3& x) const;
    Tensor3 operator()(const Tensor3& x) const { return forward(x); }  // ca(batch)
};

}  // namespace attn

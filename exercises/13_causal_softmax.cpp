// exercises/13_causal_softmax.cpp — Exercise 13: -inf above the diagonal before softmax.
//
// The notebook cells it mirrors, In [29] and In [30] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)  future_mask
//   masked = attn_scores.masked_fill(mask.bool(), -torch.inf)                  mask_future
//   attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)   causal_attention_weights
// Declared in include/attn/causal_attention.hpp.
// Check your work: `tools/kit check 13`. Stuck? `tools/kit hint 13`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [29]" "ch03.ipynb In [30]"`.
//
// Goal: the causal weights in one step. Exercise 12 zeroed the future after softmax and had
// to renormalise; here the future is hidden in the SCORES, before softmax: every score above
// the diagonal (j > i) becomes -infinity. exp(-inf) = 0, so softmax gives those entries
// weight 0 on its own, and each row still sums to 1.
// Each function's maths, shapes and the notebook's values: include/attn/causal_attention.hpp,
// Exercise 13.
// Which numbers: ch03.ipynb masks the scores of a SelfAttention_v2 built at torch.manual_seed(789),
//   and the cases notebook, mask_notebook and two_ways_notebook follow it (row 2 of the weights:
//   0.5517, 0.4483); the *_seed42 cases run the same cells at seed 42 (row 2: 0.4775, 0.5225).
//   `tools/kit show 13 notebook` prints one of them with its source.
// Worked example, d_k = 1: scores [[0, 5], [0, 0]] -> mask [[0, 1], [0, 0]]
//   -> masked [[0, -inf], [0, 0]] -> weights [[1, 0], [0.5, 0.5]]
// The result equals exercise 12's mask_and_renormalize(softmax(scores / sqrt(d_k), -1)): a
// case (two_ways) checks that. softmax from exercise 03 (the kit's reference version) handles
// the -inf entries: each row keeps at least its diagonal, so its max is finite.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include <cmath>
#include <limits>

namespace attn {

Matrix future_mask(std::size_t context_length) {
    arguments::future_mask(context_length);  // bad input -> a clear error

    // TODO 1. A (context_length, context_length) Matrix of zeros.
    //      2. Set entry (i, j) to 1 wherever j > i (above the diagonal); return it.
    throw not_implemented("exercises/13_causal_softmax.cpp", "future_mask(context_length)");
}

Matrix mask_future(const Matrix& scores) {
    arguments::mask_future(scores);  // bad input -> a clear error

    // TODO 1. masked = a copy of scores.
    //      2. For every i and every j > i: masked(i, j) = -std::numeric_limits<float>::infinity().
    //      3. Return masked.
    throw not_implemented("exercises/13_causal_softmax.cpp", "mask_future(scores)");
}

Matrix causal_attention_weights(const Matrix& scores, std::size_t d_k) {
    arguments::causal_attention_weights(scores, d_k);  // bad input -> a clear error

    // TODO 1. masked = mask_future(scores).
    //      2. Return softmax(masked / sqrt(d_k), -1): softmax along each row.
    throw not_implemented("exercises/13_causal_softmax.cpp",
                          "causal_attention_weights(scores, d_k)");
}

}  // namespace attn

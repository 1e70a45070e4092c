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
//   mask[i, j] = 1 if j > i else 0                       (triu of ones, diagonal=1)
//   masked[i, j] = scores[i, j] if j <= i else -inf
//   weights = softmax(masked / sqrt(d_k), dim=-1)         (d_k: the keys' dimension)
// Worked example, d_k = 1: scores [[0, 5], [0, 0]] -> mask [[0, 1], [0, 0]]
//   -> masked [[0, -inf], [0, 0]] -> weights [[1, 0], [0.5, 0.5]]
// The result equals exercise 12's mask_and_renormalize(softmax(scores / sqrt(d_k), -1)): a
// case (two_ways) checks that. softmax from exercise 03 (the kit's reference version) handles
// the -inf entries: each row keeps at least its diagonal, so its max is finite.
#include "attn/causal_attention.hpp"
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include <cmath>
#include <limits>

namespace attn {

Matrix future_mask(std::size_t context_length) {
    checks::require_positive("future_mask", "context_length", context_length);

    // TODO: a (context_length, context_length) matrix: 1 where j > i (above the diagonal),
    // 0 on and below it.
    throw not_implemented("exercises/13_causal_softmax.cpp", "future_mask(context_length)");
}

Matrix mask_future(const Matrix& scores) {
    checks::require_square("mask_future", "scores", scores);

    // TODO: a copy of the scores with every entry above the diagonal (j > i) set to
    // -std::numeric_limits<float>::infinity().
    throw not_implemented("exercises/13_causal_softmax.cpp", "mask_future(scores)");
}

Matrix causal_attention_weights(const Matrix& scores, std::size_t d_k) {
    checks::require_square("causal_attention_weights", "scores", scores);
    checks::require_positive("causal_attention_weights", "d_k", d_k);

    // TODO: mask the future, divide by sqrt(d_k), then softmax along each row.
    throw not_implemented("exercises/13_causal_softmax.cpp",
                          "causal_attention_weights(scores, d_k)");
}

}  // namespace attn

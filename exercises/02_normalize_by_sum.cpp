// exercises/02_normalize_by_sum.cpp — Exercise 02: attention weights by dividing by the sum.
//
// Source: seed 001 §3.3.1, In [3]. Declared in include/attn/simple_attention.hpp.
// Check your work: `tools/kit check 02`. Stuck? `tools/kit hint 02`.
//
// Goal: turn scores into weights that add up to 1, the naive way (exercise 03 does it
// properly with softmax).
//   scores: (T,) -> weights: (T,)
//   weights[i] = scores[i] / sum_j scores[j]
// Worked example: [1, 3] -> [0.25, 0.75]
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>

namespace attn {

Vector normalize_by_sum(const Vector& scores) {
    checks::require_non_empty("normalize_by_sum", "scores", scores);

    // TODO: return every score divided by the sum of all scores.
    throw not_implemented("exercises/02_normalize_by_sum.cpp", "normalize_by_sum(scores)");
}

}  // namespace attn

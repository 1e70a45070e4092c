// tests/kit/slips/14_dropout.cpp — solutions/14_dropout.cpp with the slips students make in it,
// each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them all). Without
// ATTN_SLIP it is the solution and must pass every test.
//
// The scale of the kept values, and what the keep mask means.
// slip: not_scaled -> never scaled the kept values
// slip: scaled_down -> multiplied the kept values by (1 - p) instead of dividing
// slip: divided_by_p -> divided by p instead of (1 - p)
// slip: mask_inverted -> dropped the kept entries and kept the dropped ones
// slip: scaled_only -> scaled every entry but dropped none
// The mode: dropout only while training.
// slip: dropped_in_eval -> applied dropout in eval mode
// slip: p_one_not_handled -> 1 - p with p = 1
//   (p = 1 divides 0 by 0: no mistake is recorded, the nan diagnosis lists it among its causes)
// not yet named: divided_by_kept_fraction (by mean(keep), not 1 - p: "every value is 18/17 of
//   the expected: a factor missing from, or added to, the formula", no mistake named)
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "slip.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>

#include <stdexcept>
#include <string>

namespace attn {

Matrix dropout(const Matrix& x, const Matrix& keep, float p, [[maybe_unused]] bool training) {
    arguments::dropout(x, keep, p);  // bad input -> a clear error

    if (!training && !slip("dropped_in_eval")) return x;
    if (p == 1.0f && !slip("p_one_not_handled")) return xt::zeros_like(x);  // else 0 / 0
    if (slip("not_scaled")) return x * keep;
    if (slip("scaled_down")) return x * keep * (1.0f - p);
    if (slip("divided_by_p")) return x * keep / p;
    if (slip("mask_inverted")) return x * (1.0f - keep) / (1.0f - p);
    if (slip("scaled_only")) return x / (1.0f - p);
    if (slip("divided_by_kept_fraction")) {  // the fraction this mask kept, not 1 - p
        return x * keep / xt::mean(keep)();
    }
    return x * keep / (1.0f - p);
}

}  // namespace attn

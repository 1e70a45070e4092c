// tests/kit/slips/02_normalize_by_sum.cpp — solutions/02_normalize_by_sum.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The total summed in a loop, as most students write it first. An accumulator declared without
// a value holds the build's pattern value (-1.7e38), which GCC does not see here at -Og: the
// comparison names the pattern, and `check` names the line (tools/kitcli/analyse.py).
// slip: uninitialised_total -> read before it is set
// slip: loop_past_end -> out of bounds
// slip: loop_over_dimension -> a loop over a fixed range
// slip: running_sum -> the sum so far
// Dividing by another total: each a recorded mistake, named on the status line.
// slip: divided_by_max -> divided by the largest score
// slip: divided_by_count -> divided by the number of scores
// slip: int_total -> int total
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor/xmath.hpp>

namespace attn {

Vector normalize_by_sum(const Vector& scores) {
    arguments::normalize_by_sum(scores);  // bad input -> a clear error

    if (slip("uninitialised_total")) {
        float total;
        for (std::size_t i = 0; i < scores.size(); ++i) total += scores(i);
        return scores / total;
    }
    if (slip("loop_past_end")) {  // `<=`: one score past the end
        float total = 0.0f;
        for (std::size_t i = 0; i <= scores.size(); ++i) total += scores(i);
        return scores / total;
    }
    if (slip("loop_over_dimension")) {  // dimension() is 1, the number of axes: one score
        float total = 0.0f;
        for (std::size_t i = 0; i < scores.dimension(); ++i) total += scores(i);
        return scores / total;
    }
    if (slip("running_sum")) {  // one loop: each score divided by the sum so far
        Vector weights = scores;
        float total = 0.0f;
        for (std::size_t i = 0; i < scores.size(); ++i) {
            total += scores(i);
            weights(i) = scores(i) / total;
        }
        return weights;
    }
    if (slip("divided_by_max")) return scores / xt::amax(scores)();
    if (slip("divided_by_count")) return scores / static_cast<float>(scores.size());
    if (slip("int_total")) {
        const int total = xt::sum(scores)();
        return scores / total;
    }
    return scores / xt::sum(scores)();
}

}  // namespace attn

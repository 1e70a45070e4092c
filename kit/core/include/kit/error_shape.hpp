// kit/error_shape.hpp — what the difference between a result and its golden looks like.
//
// A recorded mistake names a slip somebody foresaw; most wrong answers are slips nobody
// recorded. Their error still has a shape a teacher would point at: every value twice the
// answer, the same offset on every token, the right columns in the wrong order, a count that
// wrapped past 2^32, nan where the answer is a number, weights above the diagonal that should
// be 0. describe_error states the first such shape that fits, as a fact about the numbers,
// then the likely cause ("every value is 2× the expected: ..."), or "" when none fits.
// Only facts that hold for every value are stated, so two slips with the same numbers get the
// same sentence, and it is true of both.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::kit {

struct error_values {
    const std::vector<double>& got;
    const std::vector<double>& expected;
    const std::vector<std::size_t>& shape;  // of both
    const std::vector<double>& allowed;     // each value's tolerance; 0 for an exact dtype
    bool integer;                           // int64 values (counts), compared exactly
    // A hidden case: state only what tells nothing of the expected values (nan where the
    // answer is a number, weights that leak the future or do not sum to 1, a negative count).
    bool withhold_expected = false;
};

// The first shape that fits: `id` names the shape (the check that found it: "exact_factor",
// "transposed", "not_finite", ...), the same whatever the numbers, for a reader that groups
// failures; `text` is the sentence. Both empty when none fits.
struct error_description {
    std::string id;
    std::string text;
};

error_description describe_error(const error_values& values);

}  // namespace attn::kit

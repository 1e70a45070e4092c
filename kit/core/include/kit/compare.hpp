// kit/compare.hpp — a result compared with an expected golden, as a plain verdict.
//
// The one comparison of the kit: the GoogleTest layer turns a verdict into a failure message,
// the judge into JSON. A mismatch says what is wrong in one sentence (`reason`), names the
// recorded mistake the result equals, if any, with its hint, and gives the details a student
// needs: shapes, the worst element by index and how far past the tolerance it is, the first
// mismatches, the tolerance, and both tensors printed as PyTorch prints them.
#pragma once

#include "kit/golden_store.hpp"

#include <string>

namespace attn::kit {

struct comparison {
    bool passed = false;
    std::string reason;   // one line: "6 of 6 values differ; worst at [4]: got ..., expected ..."
    std::string mistake;  // the recorded mistake the result equals, or ""
    std::string hint;     // that mistake's hint
    std::string details;  // further lines, each starting with two spaces
    // `reason` with nothing of the expected tensor in it (no expected value, shape or dtype),
    // for a hidden case: "5 of 6 values differ beyond the tolerance; worst at [4]: got 0.25".
    std::string withheld_reason;
};

comparison compare(const any_tensor& actual, const expected_golden& expected);

// The full failure text: "`what` vs golden <path> (<source>): <reason> — looks like: <mistake>",
// then the hint and the details.
std::string explain(const std::string& what, const expected_golden& expected,
                    const comparison& verdict);

}  // namespace attn::kit

// kit/compare.hpp — a result compared with an expected golden, as a plain verdict.
//
// The one comparison of the kit: the GoogleTest layer turns a verdict into a failure message,
// the judge into JSON. A mismatch says what is wrong in one sentence (`reason`), names the
// recorded mistake the result equals, if any, with its hint, and gives the details a student
// needs: shapes, the worst element by index and how far past the tolerance it is, the first
// mismatches, the tolerance, and both tensors printed as PyTorch prints them.
#pragma once

#include "kit/golden_store.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace attn::kit {

// The element furthest past the tolerance.
struct worst_element {
    std::vector<std::size_t> index;  // {4, 1}; {} for a 0-d value
    double got = 0;
    double expected = 0;
    double times_tolerance = 0;  // |got - expected| / allowed; infinite for nan, inf, exact dtypes
};

struct comparison {
    bool passed = false;
    // What was compared, for a reader that wants the facts rather than the sentence (the
    // verdict files, docs/verdicts.md): shapes and dtypes; on a value mismatch, how many
    // values differ and the worst of them.
    std::vector<std::size_t> got_shape, expected_shape;
    std::string got_dtype, expected_dtype;
    std::size_t differing = 0;         // values beyond the tolerance (0 when shape or dtype differ)
    std::vector<worst_element> worst;  // one element on a value mismatch, else none
    std::vector<std::size_t> beyond;   // value mismatch: flat indices of those values
    std::string reason;   // one line: "6 of 6 values differ; worst at [4]: got ..., expected ..."
    std::string mistake;  // the recorded mistake the result equals, or ""
    std::string hint;     // that mistake's hint
    // The shape of got - expected as a fact, then its likely cause (kit/error_shape.hpp): "every
    // value is 2× the expected: ...", or "". Stated whether or not a mistake is named: a reader
    // that finds the name contradicted by another case falls back on it.
    std::string diagnosis;
    std::string withheld_diagnosis;  // the same for a hidden case: nothing of the expected
    // The recorded mistakes this result is not (every one, when it passed), and those whose
    // code throws on this case (expected_golden::throws): another case naming one of them
    // names a coincidence, not the student's slip.
    std::vector<std::string> ruled_out;
    // A name taken back (take_back_name): the mistake this result equals here, which another
    // case of the same function rules out; `mistake` and `hint` are then empty.
    std::string taken_back;
    std::string details;  // further lines, each starting with two spaces
    // `reason` with nothing of the expected tensor in it (no expected value, shape or dtype),
    // for a hidden case: "5 of 6 values differ beyond the tolerance; worst at [4]: got 0.25".
    std::string withheld_reason;
};

comparison compare(const any_tensor& actual, const expected_golden& expected);

// `verdict` with its named mistake taken back: a result that equals a recorded mistake on one
// case may do so by coincidence (a tiny case where two slips give the same numbers); where
// another case of the same function recorded that mistake too and the result there is not it
// (that case's `ruled_out`), the student did not make it. The failure then says the shape of
// its error instead (its diagnosis), if any. Names are compared whole: "softmax over the wrong
// axis (dim=0 instead of dim=-1)" is another computation than its dim=-1 twin.
comparison take_back_name(comparison verdict);

// The full failure text. Its first line names the call in the student's words (`what`, the
// test's call text, through student_words) and what is wrong:
//   "score_tensor_bytes(batch, num_heads, T): got -1,073,741,824, expected 3,221,225,472 (must
//   be equal; 4,294,967,296 fewer than expected) — <looks like: mistake | diagnosis>"
// then, each on its own line, "  case <case_name>: <the case's description>",
// "  golden: <path>", the hint and the details.
std::string explain(const std::string& what, const expected_golden& expected,
                    const comparison& verdict, const std::string& case_name = "");

}  // namespace attn::kit

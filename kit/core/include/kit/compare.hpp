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
#include <set>
#include <string>
#include <utility>
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
    // Its id and family (known_mistake): what a reader groups and counts by, never the text.
    std::string mistake_id, mistake_family;
    // The shape of got - expected as a fact, then its likely cause (kit/error_shape.hpp): "every
    // value is 2× the expected: ...", or "". Stated whether or not a mistake is named: a reader
    // that finds the name contradicted by another case falls back on it.
    std::string diagnosis;
    std::string withheld_diagnosis;  // the same for a hidden case: nothing of the expected
    // The id of the shape the diagnosis states (error_description::id): "exact_factor".
    std::string diagnosis_id, withheld_diagnosis_id;
    // The recorded mistakes this result is not (every one, when it passed), and those whose
    // code throws on this case (expected_golden::throws): another case naming one of them
    // names a coincidence, not the student's slip.
    std::vector<std::string> ruled_out;
    // The recorded mistakes the result equals where two of them give the same tensor on this
    // case (ambiguous): none is named here; another case of the function that names one of
    // them decides which (decide_names).
    std::vector<std::string> ambiguous_with;
    // Decided across cases (decide_names): the result names no mistake here, and equals one
    // that `same_slip_as` (another case of the same function) names: the same slip, not a
    // second one. `mistake` stays empty; `same_slip` is that mistake's name, and `hint`,
    // mistake_id and mistake_family are its hint, id and family.
    std::string same_slip_as, same_slip;
    // A name taken back (take_back_name): the mistake this result equals here, which another
    // case of the same function rules out; `mistake`, `hint` and the id are then empty.
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

// One output's comparison on one case, as decide_names reads and revises it.
struct case_comparison {
    std::string kind;       // the function the case calls (its ATTN_CASE kind)
    std::string case_name;  // how the reader names the case: "softmax_matrix.cols_notebook"
    comparison* verdict;
};

// The names of a function's cases, decided once over all of them, by the test program at its
// end and by the judge alike: a name that `ruled_out` (the (kind, mistake) pairs some case of
// the kind rules out) holds is taken back (take_back_name); then a result that equals, among
// the mistakes ambiguous on its case, one another case of its kind names is that case's slip
// (same_slip_as), not a second one. Returns the comparisons it changed.
std::vector<const comparison*> decide_names(
    const std::vector<case_comparison>& cases,
    const std::set<std::pair<std::string, std::string>>& ruled_out);

// The first line of a failure: "<call>: <reason> — <looks like: mistake | the same slip as
// <case> (looks like: mistake) | diagnosis>"; `call` is in the student's words.
std::string headline(const std::string& call, const comparison& verdict);

// The full failure text. Its first line names the call in the student's words (`what`, the
// test's call text, through student_words) and what is wrong:
//   "score_tensor_bytes(batch, num_heads, T): got -1,073,741,824, expected 3,221,225,472 (must
//   be equal; 4,294,967,296 fewer than expected) — looks like: ..." (headline)
// then, each on its own line, "  case <case_name>: <the case's description>",
// "  PyTorch's answer: <path> (`tools/kit show NN <case_name>` prints it)", the hint and the
// details.
std::string explain(const std::string& what, const expected_golden& expected,
                    const comparison& verdict, const std::string& case_name = "");

}  // namespace attn::kit

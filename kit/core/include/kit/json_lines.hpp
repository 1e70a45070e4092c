// kit/json_lines.hpp — the JSON Lines a test program writes, from plain structs.
//
// A test program writes two streams that tools/kit reads: its verdicts (--attn-verdicts,
// kit/verdicts.hpp) and a case shown (--attn-show-json, kit/testing/src/main.cpp);
// docs/verdicts.md is their schema. The test layer decides what they say with the structs
// below; the functions here turn them into lines of text. They are compiled in kit_core's
// JSON unit (kit_core_json.cpp), so nlohmann::json, whose templates cost seconds to compile
// in each unit that builds a document, is compiled once, not in every test program's
// sources: a fresh clone's first check waits for those.
#pragma once

#include "kit/any_tensor.hpp"
#include "kit/compare.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace attn::kit {

// ---- an attention matrix, for a picture -------------------------------------------------

// An attention matrix that differs from its golden, for a picture of both (tools/kit check):
// the values in row-major order and the flat indices of those beyond the tolerance. `got`
// and `beyond` are empty where only the expected matrix is shown (`tools/kit show`).
struct attention_matrix {
    std::vector<std::size_t> shape;  // (..., T, T)
    std::vector<double> got, expected;
    std::vector<std::size_t> beyond;
};

// The outputs that hold attention weights or scores: "weights", "scores", "masked" (scores
// or weights with the future masked), "normalized" (masked weights renormalised), and names
// ending so ("attn_weights", "causal_scores").
bool names_attention_matrix(const std::string& output);

// The matrix of `got` against `expected`, or nothing unless the case set is "public" (it
// states every expected value: never for a hidden set; the judge never writes it), `output`
// names a matrix of weights or scores (names_attention_matrix), both tensors are float32 of
// the same shape (..., T, T) with T >= 2, and they hold at most attention_matrix_max_values
// values.
constexpr std::size_t attention_matrix_max_values = 4096;
std::optional<attention_matrix> attention_matrix_of(const std::string& case_set,
                                                    const std::string& output,
                                                    const any_tensor& got,
                                                    const any_tensor& expected,
                                                    const comparison& compared);

// ---- the verdict stream (--attn-verdicts) -----------------------------------------------

// What the kit knows of a failure beyond its text.
struct failure_facts {
    // "mismatch" (a result differs from its golden), "law" (a law of the case is broken,
    // kit/laws.hpp; output: "law.causal.context"), "threw" (the code under test threw),
    // "not_implemented" (it is still the stub), "check" (an argument check failed),
    // "check_unreached" (an argument check not tested: its valid call threw), "kernel" (a
    // kernel broke a rule of the GPU, which the emulator names: compared.mistake_id is the
    // finding's id), "kit" (the case set or a test file is broken); a failure the kit did not
    // note is an "assertion".
    std::string kind;
    std::string output;   // a mismatch: the output's name ("weights")
    comparison compared;  // a mismatch: the comparison
    // A mismatch of an attention matrix: its values (attention_matrix_of).
    std::optional<attention_matrix> matrix = {};
    // A mismatch: the call in the student's words ("causal_attention(queries, keys, values)",
    // kit/student_code.hpp) and the case's description (its notebook cell, or what it tests).
    std::string call = {};
    std::string description = {};
    // A mismatch that names a recorded mistake: its text with the name taken back
    // (take_back_name), which the stream shows instead if another case of the same kind rules
    // the name out.
    std::string unnamed_text = {};
    // A throw: what threw, without the arguments' shapes (call_failure::alike), and whether it
    // points to memory read outside what the code owns (call_failure::points_to_garbage).
    std::string alike = {};
    bool points_to_garbage = false;
};

// Whether a failure's line states its comparison: a mismatch, a broken law, a kernel's
// finding.
bool states_comparison(const failure_facts& facts);

// One failure of a test, as its "test" event states it (docs/verdicts.md).
struct failure_record {
    failure_facts facts;
    std::string message;  // the first line of `text`
    std::string text;
    std::string alike;  // the key of failures alike (docs/verdicts.md, "alike")
    std::string file;
    int line = 0;
};

// A test's "because": the function it calls whose value cases failed too.
struct failed_callee {
    std::string function;
    int failed = 0;  // its failed value cases
    int cases = 0;   // its value cases run
};

// One test, as its "test" event states it.
struct test_record {
    std::string test;                      // "softmax_matrix.rows_notebook"
    std::optional<std::string> case_path;  // its value case; none for an argument check
    std::string status;                    // "passed", "failed", "skipped" or "not run"
    std::vector<failure_record> failures;
    std::vector<std::string> ruled_out;  // the recorded mistakes its results are not
    std::vector<std::string> notes;      // how the code performs (note_performance)
    std::optional<failed_callee> because;
    bool revised = false;
};

std::string program_line(const std::string& program);  // {"event": "program", ...}
std::string start_line(const std::string& test);       // {"event": "start", ...}
std::string test_line(const test_record& test);        // {"event": "test", ...}
std::string end_line(int tests, int failed,            // {"event": "end", ...}
                     const std::vector<std::vector<std::string>>& groups);
// `{"event":"crash","test":<test>,"signal":"`: the crash line's start, which a signal handler
// completes with the signal's name and `"}` and a newline.
std::string crash_line_start(const std::string& test);

// ---- a case shown (--attn-show-json) ----------------------------------------------------

// {"event": "case", "path", "name", "exercise", "kind", "source", "cases": [case names]}
std::string shown_case_line(const case_entry& entry, const std::vector<std::string>& cases);
// {"event": "tensor", "role", "name", "shape", "dtype", "repr", "matrix": values or null,
//  yours only: "comparison"}
std::string shown_tensor_line(const std::string& role, const std::string& name,
                              const any_tensor& tensor,
                              const std::optional<attention_matrix>& matrix,
                              const comparison* compared);
std::string shown_throw_line(bool stub, const std::string& message);  // {"event": "threw", ...}
std::string shown_end_line();                                         // {"event": "end"}
std::string shown_error_line(const std::string& message);             // {"event": "error", ...}

}  // namespace attn::kit

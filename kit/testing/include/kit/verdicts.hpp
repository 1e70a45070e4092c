// kit/verdicts.hpp — the test programs' verdict stream: what tools/kit reads, never GoogleTest's
// text.
//
// `test_exNN_... --attn-verdicts=FILE` appends one JSON object per line to FILE (JSON Lines),
// each written whole with one write(2), so a reader sees every line a crashed or killed
// program finished:
//
//   {"event": "program", "schema": "attn-kit/test-verdicts", "version": 1, "program": ...}
//   {"event": "start", "test": "softmax_matrix.rows_notebook"}
//   {"event": "test", "test": ..., "case": "03_softmax/rows_notebook" or null,
//    "status": "passed" | "failed" | "skipped" | "not run", "failures": [...],
//    "ruled_out": [names of recorded mistakes its results are not],
//    "notes": [how the code performs, where a test noted it]}  (only when there are notes)
//   {"event": "crash", "test": ..., "signal": "SIGSEGV"}     (from the signal handler)
//   {"event": "test", ..., "revised": true}  (at the end: see below)
//   {"event": "end", "tests": 12, "failed": 3}
//
// A failure is {"kind", "message", "text", "file", "line", ...}: its kind says who found it,
// and the kit's own failures add their facts (a mismatch its output and comparison, a throw
// whether it was the stub's not_implemented). docs/verdicts.md is the schema.
//
// The names are decided over every test of the program, once, at its end: a mistake a test
// names but another test of the same kind (suite) rules out is a coincidence of a small case
// (take_back_name). Each test whose names change is written again, whole, marked "revised":
// a reader keeps the last "test" event of each test.
#pragma once

#include "kit/json_lines.hpp"

#include <string>
#include <vector>

namespace attn::kit {

// Records `facts` for the GoogleTest failure with the text `text` that the caller adds next
// (ADD_FAILURE_AT(...) << text, or FAIL() << text): the verdict stream pairs them by text.
void note_failure(const std::string& text, failure_facts facts);

// Records that the test running now showed its result is none of these recorded mistakes (an
// output that passed rules out all of its golden's): its "test" event lists them under
// "ruled_out", so a reader can tell a name another case gives by coincidence.
void note_ruled_out(const std::vector<std::string>& mistakes);

// Records a note on how the code under test performs, for a test that may pass: its "test"
// event lists it under "notes" (docs/verdicts.md), and tools/kit shows it beside "done". A
// kernel that reads every tile, or whose shared-memory layout conflicts on its banks, is
// right, and worth a sentence; the same note twice in one test is kept once.
void note_performance(const std::string& text);

// A failed test, as the order of failures to show reads it.
struct failed_test {
    std::string name;       // "softmax_matrix.rows_notebook"
    std::string case_path;  // its value case ("03_softmax/rows_notebook"); "" for an argument check
    std::string alike;      // its first failure's key (docs/verdicts.md, "alike")
    std::string kind;       // its first failure's kind: "mismatch", "threw", ...
    bool named = false;     // its first failure names a recorded mistake, or is the same slip
    bool stub = false;      // it fails only because its function is still the stub
    std::string waits_for;  // a function it calls that fails too ("because"), or ""
};

// What a reader shows first, decided once for `tests` (in the order they ran): the failed
// tests grouped, failures alike in one group (the same `alike`; a function that waits for its
// callee is one group), the groups in the order to show them, each group's test to show in
// full first. The first group is the exercise's status line:
//   1. the recorded mistake most failed tests name: the slip itself (on a symmetric input
//      two mistakes give the same tensor, and the majority decides);
//   2. the code threw on the notebook's own case (the book's input must work first);
//   3. a failure on the notebook's case, then any other failure of the student's code;
//   4. functions still the stub; last, functions that fail because a callee does (the root
//      cause comes first).
// Within a rank, value cases come before argument checks, then the tests' order; within a
// group, the notebook's case first ("notebook" in its name, not "_shape": a case drawn at
// the notebook's sizes).
std::vector<std::vector<std::string>> failure_groups(const std::vector<failed_test>& tests);

// Appends the verdict stream of this program's tests to `path`, and names the test that was
// running if the program dies of a signal (SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, and
// SIGXCPU at its CPU limit): the handler writes that line, then lets the signal do what it did
// before (a sanitizer's report, or the default: the program dies of it). Call once, before
// RUN_ALL_TESTS().
void write_verdicts_to(const std::string& path, const std::string& program);

}  // namespace attn::kit

// kit/runner.hpp — runs a program's registered cases on a case set and writes the results.
//
// The runner compares nothing: for each case it writes every output as
// OUT/<case path>/<output>.npy, or the one-line failure of a call that threw as
// OUT/<case path>/error.txt (as not_implemented.txt where what threw was attn::not_implemented,
// an untouched stub). The judge (kit/judge.hpp), which links no student code, decides.
// A case with laws (kit/laws.hpp) whose own call did not throw runs again once per law, on
// that law's variant of its inputs, and writes the law's output as
// OUT/<case path>/law.<law>.<output>.npy (or the call's failure as law.<law>.error.txt).
// Before each case it writes the case's path to OUT/current-case, so that after a crash or a
// time-out the grader knows which case was running (never evidence for a verdict: the code
// under test could write it too; it only chooses which cases run again).
// Every exercise's test program is also its runner:
//   build/bin/test_ex03_exercises --attn-run-cases=reference_data --attn-results=OUT
#pragma once

#include "kit/golden_store.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace attn::kit {

struct runner_summary {
    std::size_t cases = 0;  // cases run
    std::size_t threw = 0;  // of which the code under test threw (or the case could not run)
    std::vector<std::string> not_found;  // of `only_cases`, those this program does not run
};

// Runs every case of `cases` whose exercise and kind this program registered, in that order
// (only those among `only_cases`, if it is not empty). Needs the cases' inputs only, never
// their expected tensors.
runner_summary run_cases(const golden_store& cases, const std::filesystem::path& out,
                         const std::vector<std::string>& only_cases = {});

}  // namespace attn::kit

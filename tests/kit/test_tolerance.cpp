// tests/kit/test_tolerance.cpp — the case set's tolerances are what float32 needs, no wider:
// the values the notebooks print, to 4 decimals and typed into a table, fail every exercise.
#include "kit/compare.hpp"
#include "kit/golden_store.hpp"

#include <gmock/gmock.h>
#include <xtensor/xmath.hpp>

#include <map>
#include <set>

namespace {

using attn::kit::float_tensor;
using attn::kit::golden_store;

// Every exercise's notebook cases, each float32 output rounded to 4 decimals as the notebook
// prints it: at least one of them must fail (in every exercise whose notebook cases have a
// float32 output; a count is exact, and typing it in is typing the answer). (Where every printed
// value is exact at 4 decimals, as the dot products of 01's 2-decimal inputs are, the rounded value
// is the answer and passes: another of the exercise's notebook cases must then fail.)
TEST(ToleranceTest, RejectsTheNotebooksPrintedValuesOfEveryExercise) {
    const golden_store& store = golden_store::instance();
    std::set<std::string> exercises;
    std::map<std::string, int> rejected;
    for (const auto* entry : store.cases()) {
        if (entry->name().find("notebook") == std::string::npos) continue;
        for (const auto& name : entry->expected) {
            const auto golden = store.expected(entry->file(name));
            const auto* values = std::get_if<float_tensor>(&golden.tensor);
            if (values == nullptr) continue;  // int64 and bool: compared exactly
            exercises.insert(entry->exercise);
            const float_tensor printed = xt::round(*values * 1e4f) / 1e4f;
            rejected[entry->exercise] += !attn::kit::compare(printed, golden).passed;
        }
    }
    for (const auto& exercise : exercises) {
        EXPECT_GT(rejected[exercise], 0)
            << "exercise " << exercise << ": the notebook's values rounded to 4 decimals pass "
            << "every notebook case, so a table of them typed in would pass";
    }
}

}  // namespace

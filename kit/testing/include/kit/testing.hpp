// kit/testing.hpp — the GoogleTest layer over the kit's core.
//
// A test file includes this and writes its value tests as cases (kit/cases.hpp: ATTN_CASE,
// ATTN_RESULT) and its argument checks as plain TESTs. The kit's main() (kit/testing/src/
// main.cpp) turns every case of the case set into one GoogleTest test, named
// <kind>.<case>, e.g. softmax_matrix.rows_notebook; a mismatch fails it with the teaching
// message of kit/compare.hpp, whose first line says what is wrong.
#pragma once

#include "kit/cases.hpp"
#include "kit/compare.hpp"
#include "kit/golden_store.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attn::kit {

// The verdict of the in-process tests on one result: `call` is the student's call as written.
::testing::AssertionResult result_matches(const std::string& call, const any_tensor& result,
                                          const expected_golden& expected);

// A float32 input of a case in the kit's case set, for tests of argument checks:
//   const auto inputs = case_input<2>("01_dot_scores/notebook_journey", "inputs");
template <std::size_t N>
xt::xtensor<float, N> case_input(const std::string& case_path, const std::string& name) {
    const golden_store& store = golden_store::instance();
    return store.load_as<float, N>(store.find_case(case_path).file(name));
}

}  // namespace attn::kit

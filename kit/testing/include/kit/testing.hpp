// kit/testing.hpp — the GoogleTest layer over the kit's core.
//
// A test file includes this and writes its value tests as cases (kit/cases.hpp: ATTN_CASE,
// ATTN_RESULT) and its argument checks as plain TESTs of ATTN_EXPECT_REJECTS (below). The
// kit's main() (kit/testing/src/main.cpp) turns every case of the case set into one
// GoogleTest test, named <kind>.<case>, e.g. softmax_matrix.rows_notebook; a mismatch fails
// it with the teaching message of kit/compare.hpp, whose first line says what is wrong.
#pragma once

#include "kit/cases.hpp"
#include "kit/compare.hpp"
#include "kit/golden_store.hpp"
#include "kit/stub_lines.hpp"
#include "kit/verdicts.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

// ATTN_EXPECT_REJECTS(valid_call, invalid_call, bad_input, error_type, expected, check):
// a test of an argument check, in a plain TEST.
//
//   ATTN_EXPECT_REJECTS(attn::context_vector(inputs, weights),
//                       attn::context_vector(inputs, one_too_many),
//                       "weights of length T + 1 = " + std::to_string(T + 1),
//                       attn::shape_error, "must equal T = " + std::to_string(T),
//                       stub_line("arguments::context_vector("));
//
// `valid_call` (the same function on good input) runs first: until it returns, the check
// is not tested, and the test fails and stops with the stub's not_implemented message (an
// untouched stub, whose first lines are its checks, would pass it otherwise). Then
// `invalid_call` must throw `error_type` (or a type derived from it) with `expected` in its
// message: a string, or all_of(a, b). `bad_input` says in words what is wrong with the
// invalid call's input. `check` is the line that makes the check, which a failure asks the
// student to keep: stub_line(fragment) for the stub's statement that contains the fragment
// (the kit quotes it from the stub; a fragment in no statement, or in several, fails the test
// as a kit error on both tracks), kit_line(file, line) for a check in the kit's own code, or
// a string (a raw string R"line(...)line", as a line may hold `)"`) for a line the stub does
// not have. A failure says this in at most three lines, the same in every run.
#define ATTN_EXPECT_REJECTS(valid_call, invalid_call, bad_input, error_type, expected, check)   \
    do {                                                                                        \
        const ::attn::kit::check_verdict attn_check_verdict = ::attn::kit::rejects<error_type>( \
            {#valid_call, #invalid_call, bad_input, #error_type, expected, check},              \
            [&] { static_cast<void>(valid_call); }, [&] { static_cast<void>(invalid_call); });  \
        ::attn::kit::note_check(attn_check_verdict);                                            \
        if (attn_check_verdict.valid_call_failed) FAIL() << attn_check_verdict.message;         \
        if (!attn_check_verdict.passed) ADD_FAILURE() << attn_check_verdict.message;            \
    } while (false)

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

// An int64 scalar input of a case in the kit's case set (a size, a count), for the same:
//   const auto num_heads = case_integer("19_multi_head_attention/notebook", "num_heads");
inline std::size_t case_integer(const std::string& case_path, const std::string& name) {
    const golden_store& store = golden_store::instance();
    return static_cast<std::size_t>(
        store.load_as<std::int64_t, 0>(store.find_case(case_path).file(name))());
}

// A case's float32 inputs under `prefix`, the prefix taken off: a module's state_dict, for
// the same: MultiHeadAttention::load(case_state_dict("19_multi_head_attention/notebook"), ...).
attn::StateDict case_state_dict(const std::string& case_path, const std::string& prefix = "");

// ---- ATTN_EXPECT_REJECTS ----------------------------------------------------------------

// What the message of a rejection must contain: one text, or all_of(a, b, ...).
struct expected_text {
    expected_text(const char* part) : parts{part} {}
    expected_text(std::string part) : parts{std::move(part)} {}
    expected_text(std::vector<std::string> all) : parts(std::move(all)) {}
    std::vector<std::string> parts;
};

template <class... Parts>
expected_text all_of(const Parts&... parts) {
    return std::vector<std::string>{std::string(parts)...};
}

// The line that makes a check: the stub's (stub_line(fragment), or a string), or
// kit_line(file, line) for one in the kit's own code.
struct check_line {
    check_line(const char* stub_line) : line(stub_line) {}
    check_line(std::string stub_line) : line(std::move(stub_line)) {}
    std::string line;
    std::string kit_file;   // "" for the stub's line
    std::string kit_error;  // why stub_line() found no one statement: the test is broken
};

// The statement of the exercise's stub that contains `fragment`, quoted from the stub:
//   stub_line("arguments::softmax(x)")
// is `arguments::softmax(x);`.
inline check_line stub_line(const std::string& fragment) {
    quoted_statement quoted = quote_statement(exercise_stub(), fragment);
    check_line check(std::move(quoted.statement));
    check.kit_error = std::move(quoted.error);
    return check;
}

inline check_line kit_line(std::string file, std::string line) {
    check_line check(std::move(line));
    check.kit_file = std::move(file);
    return check;
}

// An ATTN_EXPECT_REJECTS as written.
struct rejection {
    const char* valid_call;
    const char* invalid_call;
    std::string bad_input;
    const char* error_type;
    expected_text expected;
    check_line check;
};

// What a call did: returned, or threw.
struct call_outcome {
    bool returned = true;
    bool not_implemented = false;  // threw attn::not_implemented: an untouched stub
    bool expected_type = false;    // threw the rejection's error_type
    std::string type;              // "attn::shape_error"
    std::string message;           // its what(), on one line
};

// The outcome of the exception being handled; call it in a catch block only.
call_outcome current_exception_outcome();
call_outcome expected_type_outcome(const std::exception& error);

// The verdict on a rejection: `valid` must have returned, `invalid` thrown the expected error.
struct check_verdict {
    bool passed = true;
    bool valid_call_failed = false;  // the check was not tested: the test stops
    bool not_implemented = false;    // because the valid call is still the stub
    bool kit_error = false;          // the test names no one statement of the stub
    std::string message;             // why it failed, at most three lines
};

check_verdict rejection_verdict(const rejection& spec, const call_outcome& valid,
                                const call_outcome& invalid);

// The verdict on a rejection whose stub_line() is broken: a kit error; nothing is called.
check_verdict broken_rejection(const rejection& spec);

// Tells the verdict stream what a failing verdict's failure is (a check, the stub, or a kit
// error).
void note_check(const check_verdict& verdict);

template <class Error, class Valid, class Invalid>
check_verdict rejects(const rejection& spec, Valid&& valid, Invalid&& invalid) {
    call_outcome first, second;
    if (!spec.check.kit_error.empty()) return broken_rejection(spec);
    try {
        valid();
    } catch (...) {
        first = current_exception_outcome();
    }
    if (first.returned) {
        try {
            invalid();
        } catch (const Error& error) {
            second = expected_type_outcome(error);
        } catch (...) {
            second = current_exception_outcome();
        }
    }
    return rejection_verdict(spec, first, second);
}

}  // namespace attn::kit

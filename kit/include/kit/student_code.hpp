// kit/student_code.hpp — running the code under test inside a test.
//
//   attn::Vector scores;
//   RUN_STUDENT_CODE(scores = attn::dot_scores(inputs, query));
//
// If the statement throws, the test fails at once with one readable line: an untouched
// stub's own message ("exercises/01_dot_scores.cpp: attn::dot_scores(inputs, query) is not
// implemented yet ..."), or the statement and the exception's message. Without it GoogleTest
// reports "unknown file: C++ exception with description ... thrown in the test body".
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace attn::kit {

// Runs `code`; returns "" if it returned normally, else what the failure line should say.
std::string failure_of(const std::function<void()>& code, const char* statement);

// Predicate-formatter behind RUN_STUDENT_CODE: its message is the failure line alone.
::testing::AssertionResult runs_without_throwing(const char*, const char*, const char* statement,
                                                 const std::function<void()>& code);

}  // namespace attn::kit

#define RUN_STUDENT_CODE(statement) \
    ASSERT_PRED_FORMAT2(::attn::kit::runs_without_throwing, #statement, ([&] { statement; }))

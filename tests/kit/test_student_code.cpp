// tests/kit/test_student_code.cpp — an exception from the code under test becomes one line.
#include "attn/errors.hpp"
#include "kit/student_code.hpp"

#include <gmock/gmock.h>

namespace {

using attn::kit::failure_of;

TEST(StudentCodeTest, NothingToReportWhenTheCodeReturns) {
    EXPECT_EQ(failure_of([] {}, "f()"), "");
}

TEST(StudentCodeTest, AStubSaysWhichFileAndFunctionToFillIn) {
    const auto line = failure_of(
        [] {
            throw attn::not_implemented("exercises/01_dot_scores.cpp", "dot_scores(inputs, query)");
        },
        "attn::dot_scores(inputs, query)");
    EXPECT_EQ(line,
              "exercises/01_dot_scores.cpp: attn::dot_scores(inputs, query) is not implemented yet "
              "(replace the throw with your code)");
}

TEST(StudentCodeTest, OtherExceptionsNameTheCall) {
    const auto line =
        failure_of([] { throw attn::shape_error("bad shape"); }, "attn::softmax(scores, dim)");
    EXPECT_EQ(line, "attn::softmax(scores, dim) threw: bad shape");
    EXPECT_THAT(failure_of([] { throw 42; }, "f()"), ::testing::HasSubstr("not a std::exception"));
}

}  // namespace

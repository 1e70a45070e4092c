// tests/kit/test_student_code.cpp — an exception from the code under test becomes one line
// that names the call, the exception and the shapes of the arguments.
#include "attn/errors.hpp"
#include "kit/student_code.hpp"

#include <gmock/gmock.h>

#include <stdexcept>
#include <string>

namespace {

using attn::kit::arguments_of;
using attn::kit::failure_of;
using attn::kit::readable_message;

// What XTENSOR_ENABLE_ASSERT throws for m(6, 0) on a (6, 3) matrix (xtensor 0.24).
const std::string xtensor_bounds_check =
    "/usr/include/xtensor/xcontainer.hpp:438: check failed\n"
    "\tindex 6 is out of bounds for axis 0 with size 6";

TEST(StudentCodeTest, NothingToReportWhenTheCodeReturns) {
    EXPECT_EQ(failure_of([] {}, "f()"), "");
}

TEST(StudentCodeTest, AStubSaysWhichFileAndFunctionToFillIn) {
    const auto line = failure_of(
        [] {
            throw attn::not_implemented("exercises/01_dot_scores.cpp", "dot_scores(inputs, query)");
        },
        "attn::dot_scores(inputs, query)", "inputs (6, 3), query (3,)");
    EXPECT_EQ(line,
              "exercises/01_dot_scores.cpp: attn::dot_scores(inputs, query) is not implemented yet "
              "(replace the throw with your code)");
}

TEST(StudentCodeTest, OtherExceptionsNameTheCallTheTypeAndTheArgumentShapes) {
    const auto line =
        failure_of([] { throw std::runtime_error("Dot: shape mismatch."); },
                   "attn::context_vector(inputs, weights)", "inputs (6, 3), weights (5,)");
    EXPECT_EQ(line,
              "attn::context_vector(inputs, weights) threw std::runtime_error: \"Dot: shape "
              "mismatch.\" — called with inputs (6, 3), weights (5,)");
}

TEST(StudentCodeTest, TheKitsOwnExceptionsAreNamedWithTheirNamespace) {
    EXPECT_EQ(failure_of([] { throw attn::shape_error("bad shape"); }, "attn::softmax(x)"),
              "attn::softmax(x) threw attn::shape_error: \"bad shape\"");
}

TEST(StudentCodeTest, ANonStandardExceptionIsStillOneLine) {
    EXPECT_EQ(failure_of([] { throw 42; }, "f(x)", "x (2,)"),
              "f(x) threw something that is not a std::exception — called with x (2,)");
}

TEST(StudentCodeTest, XtensorsBoundsCheckLosesItsHeaderPathAndLineBreak) {
    EXPECT_EQ(readable_message(xtensor_bounds_check),
              "index 6 is out of bounds for axis 0 (size 6)");
    const auto line = failure_of([] { throw std::runtime_error(xtensor_bounds_check); },
                                 "attn::dot_scores(inputs, query)", "inputs (6, 3), query (3,)");
    EXPECT_EQ(line,
              "attn::dot_scores(inputs, query) threw std::runtime_error: \"index 6 is out of "
              "bounds for axis 0 (size 6)\" — called with inputs (6, 3), query (3,)");
}

TEST(StudentCodeTest, AMessageOverSeveralLinesBecomesOne) {
    EXPECT_EQ(readable_message("first line\n\tsecond line\n"), "first line second line");
}

TEST(ArgumentsOfTest, NamesTheLoadedInputsTheCallPassesInTheCallsOrder) {
    const std::vector<attn::kit::argument> loaded = {{"weights", "(5,)"}, {"inputs", "(6, 3)"}};
    EXPECT_EQ(arguments_of("attn::context_vector(inputs, weights)", loaded),
              "inputs (6, 3), weights (5,)");
}

TEST(ArgumentsOfTest, MatchesWholeNamesOnlyAndStatesIntegers) {
    const std::vector<attn::kit::argument> loaded = {
        {"x", "(2,)"}, {"scores", "(6, 6)"}, {"dim", "= -1"}};
    // "x" is inside "xt" and "softmax", and no argument: it is not named.
    EXPECT_EQ(arguments_of("attn::softmax(scores, dim)", loaded), "scores (6, 6), dim = -1");
}

TEST(ArgumentsOfTest, SaysNothingWhenTheCallPassesNoLoadedInput) {
    EXPECT_EQ(arguments_of("xt::sum(weights)", {{"scores", "(6,)"}}), "");
}

}  // namespace

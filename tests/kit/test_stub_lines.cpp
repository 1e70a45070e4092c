// tests/kit/test_stub_lines.cpp — stub_line(): a test names a stub's check by a fragment, and
// the kit quotes the one statement of the stub that holds it (kit/stub_lines.hpp); a fragment
// in no statement or in several is a kit error, and the check's test fails without a call.
#include "kit/stub_lines.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

#include <stdexcept>

namespace {

using attn::kit::quote_statement;
using attn::kit::statements_of;
using attn::kit::stub_text;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* const kStub = R"stub(// exercises/99_example.cpp — a stub; its checks come first.
#include "attn/checks.hpp"  // require_non_empty; a ';' here is no statement

namespace attn {

Vector example(const Vector& x, const Matrix& scores, int dim) {
    checks::require_non_empty("example", "x", x);  // keep this line
    /* the dim */ [[maybe_unused]] const std::size_t axis = checks::normalize_dim("example", dim);
    checks::require_length("example", "scores", scores, 0, x.shape(0),
                           "T (the length of x)");
    checks::require_column(
        "example", "x", x, "d; not a statement's end");
    if (dim == 7) {
        throw std::invalid_argument("example: dim is 7, "
                                    "which no tensor has");
    }
    // TODO: the rest. throw not_implemented("a comment");
    throw not_implemented("exercises/99_example.cpp", "example(x, scores, dim)");
}

}  // namespace attn
)stub";

const stub_text kPristine{"99", "exercises/99_example.cpp", kStub, true};

TEST(StubLinesTest, ListsEachStatementOnOneLineWithoutComments) {
    EXPECT_THAT(
        statements_of(kStub),
        ElementsAre(
            "namespace attn {", "Vector example(const Vector& x, const Matrix& scores, int dim) {",
            R"q(checks::require_non_empty("example", "x", x);)q",
            R"q([[maybe_unused]] const std::size_t axis = checks::normalize_dim("example", dim);)q",
            R"q(checks::require_length("example", "scores", scores, 0, x.shape(0), "T (the length of x)");)q",
            R"q(checks::require_column("example", "x", x, "d; not a statement's end");)q",
            R"q(if (dim == 7) { throw std::invalid_argument(...); })q",
            R"q(throw std::invalid_argument("example: dim is 7, " "which no tensor has");)q",
            R"q(throw not_implemented("exercises/99_example.cpp", "example(x, scores, dim)");)q"));
}

TEST(StubLinesTest, QuotesTheOneStatementThatHoldsTheFragment) {
    EXPECT_EQ(
        quote_statement(kPristine, "require_length(\"example\"").statement,
        R"q(checks::require_length("example", "scores", scores, 0, x.shape(0), "T (the length of x)");)q");
    EXPECT_EQ(quote_statement(kPristine, "if (dim == 7)").statement,
              "if (dim == 7) { throw std::invalid_argument(...); }");
    EXPECT_EQ(quote_statement(kPristine, "require_non_empty(\"example\", \"x\"").error, "");
}

TEST(StubLinesTest, AFragmentInNoStatementIsAKitErrorNamingTheExerciseAndTheFragment) {
    const auto quoted = quote_statement(kPristine, "require_non_empty(\"example\", \"y\"");
    EXPECT_THAT(quoted.error, HasSubstr("kit error: the test of exercise 99"));
    EXPECT_THAT(quoted.error, HasSubstr("the fragment `require_non_empty(\"example\", \"y\"`"));
    EXPECT_THAT(quoted.error, HasSubstr("no statement of exercises/99_example.cpp"));
    // A comment is no statement: its text is no check a student must keep.
    EXPECT_NE(quote_statement(kPristine, "keep this line").error, "");
}

TEST(StubLinesTest, AFragmentInSeveralStatementsIsAKitError) {
    const auto quoted = quote_statement(kPristine, "(\"example\", \"x\"");
    EXPECT_THAT(quoted.error, HasSubstr("which 2 statements of exercises/99_example.cpp contain"));
    EXPECT_THAT(quoted.error, HasSubstr("name exactly one"));
}

TEST(StubLinesTest, AStubThatMayBeEditedQuotesAFragmentItLacksAsItIs) {
    const stub_text edited{"99", "exercises/99_example.cpp", kStub, false};
    const auto quoted = quote_statement(edited, "require_positive(\"example\"");
    EXPECT_EQ(quoted.error, "");
    EXPECT_EQ(quoted.statement, "require_positive(\"example\"");
    EXPECT_EQ(
        quote_statement(edited, "normalize_dim").statement,
        R"q([[maybe_unused]] const std::size_t axis = checks::normalize_dim("example", dim);)q");
}

TEST(StubLinesTest, ABrokenStubLineFailsTheCheckWithoutCallingAnything) {
    attn::kit::check_line check("require_non_empty(\"example\", \"y\"");
    check.kit_error = quote_statement(kPristine, check.line).error;
    int calls = 0;
    const auto verdict = attn::kit::rejects<std::invalid_argument>(
        {"example(x)", "example(y)", "an empty y", "std::invalid_argument", "y is empty", check},
        [&] { ++calls; }, [&] { ++calls; });
    EXPECT_EQ(calls, 0);
    EXPECT_FALSE(verdict.passed);
    EXPECT_TRUE(verdict.valid_call_failed);  // the test stops there
    EXPECT_TRUE(verdict.kit_error);
    EXPECT_EQ(verdict.message, check.kit_error);
}

}  // namespace

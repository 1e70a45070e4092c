// tests/kit/test_student_code.cpp — an exception from the code under test becomes one line
// that names the call, the exception and the shapes of the arguments.
#include "attn/errors.hpp"
#include "kit/student_code.hpp"
#include "kit/throw_site.hpp"

#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using attn::kit::arguments_of;
using attn::kit::failure_of;
using attn::kit::readable_message;
using attn::kit::student_words;

// What XTENSOR_ENABLE_ASSERT throws for m(6, 0) on a (6, 3) matrix (xtensor 0.24).
const std::string xtensor_bounds_check =
    "/usr/include/xtensor/xcontainer.hpp:438: check failed\n"
    "\tindex 6 is out of bounds for axis 0 with size 6";

TEST(StudentCodeTest, NothingToReportWhenTheCodeReturns) {
    EXPECT_FALSE(failure_of([] {}, "f()").threw());
}

TEST(StudentCodeTest, AStubSaysWhichFileAndFunctionToFillIn) {
    const auto line = failure_of(
        [] {
            throw attn::not_implemented("exercises/01_dot_scores.cpp", "dot_scores(inputs, query)");
        },
        "attn::dot_scores(inputs, query)", "inputs (6, 3), query (3,)");
    EXPECT_TRUE(line.stub);
    EXPECT_EQ(line.line,
              "exercises/01_dot_scores.cpp: attn::dot_scores(inputs, query) is not implemented yet "
              "(replace the throw with your code)");
}

TEST(StudentCodeTest, OtherExceptionsNameTheCallTheTypeAndTheArgumentShapes) {
    const auto line =
        failure_of([] { throw std::runtime_error("Dot: shape mismatch."); },
                   "attn::context_vector(inputs, weights)", "inputs (6, 3), weights (5,)");
    EXPECT_FALSE(line.stub);
    EXPECT_EQ(line.line,
              "context_vector(inputs, weights) threw std::runtime_error: \"Dot: shape "
              "mismatch.\" — called with inputs (6, 3), weights (5,) — xt::linalg::dot(a, b) "
              "needs a's last size to equal b's first: a transpose is missing, or one too many "
              "(the notebook's x @ W.T is dot(x, transpose(W)))");
    // The same throw on a case of other shapes is alike: the shapes are left out.
    EXPECT_EQ(line.alike,
              "context_vector(inputs, weights) threw std::runtime_error: \"Dot: shape mismatch.\"");
}

TEST(StudentCodeTest, TheKitsOwnExceptionsAreNamedWithTheirNamespace) {
    EXPECT_EQ(failure_of([] { throw attn::shape_error("bad shape"); }, "attn::softmax(x)").line,
              "softmax(x) threw attn::shape_error: \"bad shape\"");
}

TEST(StudentCodeTest, ANonStandardExceptionIsStillOneLine) {
    EXPECT_EQ(failure_of([] { throw 42; }, "f(x)", "x (2,)").line,
              "f(x) threw something that is not a std::exception — called with x (2,)");
}

TEST(StudentCodeTest, XtensorsBoundsCheckLosesItsHeaderPathAndLineBreak) {
    EXPECT_EQ(readable_message(xtensor_bounds_check),
              "index 6 is out of bounds for axis 0 (size 6)");
    const auto line = failure_of([] { throw std::runtime_error(xtensor_bounds_check); },
                                 "attn::dot_scores(inputs, query)", "inputs (6, 3), query (3,)");
    EXPECT_EQ(line.line,
              "dot_scores(inputs, query) threw std::runtime_error: \"index 6 is out of "
              "bounds for axis 0 (size 6)\" — called with inputs (6, 3), query (3,)");
}

// A library's shape error, in the words of the exercises: what it usually means here.
TEST(StudentCodeTest, ALibrarysShapeErrorSaysWhatItUsuallyMeansHere) {
    using attn::kit::shape_error_meaning;
    const auto message = [](const std::string& lhs, const std::string& rhs) {
        return readable_message("Incompatible dimension of arrays:\n LHS shape = (" + lhs +
                                ")\n RHS shape = (" + rhs + ")");
    };
    // A mask of the context length, not cut to the T tokens of the input.
    EXPECT_EQ(shape_error_meaning("xt::broadcast_error", message("11, 11, ", "9, 9, ")),
              "a 11×11 matrix met a 9×9 one: a mask made for 11 tokens (the context length) "
              "used on 9? take its top-left 9×9 block, as the notebook's mask[:T, :T] does");
    EXPECT_EQ(shape_error_meaning("xt::broadcast_error", message("6, 3, ", "3, 6, ")),
              "one of the two is transposed: (6, 3) against (3, 6)");
    EXPECT_EQ(shape_error_meaning("xt::broadcast_error", message("2, 6, 4, ", "6, 5, ")),
              "element by element, two shapes must agree axis by axis from the right (or be 1 "
              "there): (2, 6, 4) against (6, 5) do not");
    EXPECT_EQ(shape_error_meaning("xt::concatenate_error", message("6, 2, ", "5, 2, ")),
              "xt::concatenate joins tensors whose sizes agree on every axis but the one joined: "
              "(6, 2) and (5, 2) do not");
    // Nothing said where nothing is known: a Release build's message states no shapes.
    EXPECT_EQ(shape_error_meaning("xt::broadcast_error",
                                  "Incompatible dimension of arrays, compile in DEBUG for more "
                                  "info"),
              "");
    EXPECT_EQ(shape_error_meaning("std::runtime_error", "bad"), "");
}

// What a library throws when handed garbage (a read past a vector's end, an uninitialised
// size) is a sign for an AddressSanitizer build; a check of the code's own is not.
TEST(StudentCodeTest, AThrowOfALibraryHandedGarbageSaysSo) {
    using attn::kit::points_to_garbage;
    EXPECT_TRUE(points_to_garbage("std::length_error",
                                  "cannot create std::vector larger than "
                                  "max_size()"));
    EXPECT_TRUE(points_to_garbage("std::bad_alloc", "std::bad_alloc"));
    EXPECT_TRUE(points_to_garbage("attn::shape_error",
                                  "x has shape (1, 6, 3), but it must be (94555712839936, 3)"));
    EXPECT_FALSE(
        points_to_garbage("attn::shape_error", "x has shape (2, 6), but it must be (6, 2)"));
    EXPECT_TRUE(failure_of(
                    [] {
                        throw std::out_of_range(
                            "vector::_M_range_check: __n (which is "
                            "1) >= this->size() (which is 1)");
                    },
                    "module.forward(x)")
                    .points_to_garbage);
    EXPECT_FALSE(
        failure_of([] { throw attn::shape_error("bad shape"); }, "softmax(x)").points_to_garbage);
}

// The line of the student's file the exception left (kit/throw_site.hpp): here this file plays
// the student's, and the line is the lambda's throw.
TEST(StudentCodeTest, AThrowNamesTheLineOfTheWatchedFileItCameFrom) {
    attn::kit::watch_throws_in("tests/kit/test_student_code.cpp");
    const int line = __LINE__ + 1;
    const auto failure = failure_of([] { throw std::runtime_error("Dot: shape mismatch."); },
                                    "attn::f(x)", "x (2,)");
    attn::kit::watch_throws_in("");
    // The statement whole, its two lines joined, cut at 90 characters.
    EXPECT_THAT(failure.line,
                ::testing::StartsWith(
                    "f(x) threw std::runtime_error: \"Dot: shape mismatch.\" at "
                    "tests/kit/test_student_code.cpp:" +
                    std::to_string(line) +
                    ": `const auto failure = failure_of([] { throw std::runtime_error(\"Dot: "
                    "shape mismatch.\"); },…` — called with x (2,) — "));
    // what threw, without where: alike to the same throw from another line
    EXPECT_EQ(failure.alike, "f(x) threw std::runtime_error: \"Dot: shape mismatch.\"");
    // Not watched: no line.
    EXPECT_EQ(failure_of([] { throw attn::shape_error("bad shape"); }, "attn::softmax(x)").line,
              "softmax(x) threw attn::shape_error: \"bad shape\"");
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

TEST(ArgumentsOfTest, AnInputLoadedTwiceIsNamedOnce) {
    EXPECT_EQ(arguments_of("attn::sa_v2(inputs)", {{"inputs", "(6, 3)"}, {"inputs", "(6, 3)"}}),
              "inputs (6, 3)");
}

TEST(ArgumentsOfTest, SaysNothingWhenTheCallPassesNoLoadedInput) {
    EXPECT_EQ(arguments_of("xt::sum(weights)", {{"scores", "(6,)"}}), "");
}

// ---- the call in the student's words -----------------------------------------------------

TEST(StudentWordsTest, InputsAreNamedAsTheNotebookNamesThem) {
    EXPECT_EQ(student_words("::attn::gpu::causal_attention(the_case.input<4>(\"queries\"), "
                            "the_case.input<4>(\"keys\"), the_case.input<4>(\"values\"))"),
              "causal_attention(queries, keys, values)");
    EXPECT_EQ(student_words("attn::score_tensor_bytes(the_case.size(\"batch\"), "
                            "the_case.size(\"num_heads\"), the_case.size(\"T\"))"),
              "score_tensor_bytes(batch, num_heads, T)");
    EXPECT_EQ(student_words("attn::softmax(scores, the_case.integer(\"dim\"))"),
              "softmax(scores, dim)");
}

TEST(StudentWordsTest, PrefixesAreDroppedOnlyWhereTheyStartAName) {
    EXPECT_EQ(student_words("attn::gpu::masked_softmax(s)"), "masked_softmax(s)");
    EXPECT_EQ(student_words("attn::forward_flops(module, B, T)"), "forward_flops(module, B, T)");
    // `kattn::f` is another namespace, and a member access keeps its object.
    EXPECT_EQ(student_words("kattn::f(x) + attn::g(y)"), "kattn::f(x) + g(y)");
    EXPECT_EQ(student_words("mha.forward(x)"), "mha.forward(x)");
}

TEST(StudentWordsTest, WhitespaceAndLineBreaksBecomeOneSpace) {
    EXPECT_EQ(student_words("  attn::context_vector(\n        inputs,\n\tweights )  "),
              "context_vector(inputs, weights)");
}

TEST(StudentWordsTest, AThrowNamesTheCallInTheStudentsWords) {
    const auto line = failure_of([] { throw std::runtime_error("bad"); },
                                 "attn::softmax(the_case.input<2>(\"scores\"))");
    EXPECT_EQ(line.line, "softmax(scores) threw std::runtime_error: \"bad\"");
}

// ---- no harness identifier in a headline, for every case kind of exercises 16-23 --------

// The call texts of a test file's ATTN_RESULT, ATTN_RESULT_TWICE and ATTN_CALL, as the macros
// stringify them (the arguments after the output names), each with the ATTN_CASE kind it is
// in: {"causal_attention", "attn::gpu::causal_attention(queries, keys, values)"}.
std::vector<std::pair<std::string, std::string>> call_texts(const std::string& source) {
    std::vector<std::pair<std::string, std::string>> calls;
    std::string kind;
    for (std::size_t at = source.find("ATTN_"); at != std::string::npos;
         at = source.find("ATTN_", at + 1)) {
        const auto open = source.find('(', at);
        if (open == std::string::npos) break;
        const std::string macro = source.substr(at, open - at);
        const std::size_t names = macro == "ATTN_RESULT"                         ? 1
                                  : macro == "ATTN_RESULT_TWICE"                 ? 2
                                  : macro == "ATTN_CALL" || macro == "ATTN_CASE" ? 0
                                                                                 : 9;
        if (names == 9) continue;
        std::vector<std::string> arguments(1);
        int depth = 1;
        for (std::size_t i = open + 1; i < source.size() && depth > 0; ++i) {
            const char c = source[i];
            if (c == '"') {  // a string literal, copied whole
                const auto end = source.find('"', i + 1);
                arguments.back() += source.substr(i, end + 1 - i);
                i = end;
                continue;
            }
            if (c == '(') ++depth;
            if (c == ')' && --depth == 0) break;
            if (c == ',' && depth == 1) {
                arguments.emplace_back();
            } else {
                arguments.back() += c;
            }
        }
        if (macro == "ATTN_CASE") {
            kind = arguments.front();
            continue;
        }
        std::string call;
        for (std::size_t i = names; i < arguments.size(); ++i)
            call += (i > names ? "," : "") + arguments[i];
        calls.emplace_back(kind, call);
    }
    return calls;
}

TEST(StudentWordsTest, NoHeadlineOfExercises16To23NamesTheHarness) {
    const std::vector<std::string> harness = {"the_case", "input<", "forward_of",
                                              "hashed_",  "golden", "ATTN_"};
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(ATTN_SOURCE_DIR "/tests")) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("test_", 0) != 0 || name.size() < 7 || name.substr(5, 2) < "16" ||
            name.substr(5, 2) > "23")
            continue;
        ++files;
        std::ifstream file(entry.path());
        std::stringstream text;
        text << file.rdbuf();
        std::set<std::string> kinds_with_a_call;
        for (const auto& [kind, call] : call_texts(text.str())) {
            kinds_with_a_call.insert(kind);
            const std::string words = student_words(call);
            for (const auto& identifier : harness) {
                EXPECT_EQ(words.find(identifier), std::string::npos)
                    << name << ", ATTN_CASE(" << kind << "): the headline \"" << words
                    << "\" names the harness (" << identifier << ")";
            }
        }
        // Every case kind of the file was seen with its calls: the scan read the file whole.
        std::size_t kinds = 0;
        for (auto at = text.str().find("ATTN_CASE("); at != std::string::npos;
             at = text.str().find("ATTN_CASE(", at + 1)) {
            ++kinds;
        }
        EXPECT_EQ(kinds_with_a_call.size(), kinds) << name;
    }
    EXPECT_EQ(files, 8u);  // tests/test_16_*.cpp ... tests/test_23_*.cpp
}

TEST(StudentWordsTest, TheScanSeesEachCallAsTheMacroStringifiesIt) {
    const auto calls = call_texts(
        "ATTN_CASE(gpt2) {\n  ATTN_RESULT(\"count\", attn::f(a, g(b, \"x,y\")));\n"
        "  const auto m = ATTN_CALL(attn::make(the_case.size(\"T\")));\n"
        "  ATTN_RESULT_TWICE(\"c\", \"c2\", m.forward(x));\n}\n");
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(calls[0],
              std::make_pair(std::string("gpt2"), std::string(" attn::f(a, g(b, \"x,y\"))")));
    EXPECT_EQ(student_words(calls[1].second), "make(T)");
    EXPECT_EQ(student_words(calls[2].second), "m.forward(x)");
}

}  // namespace

// kit/stub_lines.hpp — the untouched stub of the exercise under test, and its statements.
//
// A test of an argument check quotes the stub's statement that makes the check, which a
// failure asks the student to keep. The test names it by a fragment, stub_line("...")
// (kit/testing.hpp), and the kit quotes the whole statement from the stub as the kit ships
// it: the message is written once, in the stub, and a stub reformatted needs no test edited.
#pragma once

#include <string>
#include <vector>

namespace attn::kit {

// The stub's text, as cmake/AttnExercise.cmake captured it for the exercise's tests.
struct stub_text {
    const char* exercise;  // "03"
    const char* file;      // "exercises/03_softmax.cpp"
    const char* text;      // its content
    // true: git's blob of exercises.json's stub_blob, the stub as the kit ships it. false: the
    // file in the kit's exercises/ (no git there), which a student may have edited.
    bool pristine;
};

// The exercise's stub. Defined by the source that attn_add_exercise() generates into each
// exercise's test objects, so only an exercise's test program has it.
const stub_text& exercise_stub();

// The statements of a C++ source, each on one line: a statement ends at `;`, `{` or `}`
// outside strings and comments; a line break and the indentation after it read as one space
// (none after an opening or before a closing bracket); comments and preprocessor lines are
// left out. An if-statement with a block is quoted with its block shortened to its first
// statement, a call's arguments elided: `if (d_k == 0) { throw std::invalid_argument(...); }`.
// Statements with the same text are listed once.
std::vector<std::string> statements_of(const std::string& source);

// The one statement of `stub` that contains `fragment`. `error` is empty, or says why there
// is not exactly one (a kit error: the test names a line the stub does not have, or several);
// where the stub is not pristine, the student may have edited it: the fragment itself is
// returned, with no error.
struct quoted_statement {
    std::string statement;
    std::string error;
};
quoted_statement quote_statement(const stub_text& stub, const std::string& fragment);

}  // namespace attn::kit

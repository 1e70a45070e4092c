// kit/student_code.hpp — running the code under test, turning an exception into one line.
//
// An untouched stub's exception is its own message ("exercises/01_dot_scores.cpp:
// attn::dot_scores(inputs, query) is not implemented yet ..."); any other exception names
// the call as the test wrote it, the exception's type and message, and the arguments the
// case passed:
//   attn::context_vector(inputs, weights) threw attn::shape_error: "context_vector: ..." —
//   called with inputs (6, 3), weights (5,)
// (one line), with the line of the student's file it came from where the kit finds it
// (kit/throw_site.hpp: "threw std::runtime_error: "Dot: shape mismatch." at
// exercises/05_all_context_vectors.cpp:31: `return xt::linalg::dot(inputs, inputs);`"),
// and, for a library's shape error, what it usually means here
// (shape_error_meaning): "— xt::linalg::dot(a, b) needs a's last size to equal b's first: a
// transpose is missing, or one too many (...)". xtensor's bounds check (XTENSOR_ENABLE_ASSERT)
// is shown without its header path: "index 6 is out of bounds for axis 0 (size 6)".
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace attn::kit {

// One input a case loaded, as a failure describes it: {"inputs", "(6, 3)"}, {"dim", "= -1"}.
struct argument {
    std::string name;
    std::string value;
};

// A test's call text (the stringified code of ATTN_RESULT / ATTN_CALL) in the student's words:
// each input the case loads by its name (`the_case.input<2>("queries")` -> `queries`,
// `the_case.size("T")` -> `T`, `the_case.integer("dim")` -> `dim`), the `::attn::gpu::`,
// `attn::gpu::` and `attn::` prefixes dropped, whitespace and line breaks made one space:
// "causal_attention(queries, keys, values)".
std::string student_words(const std::string& call);

// The arguments among `loaded` that `call` names, in the call's order:
// "inputs (6, 3), weights (5,)" for "attn::context_vector(inputs, weights)"; "" if none.
std::string arguments_of(const std::string& call, const std::vector<argument>& loaded);

// The exception's type as the code names it: "attn::shape_error", not "N4attn11shape_errorE".
std::string type_name(const std::exception& error);

// An exception's what() as one readable line: xtensor's "<header>:438: check failed\n\t"
// prefix dropped, its bounds message shortened, line breaks and tabs made spaces.
std::string readable_message(const std::string& what);

// What a library's shape error usually means in these exercises, as a sentence for a student,
// or "": xtensor-blas's `Dot: shape mismatch.`, and xtensor's broadcast and concatenate errors,
// whose message (`readable_message`) states both shapes. `type` is the exception's type_name.
//   "a 9×9 matrix met a 6×6 one: a mask made for 9 tokens (the context length) used on 6?
//   take its top-left 6×6 block, as the notebook's mask[:T, :T] does"
std::string shape_error_meaning(const std::string& type, const std::string& message);

// What a call that threw says.
struct call_failure {
    std::string line;  // the one line that says what threw; "" if the call returned normally
    // The same line without the arguments' shapes: the same on every case that the same throw
    // stops, so a reader groups those cases by it (docs/verdicts.md, "alike").
    std::string alike;
    bool stub = false;  // what threw was attn::not_implemented (an untouched stub)
    // What threw points to memory read outside what the code owns, not to a check of its own
    // (points_to_garbage): a sign for an AddressSanitizer build (docs/verdicts.md).
    bool points_to_garbage = false;
    // A kernel that broke a rule of the GPU (attn::gpu::kernel_error, kit/kernel_error.hpp):
    // the finding's id and summary, which a verdict names as it names a recorded mistake.
    std::string finding_id = {};
    std::string finding = {};

    bool threw() const { return !line.empty(); }
};

// Whether an exception of `type` (type_name) with the readable `message` is what a library
// throws when handed garbage, as a read past a std::vector's end (the second head of a one-head
// wrapper) or an uninitialised size gives: a failed allocation, a length or index error, or a
// size past 2^31 (10 digits or more), which no case of the kit comes near.
bool points_to_garbage(const std::string& type, const std::string& message);

// Runs `code`, the test's `call`, and says what it threw, if anything. `arguments` is what
// arguments_of says about the call ("" leaves out "called with").
call_failure failure_of(const std::function<void()>& code, const std::string& call,
                        const std::string& arguments = "");

}  // namespace attn::kit

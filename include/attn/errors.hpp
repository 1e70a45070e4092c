// attn/errors.hpp — the exceptions the exercise functions throw.
//
// Exercises throw instead of asserting: an exception reaches the test as one readable line,
// in every build type (assert() disappears under NDEBUG), and never aborts the test program.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

// Thrown by every untouched stub, naming the file and the function to fill in:
//   throw not_implemented("exercises/01_dot_scores.cpp", "dot_scores(inputs, query)");
class not_implemented : public std::logic_error {
public:
    not_implemented(const std::string& file, const std::string& function)
        : std::logic_error(file + ": attn::" + function +
                           " is not implemented yet (replace the throw with your code)") {}
};

// Thrown when an argument has the wrong shape or size; the message names both sides,
// e.g. "dot_scores: query has 2 elements, but inputs rows have d_in = 3".
class shape_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace attn

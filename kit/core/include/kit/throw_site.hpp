// kit/throw_site.hpp — the line of the student's file where a call threw.
//
// A library's exception names neither the student's file nor the line: "Dot: shape mismatch."
// comes from xtensor-blas's header, wherever the student called dot. Every throw in a program
// that links kit_core passes through the kit's __cxa_throw, which keeps the call stack's
// return addresses (glibc's backtrace(); a few microseconds). When the code under test threw,
// failure_of asks where: binutils' addr2line maps those addresses to file:line through the
// debug information (exercise files are built with -g), inlined frames included, and the
// first frame in the student's file is the answer:
//   exercises/05_all_context_vectors.cpp:31: `return xt::linalg::dot(inputs, inputs);`
// Without addr2line, debug information or a frame in that file, there is no answer ("" line),
// never an error: the failure is then told without its line, as before. So it is in the
// grader's sandbox, where a student's program may start no other process (addr2line is one).
#pragma once

#include <string>

namespace attn::kit {

struct source_line {
    std::string file;  // as the student knows it: "exercises/05_all_context_vectors.cpp"
    int line = 0;      // where the statement that threw starts; 0: not found
    // The statement, its lines joined into one, their indentation taken off; "" if unreadable.
    std::string code;

    bool found() const { return line > 0; }
};

// The program's code under test is `file` ("exercises/05_all_context_vectors.cpp"): frames
// whose source file has the same file name are the student's. Set by the test program's main.
void watch_throws_in(const std::string& file);

// Where, in the watched file, the latest exception of this thread was thrown; not found if
// nothing is watched or no frame is in that file.
source_line latest_throw_site();

}  // namespace attn::kit

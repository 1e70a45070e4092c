// kit/student_code.hpp — running the code under test, turning an exception into one line.
//
// An untouched stub's exception is its own message ("exercises/01_dot_scores.cpp:
// attn::dot_scores(inputs, query) is not implemented yet ..."); any other exception names
// the call that threw: "attn::softmax(scores, dim) threw: softmax: dim 2 is out of range".
#pragma once

#include <functional>
#include <string>

namespace attn::kit {

// Runs `code`; returns "" if it returned normally, else the one line that says what threw.
std::string failure_of(const std::function<void()>& code, const std::string& call);

}  // namespace attn::kit

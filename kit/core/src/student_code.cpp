// kit/core/src/student_code.cpp — turns an exception from the code under test into one line.
#include "kit/student_code.hpp"

#include "attn/errors.hpp"

#include <exception>

namespace attn::kit {

std::string failure_of(const std::function<void()>& code, const std::string& call) {
    try {
        code();
        return "";
    } catch (const attn::not_implemented& stub) {
        return stub.what();
    } catch (const std::exception& error) {
        return call + " threw: " + error.what();
    } catch (...) {
        return call + " threw something that is not a std::exception";
    }
}

}  // namespace attn::kit

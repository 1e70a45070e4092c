// kit/src/student_code.cpp — turns an exception from the code under test into one line.
#include "kit/student_code.hpp"

#include "attn/errors.hpp"

#include <exception>

namespace attn::kit {

std::string failure_of(const std::function<void()>& code, const char* statement) {
    try {
        code();
        return "";
    } catch (const attn::not_implemented& stub) {
        return stub.what();
    } catch (const std::exception& error) {
        return std::string(statement) + " threw: " + error.what();
    } catch (...) {
        return std::string(statement) + " threw something that is not a std::exception";
    }
}

::testing::AssertionResult runs_without_throwing(const char*, const char*, const char* statement,
                                                 const std::function<void()>& code) {
    const std::string failure = failure_of(code, statement);
    if (failure.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << failure;
}

}  // namespace attn::kit

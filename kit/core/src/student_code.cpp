// kit/core/src/student_code.cpp — turns an exception from the code under test into one line.
#include "kit/student_code.hpp"

#include "attn/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <exception>
#include <memory>
#include <regex>
#include <typeinfo>
#include <utility>

namespace attn::kit {
namespace {

bool is_identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Where `name` occurs as a whole identifier in `text` at or after `from`, or npos.
std::size_t find_identifier(const std::string& text, const std::string& name, std::size_t from) {
    for (auto at = text.find(name, from); at != std::string::npos; at = text.find(name, at + 1)) {
        const auto end = at + name.size();
        if ((at == 0 || !is_identifier_char(text[at - 1])) &&
            (end == text.size() || !is_identifier_char(text[end]))) {
            return at;
        }
    }
    return std::string::npos;
}

}  // namespace

std::string type_name(const std::exception& error) {
    const char* mangled = typeid(error).name();
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> demangled(
        abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
    return status == 0 && demangled ? demangled.get() : mangled;
}

std::string arguments_of(const std::string& call, const std::vector<argument>& loaded) {
    const auto open = call.find('(');
    if (open == std::string::npos) return "";
    std::vector<std::pair<std::size_t, const argument*>> named;
    for (const auto& each : loaded) {
        const auto at = find_identifier(call, each.name, open);
        if (at != std::string::npos) named.emplace_back(at, &each);
    }
    std::sort(named.begin(), named.end());
    std::string text;
    for (const auto& [at, each] : named) {
        text += (text.empty() ? "" : ", ") + each->name + " " + each->value;
    }
    return text;
}

std::string student_words(const std::string& call) {
    // An input by name: the_case.input<2>("queries"), the_case.size("T"), the_case.integer(...).
    static const std::regex case_input(
        R"re(\bthe_case\s*\.\s*\w+\s*(?:<[^<>()]*>)?\s*\(\s*"([^"]*)"\s*\))re");
    static const std::regex prefix(R"((^|[^\w:])(?:::)?attn::(?:gpu::)?)");
    static const std::regex spaces(R"(\s+)");
    static const std::regex after_open(R"(([(\[{]) )");
    static const std::regex before_close(R"( ([)\]}]))");
    std::string text = std::regex_replace(call, case_input, "$1");
    text = std::regex_replace(text, prefix, "$1");
    text = std::regex_replace(text, spaces, " ");
    text = std::regex_replace(text, after_open, "$1");
    text = std::regex_replace(text, before_close, "$1");
    const auto first = text.find_first_not_of(' ');
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::string readable_message(const std::string& what) {
    static const std::regex xtensor_check(R"(^.*: check failed\n\t)");
    static const std::regex bounds(
        R"(index (\d+) is out of bounds for axis (\d+) with size (\d+))");
    static const std::regex breaks(R"(\s*[\n\t]\s*)");
    static const std::regex trailing_space(R"(\s+$)");
    std::string text =
        std::regex_replace(what, xtensor_check, "", std::regex_constants::format_first_only);
    text = std::regex_replace(text, bounds, "index $1 is out of bounds for axis $2 (size $3)");
    text = std::regex_replace(text, trailing_space, "");
    return std::regex_replace(text, breaks, " ");
}

call_failure failure_of(const std::function<void()>& code, const std::string& call,
                        const std::string& arguments) {
    std::string what;
    try {
        code();
        return {};
    } catch (const attn::not_implemented& not_yet) {
        return {not_yet.what(), not_yet.what(), true};
    } catch (const std::exception& error) {
        what = student_words(call) + " threw " + type_name(error) + ": \"" +
               readable_message(error.what()) + "\"";
    } catch (...) {
        what = student_words(call) + " threw something that is not a std::exception";
    }
    return {what + (arguments.empty() ? "" : " — called with " + arguments), what, false};
}

}  // namespace attn::kit

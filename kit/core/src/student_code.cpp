// kit/core/src/student_code.cpp — turns an exception from the code under test into one line.
#include "kit/student_code.hpp"

#include "attn/errors.hpp"
#include "kit/kernel_error.hpp"
#include "kit/throw_site.hpp"

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
        // an input loaded twice (for the module, then for the call) is named once
        const bool again = std::any_of(named.begin(), named.end(),
                                       [&](const auto& earlier) { return earlier.first == at; });
        if (at != std::string::npos && !again) named.emplace_back(at, &each);
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

namespace {

// The sizes of the shape that follows `label` in xtensor's message ("LHS shape = (11, 11, )").
std::vector<std::size_t> stated_shape(const std::string& message, const std::string& label) {
    std::vector<std::size_t> sizes;
    const auto at = message.find(label + " shape = (");
    if (at == std::string::npos) return sizes;
    const auto close = message.find(')', at);
    std::string inside = message.substr(at + label.size() + 10, close - at - label.size() - 10);
    for (std::size_t start = 0; start < inside.size();) {
        const auto comma = inside.find(',', start);
        const std::string part = inside.substr(start, comma - start);
        if (part.find_first_of("0123456789") != std::string::npos)
            sizes.push_back(std::stoul(part));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return sizes;
}

std::string shape_text(const std::vector<std::size_t>& sizes) {
    std::string text = "(";
    for (std::size_t i = 0; i < sizes.size(); ++i)
        text += (i ? ", " : "") + std::to_string(sizes[i]);
    return text + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string shape_error_meaning(const std::string& type, const std::string& message) {
    if (message == "Dot: shape mismatch.") {
        return "xt::linalg::dot(a, b) needs a's last size to equal b's first: a transpose is "
               "missing, or one too many (the notebook's x @ W.T is dot(x, transpose(W)))";
    }
    const auto lhs = stated_shape(message, "LHS"), rhs = stated_shape(message, "RHS");
    if (lhs.empty() || rhs.empty()) return "";
    if (type == "xt::concatenate_error") {
        return "xt::concatenate joins tensors whose sizes agree on every axis but the one "
               "joined: " +
               shape_text(lhs) + " and " + shape_text(rhs) + " do not";
    }
    if (type != "xt::broadcast_error") return "";
    if (lhs.size() == 2 && rhs.size() == 2 && lhs[0] == lhs[1] && rhs[0] == rhs[1]) {
        const auto big = std::to_string(std::max(lhs[0], rhs[0]));
        const auto small = std::to_string(std::min(lhs[0], rhs[0]));
        return "a " + big + "×" + big + " matrix met a " + small + "×" + small +
               " one: a mask made "
               "for " +
               big + " tokens (the context length) used on " + small +
               "? take its "
               "top-left " +
               small + "×" + small + " block, as the notebook's mask[:T, :T] does";
    }
    if (lhs.size() == rhs.size() && lhs != rhs &&
        std::equal(lhs.begin(), lhs.end(), rhs.rbegin())) {
        return "one of the two is transposed: " + shape_text(lhs) + " against " + shape_text(rhs);
    }
    return "element by element, two shapes must agree axis by axis from the right (or be 1 "
           "there): " +
           shape_text(lhs) + " against " + shape_text(rhs) + " do not";
}

namespace {

// " at exercises/05_all_context_vectors.cpp:31: `return xt::linalg::dot(inputs, inputs);`",
// where the latest throw left the student's file, or "".
std::string where_thrown() {
    const source_line site = latest_throw_site();
    if (!site.found()) return "";
    constexpr std::size_t longest_code = 90;
    std::string code = site.code;
    if (code.size() > longest_code) code = code.substr(0, longest_code - 1) + "…";
    return " at " + site.file + ":" + std::to_string(site.line) +
           (code.empty() ? "" : ": `" + code + "`");
}

}  // namespace

bool points_to_garbage(const std::string& type, const std::string& message) {
    static const std::regex absurd_size(R"(\b\d{10,}\b)");
    return type == "std::bad_alloc" || type == "std::bad_array_new_length" ||
           type == "std::length_error" || type == "std::out_of_range" ||
           std::regex_search(message, absurd_size);
}

call_failure failure_of(const std::function<void()>& code, const std::string& call,
                        const std::string& arguments) {
    std::string what, where, meaning;
    bool garbage = false;
    try {
        code();
        return {};
    } catch (const attn::not_implemented& not_yet) {
        return {not_yet.what(), not_yet.what(), true};
    } catch (const attn::gpu::kernel_error& broken) {
        // The emulator's finding names the threads, the element and the student's lines:
        // where the launch threw says nothing more.
        const source_line site = latest_throw_site();
        const std::string line = student_words(call) + ": " + broken.what() +
                                 (site.found() ? " (the lines of " + site.file + ")" : "");
        return {line, "kernel:" + broken.id(), false, false, broken.id(), broken.summary()};
    } catch (const std::exception& error) {
        const std::string message = readable_message(error.what());
        what = student_words(call) + " threw " + type_name(error) + ": \"" + message + "\"";
        where = where_thrown();
        meaning = shape_error_meaning(type_name(error), message);
        garbage = points_to_garbage(type_name(error), message);
    } catch (...) {
        what = student_words(call) + " threw something that is not a std::exception";
        where = where_thrown();
    }
    return {what + where + (arguments.empty() ? "" : " — called with " + arguments) +
                (meaning.empty() ? "" : " — " + meaning),
            what, false, garbage};
}

}  // namespace attn::kit

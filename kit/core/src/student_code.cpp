// kit/core/src/student_code.cpp — turns an exception from the code under test into one line.
#include "kit/student_code.hpp"

#include "attn/errors.hpp"
#include "kit/kernel_error.hpp"
#include "kit/throw_site.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <exception>
#include <memory>
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

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The end of the run of characters from `at` on for which `keep` holds.
template <class Keep>
std::size_t skip(const std::string& text, std::size_t at, Keep keep) {
    while (at < text.size() && keep(text[at])) ++at;
    return at;
}

// Where the digits that start at `at` end; `at` itself if none do.
std::size_t skip_digits(const std::string& text, std::size_t at) {
    return skip(text, at, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// If a case's input by name starts at `at` (the_case.input<2>("queries"), the_case.size("T"),
// the_case .integer ( "d" )), where it ends and the name; else {npos, ""}.
std::pair<std::size_t, std::string> case_input_at(const std::string& text, std::size_t at) {
    const std::pair<std::size_t, std::string> none{std::string::npos, ""};
    const std::string object = "the_case";
    if (text.compare(at, object.size(), object) != 0) return none;
    at = skip(text, at + object.size(), is_space);
    if (at >= text.size() || text[at] != '.') return none;
    const auto method = skip(text, at + 1, is_space);
    at = skip(text, method, is_identifier_char);
    if (at == method) return none;
    at = skip(text, at, is_space);
    if (at < text.size() && text[at] == '<') {  // template arguments: <2>, <float, 3>
        at =
            skip(text, at + 1, [](char c) { return c != '<' && c != '>' && c != '(' && c != ')'; });
        if (at >= text.size() || text[at] != '>') return none;
        at = skip(text, at + 1, is_space);
    }
    if (at >= text.size() || text[at] != '(') return none;
    at = skip(text, at + 1, is_space);
    if (at >= text.size() || text[at] != '"') return none;
    const auto name_end = text.find('"', at + 1);
    if (name_end == std::string::npos) return none;
    const auto end = skip(text, name_end + 1, is_space);
    if (end >= text.size() || text[end] != ')') return none;
    return {end + 1, text.substr(at + 1, name_end - at - 1)};
}

// `text` with every case input by name replaced by its name (case_input_at).
std::string case_inputs_named(const std::string& text) {
    std::string named;
    for (std::size_t at = 0; at < text.size();) {
        const auto [end, name] = at == 0 || !is_identifier_char(text[at - 1])
                                     ? case_input_at(text, at)
                                     : std::pair<std::size_t, std::string>{std::string::npos, ""};
        if (end == std::string::npos) {
            named += text[at++];
        } else {
            named += name;
            at = end;
        }
    }
    return named;
}

// `text` without the namespace the student's functions are in: "attn::", "::attn::" and
// "attn::gpu::" where they start a name, not inside one ("my_attn::", "std::attn::").
std::string without_attn_prefix(const std::string& text) {
    std::string kept;
    for (std::size_t at = 0; at < text.size();) {
        const bool name_starts =
            at == 0 || (!is_identifier_char(text[at - 1]) && text[at - 1] != ':');
        std::size_t end = at;
        if (name_starts) {
            if (text.compare(end, 2, "::") == 0) end += 2;
            if (text.compare(end, 6, "attn::") == 0) {
                end += 6;
                if (text.compare(end, 5, "gpu::") == 0) end += 5;
            } else {
                end = at;
            }
        }
        if (end == at) {
            kept += text[at++];
        } else {
            at = end;
        }
    }
    return kept;
}

// `text` with every run of white space that holds a line break or a tab as one space, and
// with none at its end.
std::string on_one_line(const std::string& text) {
    std::string line;
    for (std::size_t at = 0; at < text.size();) {
        if (!is_space(text[at])) {
            line += text[at++];
            continue;
        }
        const auto end = skip(text, at, is_space);
        const bool breaks = std::any_of(text.begin() + at, text.begin() + end,
                                        [](char c) { return c == '\n' || c == '\t'; });
        if (end < text.size()) line += breaks ? " " : text.substr(at, end - at);
        at = end;
    }
    return line;
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
    // Inputs by name, without the namespace, on one line with no space inside brackets.
    const std::string text = without_attn_prefix(case_inputs_named(call));
    std::string words;
    for (std::size_t at = 0; at < text.size();) {
        if (!is_space(text[at])) {
            words += text[at++];
            continue;
        }
        at = skip(text, at, is_space);
        const bool after_open = !words.empty() && std::strchr("([{", words.back()) != nullptr;
        const bool before_close = at < text.size() && std::strchr(")]}", text[at]) != nullptr;
        if (!words.empty() && at < text.size() && !after_open && !before_close) words += ' ';
    }
    return words;
}

std::string readable_message(const std::string& what) {
    std::string text = what;
    // xtensor's checks (XTENSOR_ASSERT) start with a line of their own: "<file>: check failed",
    // then a tab.
    const std::string check_failed = ": check failed";
    const auto first_break = text.find_first_of("\r\n");
    if (first_break != std::string::npos && text[first_break] == '\n' &&
        first_break >= check_failed.size() &&
        text.compare(first_break - check_failed.size(), check_failed.size(), check_failed) == 0 &&
        first_break + 1 < text.size() && text[first_break + 1] == '\t') {
        text.erase(0, first_break + 2);
    }
    // "index 6 is out of bounds for axis 0 with size 6" -> "... for axis 0 (size 6)"
    const std::string index = "index ", axis = " is out of bounds for axis ", size = " with size ";
    for (auto at = text.find(index); at != std::string::npos; at = text.find(index, at + 1)) {
        const auto index_end = skip_digits(text, at + index.size());
        if (index_end == at + index.size() || text.compare(index_end, axis.size(), axis) != 0)
            continue;
        const auto axis_end = skip_digits(text, index_end + axis.size());
        if (axis_end == index_end + axis.size() || text.compare(axis_end, size.size(), size) != 0)
            continue;
        const auto size_end = skip_digits(text, axis_end + size.size());
        if (size_end == axis_end + size.size()) continue;
        const auto extent = text.substr(axis_end + size.size(), size_end - axis_end - size.size());
        text.replace(axis_end, size_end - axis_end, " (size " + extent + ")");
    }
    return on_one_line(text);
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
    if (type == "std::bad_alloc" || type == "std::bad_array_new_length" ||
        type == "std::length_error" || type == "std::out_of_range") {
        return true;
    }
    // A number of ten digits or more, standing alone: a size read from memory not written.
    constexpr std::size_t absurd_digits = 10;
    for (std::size_t at = 0; at < message.size();) {
        const auto end = skip(message, at, is_identifier_char);
        if (end == at) {
            ++at;
            continue;
        }
        if (end - at >= absurd_digits && skip_digits(message, at) == end) return true;
        at = end;
    }
    return false;
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

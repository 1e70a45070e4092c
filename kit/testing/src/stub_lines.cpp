// kit/testing/src/stub_lines.cpp — a stub's statements, and the one a test's fragment names.
#include "kit/stub_lines.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace attn::kit {

namespace {

bool blank(const std::string& text) {
    return std::all_of(text.begin(), text.end(),
                       [](unsigned char c) { return std::isspace(c) != 0; });
}

// `text` on one line: each line break with the whitespace around it as one space, or none
// after an opening or before a closing bracket. A line break is never inside a string.
std::string on_one_line(const std::string& text) {
    std::string line;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n') {
            line += text[i];
            continue;
        }
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) {
            line.pop_back();
        }
        while (i + 1 < text.size() && std::isspace(static_cast<unsigned char>(text[i + 1]))) {
            ++i;
        }
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        const bool opened = !line.empty() && (line.back() == '(' || line.back() == '[');
        if (!opened && next != ')' && next != ']' && !line.empty()) line += ' ';
    }
    const auto first = line.find_first_not_of(" \t\r");
    const auto last = line.find_last_not_of(" \t\r");
    return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

bool starts_if(const std::string& statement) {
    return statement.rfind("if (", 0) == 0 || statement.rfind("if(", 0) == 0;
}

// The first statement of an if's block, shortened: a call's arguments elided.
std::string shortened(const std::string& statement) {
    const auto open = statement.find('(');
    if (open == std::string::npos || statement.size() < 2 ||
        statement.compare(statement.size() - 2, 2, ");") != 0) {
        return statement;
    }
    return statement.substr(0, open) + "(...);";
}

}  // namespace

std::vector<std::string> statements_of(const std::string& source) {
    std::vector<std::string> statements;
    std::string current;
    std::string pending_if;  // an if-statement whose block's first statement comes next
    const auto flush = [&] {
        if (blank(current)) {
            current.clear();
            return;
        }
        const std::string statement = on_one_line(current);
        current.clear();
        if (!pending_if.empty()) {
            statements.push_back(pending_if + " " + shortened(statement) + " }");
            pending_if.clear();
        }
        if (starts_if(statement) && statement.back() == '{') {
            pending_if = statement;  // quoted with its block's first statement
        } else {
            statements.push_back(statement);
        }
    };
    const std::size_t n = source.size();
    for (std::size_t i = 0; i < n;) {
        const char c = source[i];
        if (c == '#' && blank(current)) {  // a preprocessor line
            i = std::min(source.find('\n', i), n);
        } else if (source.compare(i, 2, "//") == 0) {
            i = std::min(source.find('\n', i), n);
        } else if (source.compare(i, 2, "/*") == 0) {
            const std::size_t end = std::min(source.find("*/", i + 2), n - 2) + 2;
            if (!blank(current)) current += source.substr(i, end - i);
            i = end;
        } else if (c == '"' || c == '\'') {
            std::size_t end = i + 1;
            while (end < n && source[end] != c) end += source[end] == '\\' ? 2 : 1;
            end = std::min(end + 1, n);
            current += source.substr(i, end - i);
            i = end;
        } else if (c == ';' || c == '{' || c == '}') {
            if (c != '}') current += c;
            flush();
            if (c == '}' && !pending_if.empty()) {  // an empty block
                statements.push_back(pending_if + " }");
                pending_if.clear();
            }
            ++i;
        } else {
            current += c;
            ++i;
        }
    }
    flush();
    std::vector<std::string> distinct;
    for (auto& statement : statements) {
        if (std::find(distinct.begin(), distinct.end(), statement) == distinct.end()) {
            distinct.push_back(std::move(statement));
        }
    }
    return distinct;
}

quoted_statement quote_statement(const stub_text& stub, const std::string& fragment) {
    std::vector<std::string> found;
    for (const auto& statement : statements_of(stub.text)) {
        if (statement.find(fragment) != std::string::npos) found.push_back(statement);
    }
    if (found.size() == 1) return {found.front(), ""};
    if (!stub.pristine) return {fragment, ""};
    const std::string named = std::string("kit error: the test of exercise ") + stub.exercise +
                              " names a check of the stub by the fragment `" + fragment + "`, ";
    if (found.empty()) {
        return {fragment, named + "but no statement of " + stub.file +
                              " (as the kit ships it) contains that text: name one of its "
                              "statements as the stub now writes it"};
    }
    return {fragment, named + "which " + std::to_string(found.size()) + " statements of " +
                          stub.file + " contain (`" + found[0] + "` and `" + found[1] +
                          "`): name exactly one"};
}

}  // namespace attn::kit

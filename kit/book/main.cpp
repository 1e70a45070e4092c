// kit/book/main.cpp — attn_book: every seed cell that prints a tensor, run in C++ and set
// beside the document's print (tools/kit book runs it).
//
//   attn_book              one line per printed tensor: match, rounds apart, book wrong, ...
//   attn_book --all        every print in full: the C++ call, its tensor, the document's
//   attn_book 001 "003 In [26]"   the prints whose id starts so, in full
//
// Exit status 0 when every print that can be reproduced matches the document to its printed
// decimals, 1 otherwise (a mismatch, or a print no port reproduces), 2 on bad arguments or a
// missing printed.json.
#include "book.hpp"
#include "kit/golden_store.hpp"
#include "kit/torch_format.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using attn::book::Port;
using nlohmann::json;

std::filesystem::path printed_json() {
    return attn::kit::reference_data_folder() / "book" / "printed.json";
}

// A print as it compares: no whitespace, and no autograd note (", grad_fn=<MmBackward0>",
// ", requires_grad=True"), which C++ tensors do not carry.
std::string comparable(const std::string& printed) {
    std::string text;
    for (char c : printed) {
        if (c != ' ' && c != '\n') text += c;
    }
    static const std::regex autograd(R"(,(grad_fn=<[A-Za-z0-9_]*>|requires_grad=True))");
    return std::regex_replace(text, autograd, "");
}

// Where `ours` and `theirs` (comparable prints of `tensor`) differ only in numbers one unit
// apart in their last printed digit, each with its value within 4 float32 ulps of the boundary
// between the two: those values ("-1.64215004 between -1.6422 and -1.6421"); nullopt where they
// differ in anything else.
std::optional<std::string> boundary_values(const std::string& ours, const std::string& theirs,
                                           const attn::kit::any_tensor& tensor) {
    static const std::regex number(R"(-?(\d+\.?\d*(e[-+]\d+)?|inf|nan))");
    const auto* values = std::get_if<attn::kit::float_tensor>(&tensor);
    if (values == nullptr) return std::nullopt;
    std::sregex_iterator a(ours.begin(), ours.end(), number),
        b(theirs.begin(), theirs.end(), number);
    const std::sregex_iterator end;
    std::size_t element = 0, last_a = 0, last_b = 0;
    std::string found;
    for (; a != end && b != end; ++a, ++b, ++element) {
        if (ours.substr(last_a, a->position() - last_a) !=
            theirs.substr(last_b, b->position() - last_b))
            return std::nullopt;
        last_a = a->position() + a->length();
        last_b = b->position() + b->length();
        if (a->str() == b->str()) continue;
        const std::string& text = a->str();
        const std::size_t point = text.find('.');
        if (point == std::string::npos || text.find('e') != std::string::npos ||
            element >= values->size())
            return std::nullopt;
        const double unit = std::pow(10.0, -static_cast<double>(text.size() - point - 1));
        const double x = std::stod(text), y = std::stod(b->str());
        const float value = values->flat(element);
        const double boundary = (x + y) / 2.0;
        const double ulp = std::nextafter(std::abs(value), INFINITY) - std::abs(value);
        if (std::abs(std::abs(x - y) - unit) > unit * 1e-6 || std::abs(value - boundary) > 4 * ulp)
            return std::nullopt;
        char line[128];
        std::snprintf(line, sizeof line, "%s%.9g between %s and %s", found.empty() ? "" : "; ",
                      value, text.c_str(), b->str().c_str());
        found += line;
    }
    if (a != end || b != end || ours.substr(last_a) != theirs.substr(last_b)) return std::nullopt;
    return found;
}

std::string indented(const std::string& text, const std::string& indent) {
    std::string out = indent;
    for (char c : text) out += c == '\n' ? "\n" + indent : std::string(1, c);
    return out;
}

struct Outcome {
    // "match", "rounds apart", "book wrong", "not reproducible", "MISMATCH" or "NOT PORTED"
    std::string status;
    std::string cpp;  // what C++ printed
    std::string why;  // a line on the status, or empty
    bool fails = false;
};

class Book {
public:
    Book() {
        for (auto* document :
             {&attn::book::ports_000, &attn::book::ports_001, &attn::book::ports_002,
              &attn::book::ports_003, &attn::book::ports_004}) {
            for (Port& port : (*document)()) ports_.emplace(port.cell, std::move(port));
        }
    }

    // The outcome of print `index` (1-based) of `cell`, quoted as `quoted`.
    Outcome judge(const std::string& cell, std::size_t index, const std::string& quoted,
                  bool cut_off) {
        const auto found = ports_.find(cell);
        if (found == ports_.end()) {
            return {"NOT PORTED", "", "no C++ port of this cell (kit/book/)", true};
        }
        const Port& port = found->second;
        used_.insert(cell);
        if (!port.not_reproducible.empty()) return {"not reproducible", "", port.not_reproducible};
        const attn::book::Prints& prints = run(port);
        if (index > prints.size()) {
            return {"NOT PORTED", "",
                    "the port prints " + std::to_string(prints.size()) + " tensors, not " +
                        std::to_string(index),
                    true};
        }
        const std::string cpp = attn::kit::torch_repr(prints[index - 1], port.precision);
        const std::string ours = comparable(cpp), theirs = comparable(quoted);
        const bool same = cut_off ? ours.compare(0, theirs.size(), theirs) == 0 : ours == theirs;
        if (!port.book_is_wrong.empty()) {
            if (!same) return {"book wrong", cpp, port.book_is_wrong};
            return {"MISMATCH", cpp, "said to be wrong in the book, yet C++ prints the same", true};
        }
        if (!same && !port.rounds_apart.empty()) {
            if (const auto values = boundary_values(ours, theirs, prints[index - 1])) {
                return {"rounds apart", cpp, *values + ": " + port.rounds_apart};
            }
        }
        if (!same) return {"MISMATCH", cpp, "", true};
        return {"match", cpp,
                cut_off ? "the document is cut off here: compared as far as it goes" : ""};
    }

    const Port* port(const std::string& cell) const {
        const auto found = ports_.find(cell);
        return found == ports_.end() ? nullptr : &found->second;
    }

    // Ports of no quoted cell: a port whose cell the documents do not print.
    std::vector<std::string> unused() const {
        std::vector<std::string> cells;
        for (const auto& [cell, port] : ports_) {
            if (!used_.count(cell)) cells.push_back(cell);
        }
        return cells;
    }

private:
    const attn::book::Prints& run(const Port& port) {
        auto found = results_.find(port.cell);
        if (found == results_.end()) found = results_.emplace(port.cell, port.run()).first;
        return found->second;
    }

    std::map<std::string, Port> ports_;
    std::map<std::string, attn::book::Prints> results_;
    std::set<std::string> used_;
};

bool starts_with_any(const std::string& id, const std::vector<std::string>& prefixes) {
    for (const std::string& prefix : prefixes) {
        if (id.compare(0, prefix.size(), prefix) == 0) return true;
    }
    return prefixes.empty();
}

}  // namespace

int main(int argc, char** argv) {
    bool all = false;
    std::vector<std::string> wanted;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--all") {
            all = true;
        } else if (argument.rfind("--", 0) == 0) {
            std::cerr << "attn_book: unknown option " << argument
                      << " (usage: attn_book [--all] [ID-PREFIX ...])\n";
            return 2;
        } else {
            wanted.push_back(argument);
        }
    }
    json quotes;
    try {
        std::ifstream file(printed_json());
        if (!file) throw std::runtime_error("cannot read " + printed_json().string());
        quotes = json::parse(file);
    } catch (const std::exception& error) {
        std::cerr << "attn_book: " << error.what()
                  << " (tools/record writes it from the seed documents)\n";
        return 2;
    }
    const bool in_full = all || !wanted.empty();
    Book book;
    std::map<std::string, int> counts;
    bool failed = false;
    for (const json& quote : quotes.at("printed")) {
        const std::string id = quote.at("id").get<std::string>();
        const std::string cell = id.substr(0, id.rfind(" #"));
        // The public notebook's name of the cell where it has one ("ch03.ipynb In [28] #1"):
        // what students read, and what they may ask for; else the course document's.
        const std::string public_cell = quote.value("public", "");
        const std::string shown =
            public_cell.empty() ? id : public_cell + id.substr(id.rfind(" #"));
        if (!starts_with_any(id, wanted) && !(starts_with_any(shown, wanted) && !wanted.empty()))
            continue;
        const Outcome outcome =
            book.judge(cell, quote.at("index").get<std::size_t>(),
                       quote.at("printed").get<std::string>(), quote.value("cut_off", false));
        ++counts[outcome.status];
        failed = failed || outcome.fails;
        const Port* port = book.port(cell);
        if (!in_full) {
            std::printf("%-16s %-30s %s\n", outcome.status.c_str(), shown.c_str(),
                        port ? port->code.c_str() : "");
            continue;
        }
        const std::string document = quotes.at("documents").value(id.substr(0, 3), "");
        std::cout << shown << (shown == id ? "" : " (the course's copy: " + cell + ")") << " — "
                  << document << "\n";
        if (quote.contains("other_numbers"))
            std::cout << "  (" << quote.at("other_numbers").get<std::string>() << ")\n";
        std::cout << "  " << outcome.status << (outcome.why.empty() ? "" : ": " + outcome.why)
                  << "\n";
        if (port) std::cout << "  C++: " << port->code << "\n";
        if (!outcome.cpp.empty()) std::cout << indented(outcome.cpp, "    ") << "\n";
        std::cout << "  the document printed:\n"
                  << indented(quote.at("printed").get<std::string>(), "    ") << "\n\n";
    }
    for (const std::string& cell : wanted.empty() ? book.unused() : std::vector<std::string>{}) {
        std::cout << "MISMATCH: the port of " << cell << " matches no print of the documents\n";
        failed = true;
    }
    std::cout << "book:";
    const char* separator = " ";
    for (const auto& [status, count] : counts) {
        std::cout << separator << count << " " << status;
        separator = ", ";
    }
    std::cout << (failed ? ": see the MISMATCH lines"
                         : ": every print C++ can reproduce matches the document, every "
                           "difference has its reason")
              << "\n";
    return failed ? 1 : 0;
}

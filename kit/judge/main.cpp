// kit/judge/main.cpp — attn_judge: verdicts on a runner's results, with no student code linked.
//
//   attn_judge --cases DIR --results DIR [--results-owner UID] [--exercise NN]
//              [--out verdicts.json] [--hide-expected]
//
// DIR of --cases is a case set with its expected tensors (reference_data/ or a hidden set
// written by `tools/record --out`); --results is what a test program wrote with
// --attn-run-cases; with --results-owner (the grader's: the sandbox's uid), it and everything
// read in it must be that uid's (kit/judge.hpp's result_folder). Writes the verdicts as JSON
// (kit/judge.hpp) to --out or stdout and a one-line summary to stderr. --out is written as
// FILE.tmp, then renamed: a verdict file is whole or absent. --hide-expected (the grader's, for a
// hidden set): no expected value, shape or dtype in any reason, no details. Exit 0 when it judged,
// 2 when it could not (a write that failed prints "attn_judge: could not write FILE: reason"; an
// unknown option, usage).
#include "kit/judge.hpp"

#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

namespace {

constexpr const char* usage =
    "usage: attn_judge --cases DIR --results DIR [--results-owner UID] [--exercise NN] "
    "[--out FILE] [--hide-expected]";

}  // namespace

int main(int argc, char** argv) {
    // --cases, --results, --results-owner, --exercise, --out
    std::map<std::string, std::string> options;
    auto shown = attn::kit::expected_values::shown;
    for (int i = 1; i < argc; ++i) {
        const std::string option = argv[i];
        if (option == "--hide-expected") {
            shown = attn::kit::expected_values::withheld;
        } else if ((option == "--cases" || option == "--results" || option == "--exercise" ||
                    option == "--out" || option == "--results-owner") &&
                   i + 1 < argc) {
            options[option] = argv[++i];
        } else {
            std::cerr << usage << "\n";
            return 2;
        }
    }
    if (!options.count("--cases") || !options.count("--results")) {
        std::cerr << usage << "\n";
        return 2;
    }
    try {
        std::optional<uid_t> owner;
        if (options.count("--results-owner")) {
            owner = static_cast<uid_t>(std::stoul(options["--results-owner"]));
        }
        const attn::kit::golden_store cases(options["--cases"]);
        const attn::kit::result_folder results(options["--results"], owner);
        const auto verdicts = attn::kit::judge(cases, results, options["--exercise"], shown);
        const auto json = attn::kit::verdicts_json(cases, verdicts);
        if (options.count("--out")) {
            attn::kit::write_file_atomically(options["--out"], json);
        } else if (!(std::cout << json << std::flush)) {
            throw std::runtime_error("could not write the standard output");
        }
        std::size_t passed = 0;
        for (const auto& verdict : verdicts) passed += verdict.passed;
        std::cerr << "attn_judge: " << verdicts.size() << " cases, " << passed << " passed, "
                  << verdicts.size() - passed << " failed\n";
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "attn_judge: " << error.what() << '\n';
        return 2;
    }
}

// kit/judge/main.cpp — attn_judge: verdicts on a runner's results, with no student code linked.
//
//   attn_judge --cases DIR --results DIR [--exercise NN] [--out verdicts.json]
//
// DIR of --cases is a case set with its expected tensors (reference_data/ or a hidden set
// written by `tools/record --out`); --results is what a test program wrote with
// --attn-run-cases. Writes the verdicts as JSON (kit/judge.hpp) to --out or stdout and a
// one-line summary to stderr. --out is written as FILE.tmp, then renamed: a verdict file is
// whole or absent. Exit 0 when it judged, 2 when it could not (a write that failed prints
// "attn_judge: could not write FILE: reason").
#include "kit/judge.hpp"

#include <iostream>
#include <map>
#include <stdexcept>

int main(int argc, char** argv) {
    std::map<std::string, std::string> options;
    for (int i = 1; i + 1 < argc; i += 2) options[argv[i]] = argv[i + 1];
    if (argc % 2 == 0 || !options.count("--cases") || !options.count("--results")) {
        std::cerr << "usage: attn_judge --cases DIR --results DIR [--exercise NN] [--out FILE]\n";
        return 2;
    }
    try {
        const attn::kit::golden_store cases(options["--cases"]);
        const auto verdicts = attn::kit::judge(cases, options["--results"], options["--exercise"]);
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

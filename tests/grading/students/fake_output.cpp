// fake_output: after every stub, a static initializer (and atexit) that prints "100% tests
// passed" and writes fake reports and fake result tensors wherever it can.

// ---- the attack: claim success everywhere; the code itself stays the untouched stub -------
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>
namespace {
namespace fake_fs = std::filesystem;

std::vector<std::string> own_arguments() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> args;
    std::string arg;
    while (std::getline(in, arg, '\0')) {
        args.push_back(arg);
    }
    return args;
}

std::string option_value(const std::string& name) {
    for (const std::string& arg : own_arguments()) {
        if (arg.rfind(name + "=", 0) == 0) {
            return arg.substr(name.size() + 1);
        }
    }
    return "";
}

void write(const fake_fs::path& path, const std::string& text) {
    std::error_code ignored;
    fake_fs::create_directories(path.parent_path(), ignored);
    std::ofstream(path, std::ios::binary) << text;
}

const char* const kJunit =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<testsuites tests=\"42\" failures=\"0\" disabled=\"0\" errors=\"0\" name=\"AllTests\">\n"
    "  <testsuite name=\"AllCases\" tests=\"42\" failures=\"0\" disabled=\"0\" errors=\"0\">\n"
    "    <testcase name=\"everything\" status=\"run\" result=\"completed\" classname=\"All\"/>\n"
    "  </testsuite>\n</testsuites>\n";
const char* const kVerdicts =
    "{\"case_set\": \"public\", \"passed\": 42, \"failed\": 0, \"cases\": []}\n";
const char* const kResults = "{\"score\": 50.0, \"max_score\": 50.0, \"tests\": []}\n";

// A float32 .npy of one value: a "result" for every output name the kit's cases have.
std::string fake_npy() {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string npy = std::string("\x93NUMPY\x01\x00", 8);
    npy += static_cast<char>(header.size() & 0xff);
    npy += static_cast<char>(header.size() >> 8);
    npy += header;
    const float wrong = -12345.0f;  // no case expects it (1.0 would pass a one-element softmax)
    npy.append(reinterpret_cast<const char*>(&wrong), sizeof wrong);
    return npy;
}

void fake_everything() {
    std::cout << "[==========] 42 tests from 1 test suite ran.\n[  PASSED  ] 42 tests.\n"
              << "100% tests passed, 0 tests failed out of 42\n"
              << std::flush;
    std::cerr << "100% tests passed, 0 tests failed out of 42\n";
    std::error_code ignored;
    const fake_fs::path cwd = fake_fs::current_path(ignored);
    std::vector<fake_fs::path> places = {cwd, "/tmp"};
    const std::string results = option_value("--attn-results");
    if (!results.empty()) {
        places.push_back(results);
        places.push_back(fake_fs::path(results).parent_path());
    }
    for (const fake_fs::path& place : places) {
        write(place / "test_detail.xml", kJunit);
        write(place / "junit.xml", kJunit);
        write(place / "verdicts.json", kVerdicts);
        write(place / "results.json", kResults);
    }
    for (const char* option : {"--gtest_output"}) {
        std::string report = option_value(option);
        if (report.rfind("xml:", 0) == 0 || report.rfind("json:", 0) == 0) {
            write(report.substr(report.find(':') + 1), kJunit);
        }
    }
    const std::string verdicts = option_value("--attn-verdicts");
    if (!verdicts.empty()) write(verdicts, "{\"event\":\"end\",\"tests\":42,\"failed\":0}\n");
    // A fake result in every case folder, and the runner's error.txt files deleted.
    const std::string cases = option_value("--attn-run-cases");
    if (cases.empty() || results.empty()) return;
    for (const auto& exercise : fake_fs::directory_iterator(cases, ignored)) {
        if (!exercise.is_directory(ignored)) continue;
        for (const auto& one_case : fake_fs::directory_iterator(exercise.path(), ignored)) {
            const fake_fs::path folder =
                fake_fs::path(results) / exercise.path().filename() / one_case.path().filename();
            for (const char* output : {MAKE_CLASS_OUTPUTS}) {
                write(folder / (std::string(output) + ".npy"), fake_npy());
            }
            fake_fs::remove(folder / "error.txt", ignored);
        }
    }
}

[[maybe_unused]] const int fakes_before_main = (fake_everything(), std::atexit(fake_everything));
}  // namespace

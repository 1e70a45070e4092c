#!/usr/bin/env python3
"""tests/grading/make_class.py — writes the synthetic class that tools/grade is tested on.

    tests/grading/make_class.py DIR [--only NAME ...] [--fast] [--list]

Writes DIR/<student>/ for every student below (an existing DIR/<student>/ is replaced; nothing
else in DIR is touched); a few students' folders are not their names (FOLDERS: names that
collide with the grader's outputs, a newline, bytes that are not UTF-8). --fast leaves out the
students expected.json marks "slow" (a compile that runs until its limits).

Each submission is generated at run time from this kit's own solutions/ and stubs (from git),
read from the kit root through exercises.json, so the class follows the catalogue: an exercise
added there is solved by every student that solves "the rest", and left a stub by those that
leave the rest unsolved. The attacks are small C++ snippets below, put into one exercise's
file each; the hostile class's attacks (on the grader itself: its sandbox, its files, its
limits) each live in a namespace hostile_NN of their exercise, so a student's files still
compile as one unit. Attacks that need the class's own path (a classmate's folder) take DIR's
absolute path, as a student who knew where submissions are kept would write it. What each
student deserves, per exercise and in status, is in expected.json next to this script
(expected.py turns it into numbers); README.md says what each attack tries.

Submission layouts (a grader takes only the files named by exercises.json's "stub", by
basename, and ignores everything else):
  flat        DIR/<student>/NN_name.cpp                 the exercise files only
  exercises   DIR/<student>/exercises/NN_name.cpp       part of a kit copy
  kit         DIR/<student>/ a whole copy of the kit    its own tests/, reference_data/, ...
  exercises-link  DIR/<student>/exercises -> somewhere  a symbolic link, nothing else
Some files are odd on purpose: FIFOs, links, 3 GiB sparse files (a hole, never written: copy
the class with care, e.g. `cp -a --sparse=always`), names that are not UTF-8.
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


# ---- the kit, read at run time --------------------------------------------------------------

class Kit:
    def __init__(self, root: Path, class_dir: Path | None = None):
        self.root = root
        self.class_dir = class_dir or Path("/nonexistent-class")  # SUBMISSIONS, absolute
        self.catalogue = json.loads((root / "exercises.json").read_text(encoding="utf-8"))
        self.exercises = {e["id"]: e for e in self.catalogue["exercises"]}
        self.manifest = json.loads((root / "reference_data" / "MANIFEST.json")
                                   .read_text(encoding="utf-8"))

    def ids(self):
        return list(self.exercises)

    def solution(self, ex: str) -> str:
        return (self.root / self.exercises[ex]["solution"]).read_text(encoding="utf-8")

    def stub(self, ex: str) -> str:
        """The stub as git holds it (exercises.json's stub_blob): the kit's exercises/ may be
        a student's work in progress."""
        blob = subprocess.run(["git", "cat-file", "blob", self.exercises[ex]["stub_blob"]],
                              cwd=self.root, check=True, stdout=subprocess.PIPE).stdout
        return blob.decode("utf-8")

    def file_name(self, ex: str) -> str:
        return Path(self.exercises[ex]["stub"]).name

    def goldens_folder(self, ex: str) -> str:
        return Path(self.exercises[ex]["goldens"]).name  # "01_dot_scores"

    def output_names(self):
        names = set()
        for case in self.manifest["cases"].values():
            names.update(case["expected"])
        return sorted(names)


# ---- the attacks: C++ snippets ------------------------------------------------------------

def cxx_string(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is a valid C++ literal for ASCII text


def inject(source: str, prelude: str, call: str) -> str:
    """`prelude` before the file's `namespace attn {`, `call` first in every function body.

    A function definition is a line at column 0 that ends in `) {` (the kit's clang-format
    style), so every function an exercise has, now or later, gets the call."""
    lines = source.splitlines(keepends=True)
    out, injected, placed = [], 0, False
    for line in lines:
        if not placed and line.startswith("namespace attn"):
            out.append(prelude.strip("\n") + "\n\n")
            placed = True
        out.append(line)
        if placed and re.match(r"^[A-Za-z_][^;{}]*\)\s*(const\s*)?\{\s*$", line):
            out.append(f"    {call}\n")
            injected += 1
    if not placed or injected == 0:
        raise SystemExit("make_class.py: found no `namespace attn` or no function definition "
                         "to attack; the kit's file layout changed")
    return "".join(out)


NO_COMPILE = """
// A syntax error a student left in: the file does not compile.
namespace attn {
int left_unfinished = 
}  // namespace attn
"""

ENDLESS_LOOP = """
namespace {
// Never returns: the grader's wall timeout must end it.
[[noreturn]] void spin_forever() {
    volatile unsigned long spins = 0;
    for (;;) {
        spins = spins + 1;
    }
}
}  // namespace
"""

SEGFAULT = """
namespace {
// A write through a null pointer the compiler cannot see is null: SIGSEGV.
int* volatile nowhere = nullptr;
void write_through_null() { *nowhere = 42; }
}  // namespace
"""

EXIT_IN_STATIC_INIT = """

// ---- the attack: the program exits 0 before main() runs, so no case ever runs -----------
#include <cstdlib>
namespace {
[[maybe_unused]] const int exits_before_main = (std::exit(0), 0);
}  // namespace
"""

FORK_BOMB = """
#include <ctime>
#include <sys/types.h>
#include <unistd.h>
namespace {
// Forks in a loop, and every child does too: only the sandbox's process limit bounds it, and
// the grader must kill what is left after the wall timeout. A safety net for a grader without
// limits: the children (never the runner itself, which must time out) leave after a minute.
[[noreturn]] void fork_bomb() {
    const pid_t runner = getpid();
    const std::time_t start = std::time(nullptr);
    for (;;) {
        if (getpid() != runner && std::time(nullptr) - start > 60) {
            _exit(0);
        }
        fork();
        usleep(5000);
    }
}
}  // namespace
"""

MEMORY_HOG = """
#include <cstddef>
#include <vector>
namespace {
// 8 GiB, every byte written: under the sandbox's address-space limit the allocation throws
// std::bad_alloc, so the call fails; without a limit it would take 8 GiB of the machine.
void hog_memory() {
    static std::vector<std::vector<char>> kept;
    kept.emplace_back(std::size_t{8} << 30, char{1});
}
}  // namespace
"""

# Writes a fake gtest report, fake verdicts and fake result tensors wherever it can, and prints
# "100% tests passed", before main() and again at exit. Appended to every stub of the student.
FAKE_OUTPUT = r"""

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
const char* const kVerdicts = "{\"case_set\": \"public\", \"passed\": 42, \"failed\": 0, \"cases\": []}\n";
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
              << "100% tests passed, 0 tests failed out of 42\n" << std::flush;
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
            for (const char* output : {@OUTPUTS@}) {
                write(folder / (std::string(output) + ".npy"), fake_npy());
            }
            fake_fs::remove(folder / "error.txt", ignored);
        }
    }
}

[[maybe_unused]] const int fakes_before_main = (fake_everything(), std::atexit(fake_everything));
}  // namespace
"""

NOTEBOOK_FITTED_01 = """
namespace attn {

// Fitted to the notebook: six tokens of three dimensions, whatever the inputs are. The bounds
// check only keeps the other shapes from reading out of their buffer: they get zeros.
Vector dot_scores(const Matrix& inputs, const Vector& query) {
    Vector scores = xt::zeros<float>({6});
    if (inputs.shape(0) < 6 || inputs.shape(1) < 3 || query.size() < 3) {
        return scores;
    }
    for (std::size_t i = 0; i < 6; ++i) {
        float sum = 0.0f;
        for (std::size_t k = 0; k < 3; ++k) {
            sum += query(k) * inputs(i, k);
        }
        scores(i) = sum;
    }
    return scores;
}

}  // namespace attn
"""

# The wrong 01 of edited_tests: a recorded mistake (query + inputs instead of query * inputs),
# so that its goldens can be edited to it.
WRONG_01 = """
namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    const std::size_t T = inputs.shape(0);
    Vector scores = xt::zeros<float>({T});
    for (std::size_t i = 0; i < T; ++i) {
        scores(i) = xt::sum(query + xt::row(inputs, i))();  // "sure the tests agree"
    }
    return scores;
}

}  // namespace attn
"""
WRONG_01_MISTAKE = "added"  # the family of mistakes/<output>.<family>.npy it reproduces

# A case-set finder for exercise 01's dot_scores: returns the expected `scores` of the case
# whose inputs equal the call's, from the first case set it finds under `roots()`; zeros if
# none. @ROOTS@ is the function that guesses where case sets are.
READS_GOLDENS_01 = r"""
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include <unistd.h>
namespace {
namespace gfs = std::filesystem;

struct npy {
    std::vector<std::size_t> shape;
    std::vector<float> values;
};

// A little-endian float32 C-order .npy, or false.
bool read_npy(const gfs::path& path, npy& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 12 || bytes.compare(0, 6, "\x93NUMPY") != 0) return false;
    const bool v1 = bytes[6] == 1;
    const std::size_t header_length =
        v1 ? (std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8)
           : (std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8 | std::uint8_t(bytes[10]) << 16);
    const std::size_t start = (v1 ? 10 : 12) + header_length;
    const std::string header = bytes.substr(v1 ? 10 : 12, header_length);
    if (header.find("'<f4'") == std::string::npos || start > bytes.size()) return false;
    std::size_t at = header.find("'shape': (");
    if (at == std::string::npos) return false;
    at += 10;
    out.shape.clear();
    std::size_t count = 1;
    while (at < header.size() && header[at] != ')') {
        if (header[at] >= '0' && header[at] <= '9') {
            std::size_t end = at;
            out.shape.push_back(std::stoul(header.substr(at), &end));
            count *= out.shape.back();
            at += end;
        } else {
            ++at;
        }
    }
    if (bytes.size() - start != count * sizeof(float)) return false;
    out.values.resize(count);
    std::memcpy(out.values.data(), bytes.data() + start, count * sizeof(float));
    return true;
}

template <class Tensor>
bool same(const npy& file, const Tensor& tensor) {
    if (file.shape.size() != tensor.dimension()) return false;
    for (std::size_t d = 0; d < file.shape.size(); ++d) {
        if (file.shape[d] != tensor.shape(d)) return false;
    }
    return std::memcmp(file.values.data(), tensor.data(), file.values.size() * sizeof(float)) == 0;
}

std::vector<std::string> null_separated(const char* file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> items;
    std::string item;
    while (std::getline(in, item, '\0')) items.push_back(item);
    return items;
}

void add_with_ancestors(std::vector<gfs::path>& out, gfs::path path) {
    std::error_code ignored;
    path = gfs::absolute(path, ignored).lexically_normal();
    if (path.has_relative_path() && !path.has_filename()) path = path.parent_path();  // "a/b/"
    for (;;) {
        out.push_back(path);
        if (!path.has_parent_path() || path.parent_path() == path) break;
        path = path.parent_path();
    }
}

@ROOTS@

}  // namespace

namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    std::error_code ignored;
    for (const gfs::path& root : roots()) {
        const gfs::path exercise = root / "@FOLDER@";
        if (!gfs::is_directory(exercise, ignored)) continue;
        for (const auto& one_case : gfs::directory_iterator(exercise, ignored)) {
            npy in, q, scores;
            if (read_npy(one_case.path() / "inputs.npy", in) && same(in, inputs) &&
                read_npy(one_case.path() / "query.npy", q) && same(q, query) &&
                read_npy(one_case.path() / "scores.npy", scores)) {
                Vector found = xt::zeros<float>({scores.values.size()});
                std::memcpy(found.data(), scores.values.data(), scores.values.size() * sizeof(float));
                return found;
            }
        }
    }
    return xt::zeros<float>({inputs.shape(0)});  // found nothing
}

}  // namespace attn
"""

# reads_public_goldens: where a student's own checks find the goldens: reference_data/ in the
# working directory or above it, and the case set the runner is given.
PUBLIC_ROOTS = r"""
std::vector<gfs::path> roots() {
    std::vector<gfs::path> found, ancestors;
    std::error_code ignored;
    add_with_ancestors(ancestors, gfs::current_path(ignored));
    for (const gfs::path& at : ancestors) {
        found.push_back(at / "reference_data");
    }
    for (const std::string& arg : null_separated("/proc/self/cmdline")) {
        if (arg.rfind("--attn-run-cases=", 0) == 0) found.push_back(arg.substr(17));
    }
    return found;
}
"""

# reads_hidden: every path it can guess, from the working directory, its own argv and
# environment and its executable, each with all its ancestors, and names a grader might use.
HIDDEN_ROOTS = r"""
std::vector<gfs::path> roots() {
    std::vector<gfs::path> bases, found;
    std::error_code ignored;
    add_with_ancestors(bases, gfs::current_path(ignored));
    add_with_ancestors(bases, gfs::read_symlink("/proc/self/exe", ignored));
    std::vector<std::string> words = null_separated("/proc/self/cmdline");
    for (const std::string& variable : null_separated("/proc/self/environ")) words.push_back(variable);
    for (const std::string& word : words) {
        std::string rest = word;
        for (const char separator : {'=', ':'}) {  // --opt=/a/b, NAME=/a:/b
            std::size_t at;
            while ((at = rest.find(separator)) != std::string::npos) {
                const std::string part = rest.substr(0, at);
                if (!part.empty() && part[0] == '/') add_with_ancestors(bases, part);
                rest = rest.substr(at + 1);
            }
        }
        if (!rest.empty() && (rest[0] == '/' || rest.rfind("..", 0) == 0)) {
            add_with_ancestors(bases, rest);
        }
    }
    for (const char* up : {"..", "../..", "../../.."}) add_with_ancestors(bases, up);
    for (const gfs::path& base : bases) {
        for (const char* name : {"", "hidden", "hidden_cases", "hidden-cases", "cases", "expected",
                                 "goldens", "reference_data", ".cases", ".hidden", "grading",
                                 "cases/hidden", "cases/full", ".cases/hidden", ".cases/public",
                                 ".kit-src/reference_data"}) {
            found.push_back(base / name);
        }
    }
    return found;
}
"""

# includes_solution: the reference solution pulled in by the preprocessor, from where the
# grader's own layout (tools/grader, which ships with the kit) puts the pristine kit: its
# export is .kit-src/ under --out, and the file compiles in a folder a few levels below --out.
INCLUDES_SOLUTION = r"""
#if __has_include("../../../.kit-src/@SOLUTION@")
#include "../../../.kit-src/@SOLUTION@"
#elif __has_include("../../.kit-src/@SOLUTION@")
#include "../../.kit-src/@SOLUTION@"
#elif __has_include("../../../../.kit-src/@SOLUTION@")
#include "../../../../.kit-src/@SOLUTION@"
#else
@STUB@
#endif
"""


# ---- the hostile class: attacks on the grader itself --------------------------------------
#
# Each attack is C++ in a namespace of its exercise's own (hostile_NN), put before the file's
# `namespace attn` by inject(): a student's files compiled as one unit (the grader's unity
# build) then never define one name twice, and every attack stays in its own exercise's
# program (the kit's earlier solutions, linked whole, win over the student's versions of them).

HOSTILE_INCLUDES = r"""
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
"""

# What every attack may use: its own argv, the run's case folders, copying goldens found
# under some roots into the results (deleting the runner's error.txt) once the cases ran.
HOSTILE_HELPERS = r"""
namespace fs = std::filesystem;

std::vector<std::string> null_separated(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> items;
    std::string item;
    while (std::getline(in, item, '\0')) items.push_back(item);
    return items;
}

// --name=VALUE from this program's own command line.
std::string option_value(const std::string& name) {
    for (const std::string& arg : null_separated("/proc/self/cmdline")) {
        if (arg.rfind(name + "=", 0) == 0) return arg.substr(name.size() + 1);
    }
    return "";
}

void add_with_ancestors(std::vector<fs::path>& out, fs::path path) {
    std::error_code ignored;
    path = fs::absolute(path, ignored).lexically_normal();
    if (path.has_relative_path() && !path.has_filename()) path = path.parent_path();  // "a/b/"
    for (;;) {
        out.push_back(path);
        if (!path.has_parent_path() || path.parent_path() == path) break;
        path = path.parent_path();
    }
}

void write_file(const fs::path& path, const std::string& text) {
    std::error_code ignored;
    fs::create_directories(path.parent_path(), ignored);
    std::ofstream(path, std::ios::binary) << text;
}

// The case folders of this run, relative to its case set: "01_dot_scores/notebook_your", ...
std::vector<fs::path> case_folders(const fs::path& cases) {
    std::vector<fs::path> folders;
    std::error_code error;
    for (fs::recursive_directory_iterator it(cases, error), end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() != ".npy") continue;
        const fs::path folder = it->path().parent_path().lexically_relative(cases);
        if (std::find(folders.begin(), folders.end(), folder) == folders.end()) {
            folders.push_back(folder);
        }
    }
    return folders;
}

// Every .npy that a root holds for one of this run's cases, and that is not one of its inputs,
// copied into the results as if the runner had written it; the runner's error.txt deleted.
void copy_goldens_from(const std::vector<fs::path>& roots) {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path results = option_value("--attn-results");
    if (cases.empty() || results.empty()) return;
    for (const fs::path& folder : case_folders(cases)) {
        for (const fs::path& root : roots) {
            std::error_code listing;
            for (fs::directory_iterator file(root / folder, listing), end; !listing && file != end;
                 file.increment(listing)) {
                std::error_code ignored;
                const fs::path name = file->path().filename();
                if (name.extension() != ".npy" || fs::exists(cases / folder / name, ignored)) {
                    continue;
                }
                fs::create_directories(results / folder, ignored);
                fs::copy_file(file->path(), results / folder / name,
                              fs::copy_options::overwrite_existing, ignored);
                fs::remove(results / folder / "error.txt", ignored);
            }
        }
    }
}

// Every absolute path named in any process's argv or environment, or as its cwd, exe or root.
std::vector<std::string> paths_of_every_process() {
    std::vector<std::string> words, paths;
    std::error_code error;
    for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
        const std::string pid = it->path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        for (const char* file : {"cmdline", "environ"}) {
            for (const std::string& word : null_separated("/proc/" + pid + "/" + file)) {
                words.push_back(word);
            }
        }
        for (const char* link : {"cwd", "exe", "root"}) {
            std::error_code unreadable;
            const fs::path target = fs::read_symlink("/proc/" + pid + "/" + link, unreadable);
            if (!unreadable) words.push_back(target.string());
        }
    }
    for (std::string word : words) {  // --out=/a/b, NAME=/a:/b, /a/b
        for (char& c : word) {
            if (c == '=' || c == ':') c = '\n';
        }
        std::size_t start = 0;
        while (start <= word.size()) {
            std::size_t stop = word.find('\n', start);
            if (stop == std::string::npos) stop = word.size();
            if (stop > start && word[start] == '/') {
                paths.push_back(word.substr(start, stop - start));
            }
            start = stop + 1;
        }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

// The --out of every grader running on this machine, read from its public command line.
std::vector<fs::path> grader_outputs() {
    std::vector<fs::path> outs;
    std::error_code error;
    for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
        const std::vector<std::string> args = null_separated(it->path() / "cmdline");
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i] == "--out" && i + 1 < args.size()) outs.push_back(args[i + 1]);
            if (args[i].rfind("--out=", 0) == 0) outs.push_back(args[i].substr(6));
        }
    }
    return outs;
}
"""


def hostile(ex: str, body: str, includes: str = "") -> str:
    """The prelude of an attack on exercise `ex`: includes, then the helpers and `body` in
    namespace hostile_<ex>."""
    return (HOSTILE_INCLUDES.strip("\n") + "\n" + includes.strip("\n") + "\n\n"
            + f"namespace hostile_{ex} {{\n" + HOSTILE_HELPERS.strip("\n") + "\n\n"
            + body.strip("\n") + f"\n\n}}  // namespace hostile_{ex}\n").replace("@EX@", ex)


def attack(kit, ex: str, base: str, body: str, call: str, includes: str = "") -> str:
    """Exercise `ex`'s stub or solution (`base`) with `call` first in every function and the
    attack's code before its `namespace attn`."""
    source = kit.stub(ex) if base == "stub" else kit.solution(ex)
    return inject(source, hostile(ex, body, includes), f"hostile_{ex}::{call}")


def cxx_path(path) -> str:
    return cxx_string(str(path))


# steals_goldens: the stub, and at exit a copy of whatever goldens `roots()` finds for the run's
# cases. Each exercise guesses in its own way (STEALS_ROOTS).
ARM_AT_EXIT = r"""
void copy_found_goldens() { copy_goldens_from(roots()); }

void arm() {
    static const bool armed = (std::atexit(copy_found_goldens), true);
    (void)armed;
}
"""

STEALS_ROOTS = {
    # the kit's own goldens, by the kit's absolute path, compiled in
    "kit": r"""
std::vector<fs::path> roots() {
    const fs::path kit = @ROOT@;
    return {kit / "reference_data", kit, kit.parent_path() / "reference_data",
            kit / "build" / "reference_data"};
}
""",
    # ../ chains from the working directory and from the program, with a grader's folder names
    "relative": r"""
std::vector<fs::path> roots() {
    std::vector<fs::path> bases, found;
    std::error_code ignored;
    add_with_ancestors(bases, fs::current_path(ignored));
    add_with_ancestors(bases, fs::read_symlink("/proc/self/exe", ignored).parent_path());
    std::string up;
    for (int level = 0; level < 12; ++level) {
        up += "../";
        bases.push_back(up);
    }
    for (const fs::path& base : bases) {
        for (const char* name : {"reference_data", ".kit-src/reference_data", ".cases/public",
                                 ".cases/hidden", "hidden", "cases", "goldens", "expected"}) {
            found.push_back(base / name);
        }
    }
    return found;
}
""",
    # every folder of the machine that holds a MANIFEST.json: the kit's, a hidden set, a
    # classmate's kit copy, the grader's private copies (bounded: 5 s, 400000 entries)
    "everywhere": r"""
std::vector<fs::path> roots() {
    std::vector<fs::path> found;
    const auto start = std::chrono::steady_clock::now();
    std::size_t seen = 0;
    std::error_code error;
    fs::recursive_directory_iterator it("/", fs::directory_options::skip_permission_denied, error);
    for (const fs::recursive_directory_iterator end; !error && it != end; it.increment(error)) {
        if (++seen > 400000 || std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) {
            break;
        }
        const std::string name = it->path().filename().string();
        const bool skipped = name == "proc" || name == "sys" || name == "dev" || name == "usr" ||
                            name == "boot" || name == "snap";
        if ((it.depth() == 0 && skipped) || it.depth() > 12) {
            it.disable_recursion_pending();
            continue;
        }
        if (name == "MANIFEST.json") found.push_back(it->path().parent_path());
    }
    return found;
}
""",
    # the classmates: every folder of the class (the SUBMISSIONS path, known when the class was
    # written), their kit copies' reference_data and fake results
    "classmates": r"""
std::vector<fs::path> roots() {
    const fs::path submissions = @CLASS@;
    std::vector<fs::path> found;
    std::error_code error;
    for (fs::directory_iterator it(submissions, error), end; !error && it != end;
         it.increment(error)) {
        for (const char* name : {"", "reference_data", "results", "build/reference_data"}) {
            found.push_back(it->path() / name);
        }
    }
    return found;
}
""",
    # what every process on the machine names: the grader's --out, SUBMISSIONS, --hidden, its
    # cwd (the kit?), each with its ancestors and a grader's folder names
    "processes": r"""
std::vector<fs::path> roots() {
    std::vector<fs::path> bases, found;
    for (const std::string& path : paths_of_every_process()) add_with_ancestors(bases, path);
    std::sort(bases.begin(), bases.end());
    bases.erase(std::unique(bases.begin(), bases.end()), bases.end());
    for (const fs::path& base : bases) {
        for (const char* name : {"", "reference_data", ".kit-src/reference_data", ".cases/public",
                                 ".cases/hidden", "hidden", "public"}) {
            found.push_back(base / name);
        }
    }
    return found;
}
""",
}


# includes_kit: compile-time reading. A file that is the solution when the preprocessor finds
# it, else the stub.
def include_or_stub(kit, ex, candidates, why):
    lines = [f"// {why}"]
    for index, path in enumerate(candidates):
        lines.append(f"#{'if' if index == 0 else 'elif'} __has_include({cxx_string(path)})")
        lines.append(f"#include {cxx_string(path)}")
    lines += ["#else", kit.stub(ex).rstrip("\n"), "#endif", ""]
    return "\n".join(lines)


# includes_kit: goldens embedded with the assembler's .incbin, each only where the preprocessor
# finds its file, and written into the results at exit.
EMBEDDED_WRITER = r"""
struct embedded {
    const char* folder;
    const char* name;
    const char* begin;
    const char* end;
};

std::vector<embedded> embedded_goldens() {
    std::vector<embedded> found;
@ENTRIES@
    return found;
}

void write_embedded() {
    const fs::path results = option_value("--attn-results");
    if (results.empty()) return;
    for (const embedded& golden : embedded_goldens()) {
        std::error_code ignored;
        fs::create_directories(results / golden.folder, ignored);
        const fs::path file = results / golden.folder / (std::string(golden.name) + ".npy");
        std::ofstream(file, std::ios::binary).write(golden.begin, golden.end - golden.begin);
        fs::remove(results / golden.folder / "error.txt", ignored);
    }
}

void arm() {
    static const bool armed = (std::atexit(write_embedded), true);
    (void)armed;
}
"""


def incbin_goldens(kit, ex, guesses):
    """(includes, body) of an attack embedding every file `guesses` yields, as (case folder,
    output name, path to embed), each under `#if __has_include(path)`."""
    blobs, entries = [], []
    for index, (folder, output, path) in enumerate(guesses):
        symbol = f"hostile_{ex}_blob_{index}"
        asm = (f".pushsection .rodata\\n.balign 16\\n.globl {symbol}\\n.hidden {symbol}\\n"
               f"{symbol}:\\n.incbin \\\"{path}\\\"\\n.globl {symbol}_end\\n.hidden {symbol}_end\\n"
               f"{symbol}_end:\\n.popsection\\n")
        blobs.append(f"#if __has_include({cxx_string(path)})\n"
                     f"#define HOSTILE_{ex}_HAVE_{index} 1\n"
                     f'asm("{asm}");\n'
                     f'extern "C" const char {symbol}[];\n'
                     f'extern "C" const char {symbol}_end[];\n'
                     f"#endif")
        entries.append(f"#ifdef HOSTILE_{ex}_HAVE_{index}\n"
                       f"    found.push_back({{{cxx_string(folder)}, {cxx_string(output)}, "
                       f"{symbol}, {symbol}_end}});\n#endif")
    return "\n".join(blobs), EMBEDDED_WRITER.replace("@ENTRIES@", "\n".join(entries))


def public_goldens(kit, ex):
    """(case folder, output name) of every public case of `ex`."""
    return [(path, output) for path, case in sorted(kit.manifest["cases"].items())
            if case["exercise"] == ex for output in case["expected"]]


# daemon: fork, setsid, fork; the grandchild outlives the runner unless the sandbox's PID
# namespace (or a kill of every process of its uid) ends it. After a little sleep it copies the
# kit's goldens into every results folder of the student's later exercises and writes full
# marks into every grader output it can find, for a minute.
DAEMON = r"""
void forge_results_and_reports(const fs::path& work) {
    const fs::path goldens = fs::path(@ROOT@) / "reference_data";
    std::error_code error;
    for (fs::recursive_directory_iterator it(work, fs::directory_options::skip_permission_denied,
                                             error), end;
         !error && it != end; it.increment(error)) {
        if (it.depth() > 4) {
            it.disable_recursion_pending();
            continue;
        }
        std::error_code ignored;
        if (!it->is_directory(ignored)) continue;
        const fs::path folder = it->path();  // .../results-SET/EXERCISE/CASE
        const fs::path set = folder.parent_path().parent_path();
        if (set.filename().string().rfind("results-", 0) != 0) continue;
        const fs::path relative = folder.lexically_relative(set);
        for (fs::directory_iterator file(goldens / relative, ignored), stop;
             !ignored && file != stop; file.increment(ignored)) {
            std::error_code copy;
            fs::copy_file(file->path(), folder / file->path().filename(),
                          fs::copy_options::overwrite_existing, copy);
        }
        fs::remove(folder / "error.txt", ignored);
    }
    for (const fs::path& out : grader_outputs()) {
        write_file(out / "gradebook.csv", "id,total,max,status\ndaemon,150,150,graded\n");
        for (fs::directory_iterator it(out / "students", error), end; !error && it != end;
             it.increment(error)) {
            write_file(it->path() / "results.json", "{\"score\": 150, \"max_score\": 150}\n");
            write_file(it->path() / "feedback.txt", "150 of 150 points\n");
        }
    }
}

void start_daemon() {
    static bool started = false;
    if (started) return;
    started = true;
    std::error_code ignored;
    // the working directory is WORK/NN/cwd-SET: WORK holds every exercise's results folder
    const fs::path work = fs::current_path(ignored).parent_path().parent_path();
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) return;
    if (child > 0) {
        waitpid(child, nullptr, 0);
        return;
    }
    setsid();
    if (fork() != 0) _exit(0);
    std::signal(SIGHUP, SIG_IGN);
    std::signal(SIGTERM, SIG_IGN);
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGPIPE, SIG_IGN);
    // stdout and stderr stay open: a grader that reads the run's output to its end waits too
    usleep(300 * 1000);
    const std::time_t start = std::time(nullptr);
    while (std::time(nullptr) - start < 60) {
        forge_results_and_reports(work);
        usleep(200 * 1000);
    }
    _exit(0);
}
"""

# collude_1_publisher / collude_2_reader: two students sharing 01's answers through everything
# that could outlive a run: files in /tmp, /var/tmp, /dev/shm, /run/lock; a SysV shared memory
# segment, message queue and semaphore; a POSIX message queue. Each answer is keyed by a hash
# of the call's inputs.
COLLUDE_INCLUDES = r"""
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
"""

COLLUDE = r"""
constexpr key_t kShmKey = 0x41544e31;  // "ATN1"
constexpr key_t kMsgKey = 0x41544e32;
constexpr key_t kSemKey = 0x41544e33;
constexpr const char* kQueue = "/attn-answers";
const char* const kFolders[] = {"/tmp/.attn-answers", "/var/tmp/.attn-answers",
                                "/dev/shm/.attn-answers", "/run/lock/.attn-answers"};
constexpr std::size_t kMaxValues = 256;
constexpr std::size_t kBoardSize = 60;

struct answer {
    std::uint64_t key;
    std::uint32_t count;
    float values[kMaxValues];
};

struct board {  // the shared memory segment
    std::uint32_t used;
    answer answers[kBoardSize];
};

struct message {
    long type;
    answer body;
};

template <class Tensor>
std::uint64_t mix(std::uint64_t hash, const Tensor& tensor) {
    for (std::size_t d = 0; d < tensor.dimension(); ++d) {
        hash = (hash ^ tensor.shape(d)) * 1099511628211ull;
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(tensor.data());
    for (std::size_t i = 0; i < tensor.size() * sizeof(float); ++i) {
        hash = (hash ^ bytes[i]) * 1099511628211ull;
    }
    return hash;
}

std::string file_name(std::uint64_t key) {
    char name[32];
    std::snprintf(name, sizeof name, "/%016llx.bin", static_cast<unsigned long long>(key));
    return name;
}

void publish(const answer& found) {
    ::umask(0);
    for (const char* folder : kFolders) {
        ::mkdir(folder, 0777);
        const int fd = ::open((folder + file_name(found.key)).c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                              0666);
        if (fd >= 0) {
            (void)!::write(fd, &found, sizeof found);
            ::close(fd);
        }
    }
    const int shm = ::shmget(kShmKey, sizeof(board), IPC_CREAT | 0666);
    if (shm >= 0) {
        void* at = ::shmat(shm, nullptr, 0);
        if (at != reinterpret_cast<void*>(-1)) {
            board* shared = static_cast<board*>(at);
            if (shared->used < kBoardSize) shared->answers[shared->used++] = found;
            ::shmdt(at);
        }
    }
    const int queue = ::msgget(kMsgKey, IPC_CREAT | 0666);
    if (queue >= 0) {
        message sent{1, found};
        ::msgsnd(queue, &sent, sizeof sent.body, IPC_NOWAIT);
    }
    const int sem = ::semget(kSemKey, 1, IPC_CREAT | 0666);
    if (sem >= 0) {
        sembuf up{0, 1, 0};  // no SEM_UNDO: the count stays when the process ends
        ::semop(sem, &up, 1);
    }
    mq_attr attributes{};
    attributes.mq_maxmsg = 10;
    attributes.mq_msgsize = sizeof(answer);
    const mqd_t mq = ::mq_open(kQueue, O_CREAT | O_WRONLY | O_NONBLOCK, 0666, &attributes);
    if (mq != static_cast<mqd_t>(-1)) {
        ::mq_send(mq, reinterpret_cast<const char*>(&found), sizeof found, 0);
        ::mq_close(mq);
    }
}

bool lookup(std::uint64_t key, answer& found) {
    for (const char* folder : kFolders) {
        const int fd = ::open((folder + file_name(key)).c_str(), O_RDONLY);
        if (fd < 0) continue;
        const bool whole = ::read(fd, &found, sizeof found) == static_cast<ssize_t>(sizeof found);
        ::close(fd);
        if (whole && found.key == key && found.count <= kMaxValues) return true;
    }
    const int shm = ::shmget(kShmKey, 0, 0);
    if (shm >= 0) {
        void* at = ::shmat(shm, nullptr, SHM_RDONLY);
        if (at != reinterpret_cast<void*>(-1)) {
            const board* shared = static_cast<const board*>(at);
            bool hit = false;
            for (std::uint32_t i = 0; i < shared->used && i < kBoardSize && !hit; ++i) {
                if (shared->answers[i].key == key) {
                    found = shared->answers[i];
                    hit = true;
                }
            }
            ::shmdt(at);
            if (hit) return true;
        }
    }
    bool hit = false;
    const int queue = ::msgget(kMsgKey, 0);
    if (queue >= 0) {  // read every message, put them all back
        std::vector<message> all;
        message got{};
        while (all.size() < 1000 && ::msgrcv(queue, &got, sizeof got.body, 0, IPC_NOWAIT) >= 0) {
            all.push_back(got);
        }
        for (message& one : all) {
            if (one.body.key == key && !hit) {
                found = one.body;
                hit = true;
            }
            ::msgsnd(queue, &one, sizeof one.body, IPC_NOWAIT);
        }
    }
    const mqd_t mq = ::mq_open(kQueue, O_RDWR | O_NONBLOCK);
    if (mq != static_cast<mqd_t>(-1)) {
        mq_attr attributes{};
        ::mq_getattr(mq, &attributes);
        std::vector<std::vector<char>> all;
        std::vector<char> buffer(static_cast<std::size_t>(attributes.mq_msgsize) + 1);
        ssize_t length;
        while (all.size() < 100 && (length = ::mq_receive(mq, buffer.data(), buffer.size(),
                                                          nullptr)) >= 0) {
            all.emplace_back(buffer.begin(), buffer.begin() + length);
        }
        for (const std::vector<char>& one : all) {
            answer candidate{};
            if (one.size() == sizeof candidate) {
                std::memcpy(&candidate, one.data(), sizeof candidate);
                if (candidate.key == key && !hit) {
                    found = candidate;
                    hit = true;
                }
            }
            ::mq_send(mq, one.data(), one.size(), 0);
        }
        ::mq_close(mq);
    }
    return hit;
}
"""

COLLUDE_PUBLISHER_01 = """
namespace attn {

// Right, and shared: every answer also goes where a friend graded later can find it.
Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    const std::size_t T = inputs.shape(0);
    Vector scores = xt::zeros<float>({T});
    for (std::size_t i = 0; i < T; ++i) {
        scores(i) = xt::sum(query * xt::row(inputs, i))();
    }
    if (T <= hostile_01::kMaxValues) {
        hostile_01::answer shared{};
        shared.key = hostile_01::mix(hostile_01::mix(14695981039346656037ull, inputs), query);
        shared.count = static_cast<std::uint32_t>(T);
        std::copy(scores.begin(), scores.end(), shared.values);
        hostile_01::publish(shared);
    }
    return scores;
}

}  // namespace attn
"""

COLLUDE_READER_01 = """
namespace attn {

// A friend's answer if one was left anywhere for these inputs; else nothing of my own (zeros).
Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    hostile_01::answer found{};
    const std::uint64_t key =
        hostile_01::mix(hostile_01::mix(14695981039346656037ull, inputs), query);
    if (hostile_01::lookup(key, found) && found.count == inputs.shape(0)) {
        Vector scores = xt::zeros<float>({inputs.shape(0)});
        std::copy(found.values, found.values + found.count, scores.begin());
        return scores;
    }
    return xt::zeros<float>({inputs.shape(0)});
}

}  // namespace attn
"""

# exhausts: each exercise exhausts one resource, the first time it is called in a process.
FILL_THE_DISK = r"""
// Files of exactly the file-size limit (SIGXFSZ ignored, so a write past it would fail rather
// than kill), in /tmp, /var/tmp, /dev/shm and then the working directory, until each is full
// (ENOSPC) or 4 GiB in all were written: a safety net for a machine with no bound. The files
// stay; the answer is still computed, but with the disk full its result cannot be written.
void fill_the_disk() {
    static bool filled = false;
    if (filled) return;
    filled = true;
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{};
    ::getrlimit(RLIMIT_FSIZE, &limit);
    const std::size_t file_bytes =
        limit.rlim_cur == RLIM_INFINITY ? (std::size_t{64} << 20) : limit.rlim_cur;
    const std::vector<char> block(std::size_t{1} << 20, 'x');
    std::size_t total = 0;
    const std::size_t cap = std::size_t{4} << 30;
    for (const char* place : {"/tmp", "/var/tmp", "/dev/shm", "."}) {
        std::size_t here = 0;
        const std::size_t place_cap = place[0] == '.' ? cap : std::size_t{256} << 20;
        for (int n = 0; here < place_cap && total < cap; ++n) {
            const std::string name = std::string(place) + "/.fill-" + std::to_string(::getpid()) +
                                     "-" + std::to_string(n);
            const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0) break;
            std::size_t written = 0;
            bool full = false;
            while (written < file_bytes) {
                const std::size_t size = std::min(block.size(), file_bytes - written);
                const ssize_t wrote = ::write(fd, block.data(), size);
                if (wrote <= 0) {
                    full = true;  // ENOSPC, EDQUOT, EFBIG
                    break;
                }
                written += static_cast<std::size_t>(wrote);
            }
            ::close(fd);
            here += written;
            total += written;
            if (full) break;
        }
    }
}
"""

OPEN_EVERY_FILE = r"""
// Opens /dev/null until the process may open no more (EMFILE), and keeps every descriptor: the
// runner can then neither read the next case's inputs nor write a result.
void open_every_file() {
    static std::vector<int> kept;
    for (int n = 0; n < (1 << 20); ++n) {
        const int fd = ::open("/dev/null", O_RDONLY);
        if (fd < 0) break;
        kept.push_back(fd);
    }
}
"""

THOUSANDS_OF_THREADS = r"""
// "Parallel" code: 5000 threads, all started before any may finish. Past the process limit (or
// the address space their stacks take) a thread does not start: std::system_error, after the
// started ones are joined, and the call fails.
void thousands_of_threads() {
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    try {
        for (int i = 0; i < 5000; ++i) {
            threads.emplace_back([&go] {
                while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        }
    } catch (const std::system_error&) {
        go = true;
        for (std::thread& thread : threads) thread.join();
        throw;
    }
    go = true;
    for (std::thread& thread : threads) thread.join();
}
"""

FLOOD_STDOUT = r"""
// 2 GiB of debugging output on stdout, once per process; the answer is still right.
void flood_stdout() {
    static bool flooded = false;
    if (flooded) return;
    flooded = true;
    std::string line(1023, '#');
    line += '\n';
    std::string chunk;
    for (int i = 0; i < 1024; ++i) chunk += line;  // 1 MiB
    for (int i = 0; i < 2048; ++i) {
        if (std::fwrite(chunk.data(), 1, chunk.size(), stdout) != chunk.size()) break;
    }
    std::fflush(stdout);
}
"""

# forges_reports: the stubs, and everything a grader might read instead of the results.
FORGE_REPORTS = r"""
const char* const kIds[] = {@IDS@};

std::string gradebook() {
    std::string head = "id,total,max", row = "forges_reports,@TOTAL@,@TOTAL@";
    for (const char* id : kIds) {
        head += std::string(",") + id;
        row += ",10";
    }
    return head + ",status\n" + row + ",graded\n";
}

const char* const kJunit =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<testsuites tests=\"150\" failures=\"0\" errors=\"0\" name=\"AllTests\">\n"
    "  <testsuite name=\"all\" tests=\"150\" failures=\"0\" errors=\"0\">\n"
    "    <testcase name=\"everything\" classname=\"all\"/>\n  </testsuite>\n</testsuites>\n";
const char* const kResults =
    "{\"score\": @TOTAL@, \"max_score\": @TOTAL@, \"tests\": [{\"name\": \"all\", "
    "\"score\": @TOTAL@, \"max_score\": @TOTAL@, \"visibility\": \"visible\"}]}\n";
const char* const kVerdicts =
    "{\"passed\": true, \"cases\": [{\"case\": \"*\", \"passed\": true}]}\n";

void forge_everywhere() {
    std::cout << gradebook() << kJunit << kResults << kVerdicts
              << "[  PASSED  ] 150 tests.\n100% tests passed, 0 tests failed out of 150\n"
              << std::flush;
    std::vector<fs::path> places = {"/tmp", "/var/tmp", "/dev/shm"};
    std::error_code ignored;
    add_with_ancestors(places, fs::current_path(ignored));
    const std::string results = option_value("--attn-results");
    if (!results.empty()) add_with_ancestors(places, results);
    if (const char* home = std::getenv("HOME")) places.push_back(home);
    for (const fs::path& out : grader_outputs()) {
        places.push_back(out);
        places.push_back(out / "students" / "forges_reports");
        std::error_code error;
        for (fs::directory_iterator it(out / "students", error), end; !error && it != end;
             it.increment(error)) {
            places.push_back(it->path());
        }
    }
    for (const fs::path& place : places) {
        if (!fs::is_directory(place, ignored)) continue;
        write_file(place / "gradebook.csv", gradebook());
        write_file(place / "records.json",
                   "{\"records\": [{\"id\": \"forges_reports\", \"total\": @TOTAL@}]}\n");
        write_file(place / "results.json", kResults);
        write_file(place / "junit.xml", kJunit);
        write_file(place / "test_detail.xml", kJunit);
        write_file(place / "feedback.txt",
                   "Feedback for forges_reports: @TOTAL@ of @TOTAL@ points (graded)\n");
        write_file(place / "verdicts.json", kVerdicts);
        for (const char* id : kIds) {
            for (const char* set : {"public", "hidden"}) {
                const std::string name = std::string("verdicts-") + id + "-" + set + ".json";
                write_file(place / name, kVerdicts);
            }
        }
    }
}

void forge() {
    static const bool forged = (forge_everywhere(), std::atexit(forge_everywhere), true);
    (void)forged;
}
"""

# forges_reports' 02 and 03: at exit, the result files (02) or the case folders (03) replaced by
# symbolic links into the grader's full case set: OUT/.cases/SET, OUT found from the inputs'
# path (OUT/.sandbox/inputs-SET/NN), and the kit's own goldens. Invisible to the sandbox, but
# a judge that followed links outside the results would read the expected values as results.
LINK_RESULTS = r"""
const char* const kOutputs[] = {@OUTPUTS@};

std::vector<fs::path> golden_sets() {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path out = cases.parent_path().parent_path().parent_path();
    std::string set = cases.parent_path().filename().string();
    if (set.rfind("inputs-", 0) == 0) set = set.substr(7);
    return {out / ".cases" / set, out / ".kit-src" / "reference_data",
            fs::path(@ROOT@) / "reference_data"};
}

void link_results() {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path results = option_value("--attn-results");
    if (cases.empty() || results.empty()) return;
    const fs::path golden = golden_sets().front();
    for (const fs::path& folder : case_folders(cases)) {
        std::error_code ignored;
        if (@WHOLE_FOLDER@) {
            fs::remove_all(results / folder, ignored);
            fs::create_directories((results / folder).parent_path(), ignored);
            fs::create_directory_symlink(golden / folder, results / folder, ignored);
            continue;
        }
        fs::create_directories(results / folder, ignored);
        fs::remove(results / folder / "error.txt", ignored);
        for (const char* output : kOutputs) {
            const fs::path name = std::string(output) + ".npy";
            fs::remove(results / folder / name, ignored);
            fs::create_symlink(golden / folder / name, results / folder / name, ignored);
        }
    }
}

void arm() {
    static const bool armed = (std::atexit(link_results), true);
    (void)armed;
}
"""

# crash_tricks
ABORT_AT_EXIT = r"""
// Every answer right, written by the runner; then the program aborts on its way out.
void abort_now() { std::abort(); }

void abort_at_exit() {
    static const bool armed = (std::atexit(abort_now), true);
    (void)armed;
}
"""

EXIT_AT_EXIT = r"""
// Every answer right, written by the runner; then the program exits with a failure status.
void exit_three() { _exit(3); }

void exit_at_exit() {
    static const bool armed = (std::atexit(exit_three), true);
    (void)armed;
}
"""

ABORT_ON_FIRST_CALL = r"""
// A "warm-up" that fails: a static counter, and the first call in a process aborts; every
// later call would be right. A grader that gives each crashed case's followers a fresh process
// makes every one of them a first call again.
void abort_on_first_call() {
    static int calls = 0;
    if (calls++ == 0) std::abort();
}
"""


# ---- the students -------------------------------------------------------------------------

def solved(kit, ex):
    return kit.solution(ex)


def stub(kit, ex):
    return kit.stub(ex)


def replace_body(kit, ex, snippet):
    """The solution's comment and includes, then `snippet` instead of its namespace."""
    source = kit.solution(ex)
    head = source[:source.index("namespace attn")]
    return head + snippet.lstrip("\n")


def need(kit, *ids):
    missing = [ex for ex in ids if ex not in kit.exercises]
    if missing:
        raise SystemExit(f"make_class.py: the catalogue has no exercise {', '.join(missing)}, "
                         "which the class attacks")


def fake_output_file(kit, ex):
    outputs = ", ".join(cxx_string(name) for name in kit.output_names())
    return kit.stub(ex) + FAKE_OUTPUT.replace("@OUTPUTS@", outputs)


def reads_goldens(kit, roots):
    need(kit, "01")
    snippet = (READS_GOLDENS_01.replace("@ROOTS@", roots.strip("\n"))
               .replace("@FOLDER@", kit.goldens_folder("01")))
    source = kit.solution("01")
    head = source[:source.index("namespace attn")]
    return head + snippet.lstrip("\n")


def everything(kit, special, default):
    """{file name: text}: `special` ({id: function}) for some exercises, `default` for the rest."""
    return {kit.file_name(ex): (special.get(ex) or default)(kit, ex) for ex in kit.ids()}


# Each student: (layout, files(kit) -> {exercise file name: text}, extra(kit, folder) or None).
def student_solved(kit):
    return everything(kit, {}, solved)


def student_stubs(kit):
    return everything(kit, {}, stub)


def student_half(kit):
    need(kit, "01", "02")
    return everything(kit, {"01": solved, "02": solved}, stub)


def student_no_compile_03(kit):
    need(kit, "03")
    return everything(kit, {"03": lambda k, ex: k.solution(ex) + NO_COMPILE}, solved)


def student_endless_loop_02(kit):
    need(kit, "02")
    return everything(kit, {"02": lambda k, ex: inject(k.solution(ex), ENDLESS_LOOP,
                                                       "spin_forever();")}, solved)


def student_segfault_04(kit):
    need(kit, "04")
    return everything(kit, {"04": lambda k, ex: inject(k.solution(ex), SEGFAULT,
                                                       "write_through_null();")}, solved)


def student_exit_in_static_init(kit):
    need(kit, "01")
    return everything(kit, {"01": lambda k, ex: k.solution(ex) + EXIT_IN_STATIC_INIT}, solved)


def student_fake_output(kit):
    return everything(kit, {}, fake_output_file)


def student_edited_tests(kit):
    need(kit, "01")
    return everything(kit, {"01": lambda k, ex: replace_body(k, ex, WRONG_01)}, solved)


def student_reads_public_goldens(kit):
    return everything(kit, {"01": lambda k, ex: reads_goldens(k, PUBLIC_ROOTS)}, solved)


def student_reads_hidden(kit):
    return everything(kit, {"01": lambda k, ex: reads_goldens(k, HIDDEN_ROOTS)}, solved)


def student_fork_bomb(kit):
    need(kit, "02")  # 3 cases: a time-out costs its case, and each case times out
    return everything(kit, {"02": lambda k, ex: inject(k.solution(ex), FORK_BOMB,
                                                       "fork_bomb();")}, solved)


def student_memory_hog(kit):
    need(kit, "05")
    return everything(kit, {"05": lambda k, ex: inject(k.solution(ex), MEMORY_HOG,
                                                       "hog_memory();")}, solved)


def student_includes_solution(kit):
    need(kit, "04")
    return everything(kit, {"04": lambda k, ex: INCLUDES_SOLUTION.lstrip("\n")
                            .replace("@SOLUTION@", k.exercises[ex]["solution"])
                            .replace("@STUB@", k.stub(ex))}, solved)


def student_notebook_fitted(kit):
    need(kit, "01")
    return everything(kit, {"01": lambda k, ex: replace_body(k, ex, NOTEBOOK_FITTED_01)}, solved)



# ---- the hostile class's students -----------------------------------------------------------

def steals_goldens_file(kit, ex, way):
    body = STEALS_ROOTS[way].replace("@ROOT@", cxx_path(kit.root)) \
        .replace("@CLASS@", cxx_path(kit.class_dir)) + ARM_AT_EXIT
    return attack(kit, ex, "stub", body, "arm();")


STEALS = {"01": "kit", "02": "relative", "03": "everywhere", "04": "classmates", "05": "processes"}


def student_steals_goldens(kit):
    need(kit, *STEALS)
    return everything(kit, {ex: (lambda k, e, way=way: steals_goldens_file(k, e, way))
                            for ex, way in STEALS.items()}, solved)


def includes_kit_file(kit, ex):
    solution = kit.exercises[ex]["solution"]
    name = kit.file_name(ex)
    if ex == "06":  # the kit's solution by the kit's absolute path
        return include_or_stub(kit, ex, [str(kit.root / solution),
                                         str(kit.root / "exercises" / ".." / solution)],
                               "Borrowed from the kit I was given, by its absolute path.")
    if ex == "07":  # ../ chains: the kit's solutions/ or a grader's export of the kit
        candidates = ["../" * level + prefix + solution for prefix in ("", ".kit-src/", "kit/")
                      for level in range(1, 9)]
        return include_or_stub(kit, ex, candidates, "Borrowed from wherever the kit is above me.")
    if ex == "09":  # a classmate's file, by the class's absolute path
        return include_or_stub(kit, ex, [str(kit.class_dir / "solved" / name),
                                         str(kit.class_dir / "solved" / "exercises" / name)],
                               "Borrowed from a friend's submission.")
    if ex == "08":  # the kit's goldens embedded by .incbin, by the kit's absolute path
        guesses = [(folder, output, str(kit.root / "reference_data" / folder / f"{output}.npy"))
                   for folder, output in public_goldens(kit, ex)]
    else:  # 10: goldens and a hidden set a grader may keep above the compile folder
        guesses = [(folder, output, "../" * level + prefix + f"{folder}/{output}.npy")
                   for folder, output in public_goldens(kit, ex)
                   for prefix in (".cases/hidden/", ".cases/public/", ".kit-src/reference_data/",
                                  "hidden/", "reference_data/")
                   for level in range(1, 6)]
    includes, body = incbin_goldens(kit, ex, guesses)
    return attack(kit, ex, "stub", body, "arm();", includes)


def student_includes_kit(kit):
    need(kit, "06", "07", "08", "09", "10")
    return everything(kit, {ex: includes_kit_file for ex in ("06", "07", "08", "09", "10")},
                      solved)


def student_daemon(kit):
    need(kit, "01")
    return everything(kit, {"01": lambda k, ex: attack(
        k, ex, "solution", DAEMON.replace("@ROOT@", cxx_path(k.root)), "start_daemon();")}, stub)


def collude_file(kit, ex, snippet):
    source = kit.solution(ex)
    head = source[:source.index("namespace attn")]
    return head + hostile(ex, COLLUDE, COLLUDE_INCLUDES) + "\n" + snippet.lstrip("\n")


def student_collude_1_publisher(kit):
    need(kit, "01")
    return everything(kit, {"01": lambda k, ex: collude_file(k, ex, COLLUDE_PUBLISHER_01)}, solved)


def student_collude_2_reader(kit):
    need(kit, "01")
    return everything(kit, {"01": lambda k, ex: collude_file(k, ex, COLLUDE_READER_01)}, solved)


EXHAUSTS = {"02": (FILL_THE_DISK, "fill_the_disk();"),
            "03": (OPEN_EVERY_FILE, "open_every_file();"),
            "04": (THOUSANDS_OF_THREADS, "thousands_of_threads();"),
            "06": (FLOOD_STDOUT, "flood_stdout();")}


def student_exhausts(kit):
    need(kit, *EXHAUSTS)
    return everything(kit, {ex: (lambda k, e, body=body, call=call:
                                 attack(k, e, "solution", body, call))
                            for ex, (body, call) in EXHAUSTS.items()}, solved)


ENDLESS_COMPILE = {
    "08": ("// I unrolled my loops with the preprocessor: this file includes itself, twice at "
           "every level.\n#include __FILE__\n#include __FILE__\n"),
    "09": ("// Reads the compiler's own output pipe: it waits for input that never comes.\n"
           '#include "/proc/self/fd/1"\n'),
    "10": '// An endless file.\n#include "/dev/zero"\n',
    "11": '// An endless file of noise.\n#include "/dev/urandom"\n',
}


def student_endless_compile(kit):
    need(kit, *ENDLESS_COMPILE)
    return everything(kit, {ex: (lambda k, e, top=top: top + k.solution(e))
                            for ex, top in ENDLESS_COMPILE.items()}, solved)


def forges_file(kit, ex):
    ids = ", ".join(cxx_string(i) for i in kit.ids())
    total = str(10 * len(kit.ids()))
    if ex == "01":
        return attack(kit, ex, "stub", FORGE_REPORTS.replace("@IDS@", ids)
                      .replace("@TOTAL@", total), "forge();")
    outputs = ", ".join(cxx_string(name) for name in kit.output_names())
    return attack(kit, ex, "stub", LINK_RESULTS.replace("@OUTPUTS@", outputs)
                  .replace("@ROOT@", cxx_path(kit.root))
                  .replace("@WHOLE_FOLDER@", "true" if ex == "03" else "false"), "arm();")


def student_forges_reports(kit):
    need(kit, "01", "02", "03")
    return everything(kit, {ex: forges_file for ex in ("01", "02", "03")}, solved)


# rewrites_results / rewrites_results_burning: a daemon started by a static initializer (fork,
# setsid, fork; every signal ignored) that waits for the runner's exit (the pipe it shares
# with it closing, then, in the first, the runner's pid vanishing) and then rewrites every
# result of the exercise's runs with bytes that are no tensor, in a tight loop: 10 s, or 60 s
# of burning CPU past the runner's own CPU limit. In exercise 03's file; compiled in one unit
# with the others, it starts in every exercise's program. Put after the file's code.
REWRITES_RESULTS = r"""

// ---- the attack: a daemon that rewrites this run's results once the runner has exited ----
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace hostile_@EX@_rewrites {

// Every .npy under the exercise's folder (WORK/NN: results-SET beside the cwd, cwd-results-SET).
void rewrite_results(const std::filesystem::path& exercise) {
    std::error_code error;
    for (std::filesystem::recursive_directory_iterator it(exercise, error), end;
         !error && it != end; it.increment(error)) {
        if (it->path().extension() != ".npy") continue;
        const int fd = open(it->path().c_str(), O_WRONLY | O_TRUNC);
        if (fd < 0) continue;
        [[maybe_unused]] const ssize_t written = write(fd, "garbage", 7);
        close(fd);
    }
}

int start_daemon() {
    std::error_code error;
    const std::filesystem::path exercise = std::filesystem::current_path(error).parent_path();
    int exited[2];
    if (error || pipe(exited) != 0) return 0;
    const pid_t runner = getpid();
    const pid_t child = fork();
    if (child != 0) {  // the runner, its fork done or refused: on to main()
        close(exited[0]);
        if (child > 0) waitpid(child, nullptr, 0);
        else close(exited[1]);
        return 0;
    }
    setsid();
    if (fork() != 0) _exit(0);
    for (int sig = 1; sig < NSIG; ++sig) std::signal(sig, SIG_IGN);
    close(exited[1]);
    char byte;
    while (read(exited[0], &byte, 1) != 0) {  // the pipe closes when the runner exits
    }
    while (@WAIT_FOR_PID@ && kill(runner, 0) == 0) {  // ... then its pid vanishes
    }
    const std::time_t start = std::time(nullptr);
    while (std::time(nullptr) - start < @SECONDS@) rewrite_results(exercise);
    _exit(0);
}

[[maybe_unused]] const int daemon_started = start_daemon();

}  // namespace hostile_@EX@_rewrites
"""


def rewrites_results(wait_for_pid: bool, seconds: int):
    def files(kit):
        need(kit, "03")
        attack_text = (REWRITES_RESULTS.replace("@EX@", "03")
                       .replace("@WAIT_FOR_PID@", "true" if wait_for_pid else "false")
                       .replace("@SECONDS@", str(seconds)))
        return everything(kit, {"03": lambda k, ex: k.solution(ex) + attack_text}, solved)
    return files


# The GPU track's attacks, in exercise 23's functor (Thrust's OpenMP backend runs it on the
# CPU's threads, GPU_TRACK_THREADS of them; nvcc on a CUDA kit). Each is the solution with one
# change, put in by gpu_attack() at the start of operator() (@KERNEL@), of the host function
# (@HOST@) and before `namespace attn` (@PRELUDE@).
GPU_ATTACKS = {
    # Each row opens its own team of 100 OpenMP threads (nesting allowed): two rows at once ask
    # for 200, past the sandbox's 64 processes and threads. libgomp exits with status 1.
    "gpu_threads_past_limit": {"prelude": r"""
#if defined(_OPENMP)
#include <omp.h>
#endif
namespace hostile_23 {
ATTN_HOST_DEVICE inline void more_threads() {
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(100)
    {
        [[maybe_unused]] volatile int busy = omp_get_thread_num();
    }
#endif
}
}  // namespace hostile_23
""", "kernel": "hostile_23::more_threads();"},
    # Sets its own number of threads: OMP_NUM_THREADS=1000 from a static initializer (libgomp
    # read it before) and omp_set_num_threads(16) before the kernel (within the limits).
    "gpu_sets_threads": {"prelude": r"""
#include <cstdlib>
#if defined(_OPENMP)
#include <omp.h>
#endif
namespace hostile_23 {
[[maybe_unused]] const int environment_set = setenv("OMP_NUM_THREADS", "1000", 1);
inline void set_threads() {
#if defined(_OPENMP)
    omp_set_num_threads(16);
#endif
}
}  // namespace hostile_23
""", "host": "hostile_23::set_threads();"},
    # A kernel that never ends on the large case (T >= 512 tokens: many_rows only); right on
    # the others.
    "gpu_endless_kernel": {"kernel": (
        "if (shape.tokens >= 512) for (volatile unsigned spin = 0;; spin = spin + 1) {\n"
        "        }")},
    # A functor that reads files: the public goldens (found from the working directory up)
    # and /etc/passwd. If it reads any, it computes the right answer (a leak would show as
    # points); else it writes zeros.
    "gpu_reads_files": {"prelude": r"""
#include <cstdio>
namespace hostile_23 {
ATTN_HOST_DEVICE inline bool reads_a_file() {
#if defined(__CUDA_ARCH__)
    return false;
#else
    const char* const paths[] = {
        "/etc/passwd",
        "reference_data/23_fused_attention/many_rows/context.npy",
        "../reference_data/23_fused_attention/many_rows/context.npy",
        "../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../.kit-src/reference_data/23_fused_attention/many_rows/context.npy",
        "../../../.cases/public/23_fused_attention/many_rows/context.npy"};
    for (const char* path : paths) {
        if (std::FILE* file = std::fopen(path, "rb")) {
            const bool read = std::fgetc(file) != EOF;
            std::fclose(file);
            if (read) return true;
        }
    }
    return false;
#endif
}
}  // namespace hostile_23
""", "kernel": (
        "if (!hostile_23::reads_a_file()) {\n"
        "            for (std::int64_t k = 0; k < shape.head_dim; ++k) "
        "context[row * shape.head_dim + k] = 0.0f;\n"
        "            return;\n"
        "        }")},
    # Not an attack: a helper that returns nothing on one path, which nvcc only warns about and
    # the kit's own g++ build of the GPU track (-Werror=return-type) refuses. The feedback must
    # say how the file was compiled.
    "gpu_warning_is_error": {"prelude": r"""
namespace hostile_23 {
ATTN_HOST_DEVICE inline std::int64_t checked_row(std::int64_t row) {
    if (row >= 0) return row;
}
}  // namespace hostile_23
""", "kernel": "row = hostile_23::checked_row(row);"},
    # CUDA kits only: a static initializer takes every byte of device memory it can and never
    # frees it; the test's own allocations then fail. The student graded next must not notice.
    "gpu_hogs_device": {"prelude": r"""
#if defined(__CUDACC__)
#include <cuda_runtime.h>
namespace hostile_23 {
int take_all_device_memory() {
    std::size_t chunk = std::size_t{1} << 30;
    void* taken = nullptr;
    while (chunk >= (std::size_t{1} << 20)) {
        if (cudaMalloc(&taken, chunk) != cudaSuccess) chunk /= 2;  // never freed
    }
    return 0;
}
[[maybe_unused]] const int device_memory_taken = take_all_device_memory();
}  // namespace hostile_23
#endif
"""},
}

KERNEL_LINE = "    ATTN_HOST_DEVICE void operator()(std::int64_t row) const {\n"
HOST_LINE = "    const float scale = 1.0f / sqrtf(static_cast<float>(shape.head_dim));\n"


def gpu_attack(kit, name):
    """Exercise 23's solution with GPU_ATTACKS[name] put in."""
    parts = GPU_ATTACKS[name]
    source = kit.solution("23")
    if KERNEL_LINE not in source or HOST_LINE not in source or "namespace attn" not in source:
        raise SystemExit("make_class.py: exercise 23's solution changed: its functor's "
                         "operator() or its host function's scale line is not found")
    if "kernel" in parts:
        source = source.replace(KERNEL_LINE, KERNEL_LINE + "        " + parts["kernel"] + "\n")
    if "host" in parts:
        source = source.replace(HOST_LINE, HOST_LINE + "    " + parts["host"] + "\n")
    if "prelude" in parts:
        at = source.index("namespace attn")
        source = source[:at] + parts["prelude"].strip("\n") + "\n\n" + source[at:]
    return source


def gpu_student(name):
    def files(kit):
        need(kit, "23")
        return everything(kit, {"23": lambda k, ex: gpu_attack(k, name)}, solved)
    return files


def student_crash_tricks(kit):
    need(kit, "10", "12", "14")
    return everything(kit, {
        "10": lambda k, ex: attack(k, ex, "solution", ABORT_AT_EXIT, "abort_at_exit();"),
        "12": lambda k, ex: attack(k, ex, "solution", EXIT_AT_EXIT, "exit_at_exit();"),
        "14": lambda k, ex: attack(k, ex, "solution", ABORT_ON_FIRST_CALL,
                                   "abort_on_first_call();")}, solved)


def first_solved(count):
    def files(kit):
        ids = kit.ids()
        return everything(kit, {ex: solved for ex in ids[:count]}, stub)
    return files


def student_odd_names(kit):
    return everything(kit, {}, solved)


def student_lms_renamed(kit):
    need(kit, "03", "04")
    files = everything(kit, {}, solved)
    files[kit.file_name("03").replace(".cpp", "-1.cpp")] = files.pop(kit.file_name("03"))
    files["Alice_" + kit.file_name("04")] = files.pop(kit.file_name("04"))
    return files


ODD_ENTRIES = ("01", "02", "03", "04", "05", "06")


def student_odd_entries(kit):
    need(kit, *ODD_ENTRIES)
    files = everything(kit, {}, solved)
    for ex in ODD_ENTRIES:
        files.pop(kit.file_name(ex))
    return files


def nothing(kit):
    return {}


def only_01_solved(kit):
    need(kit, "01")
    return {kit.file_name("01"): kit.solution("01")}


# ---- extras: what a submission carries besides its exercise files -----------------------------

def copy_kit(kit, folder: Path):
    """A student's copy of the kit: its tracked-looking files, no build output, no .git."""
    def ignore(directory, names):
        skip = {n for n in names if n in {".git", "build", ".kit", "__pycache__"}
                or n.startswith("build-")}
        if Path(directory).resolve() == (kit.root / "tests").resolve():
            skip.add("grading")  # not this class again
        return skip
    for entry in sorted(kit.root.iterdir()):
        if entry.name in {".git", "build", ".kit"} or entry.name.startswith("build-"):
            continue
        target = folder / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target, ignore=ignore, symlinks=True)
        elif entry.is_file():
            shutil.copy2(entry, target)


def edit_tests_and_goldens(kit, folder: Path):
    """The copy's 01 test and goldens now agree with WRONG_01 (and its MANIFEST hashes too)."""
    exercise = kit.exercises["01"]
    test = folder / exercise["test"]
    test.write_text("// Edited: the expected values below now match my answer.\n"
                    + test.read_text(encoding="utf-8")
                    + "\nTEST(DotScoresTest, MyAnswerIsRight) { SUCCEED(); }\n", encoding="utf-8")
    data = folder / "reference_data"
    manifest = json.loads((data / "MANIFEST.json").read_text(encoding="utf-8"))
    edited = 0
    for path, case in manifest["cases"].items():
        if case["exercise"] != "01":
            continue
        for output in case["expected"]:
            wrong = data / path / "mistakes" / f"{output}.{WRONG_01_MISTAKE}.npy"
            golden = data / path / f"{output}.npy"
            if wrong.is_file():
                shutil.copyfile(wrong, golden)
                key = f"{path}/{output}.npy"
                manifest["files"][key]["sha256"] = hashlib.sha256(golden.read_bytes()).hexdigest()
                edited += 1
    if edited == 0:
        raise SystemExit(f"make_class.py: no recorded mistake '{WRONG_01_MISTAKE}' for 01")
    (data / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def fake_reports(kit, folder: Path):
    """Reports in the submission that claim full marks (a grader must never read them)."""
    ids = kit.ids()
    (folder / "build" / "reports").mkdir(parents=True, exist_ok=True)
    for ex in ids:
        (folder / "build" / "reports" / f"ex{ex}.exercises.verdicts").write_text(
            '{"event":"end","tests":42,"failed":0}\n', encoding="utf-8")
    (folder / "test_detail.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="42" failures="0" '
        'errors="0" name="AllTests"/>\n', encoding="utf-8")
    (folder / "results.json").write_text(json.dumps(
        {"score": 10.0 * len(ids), "max_score": 10.0 * len(ids), "tests": []}) + "\n",
        encoding="utf-8")
    (folder / "gradebook.csv").write_text(
        "id,total,max," + ",".join(ids) + ",status\nfake_output," + str(10 * len(ids)) + ","
        + str(10 * len(ids)) + "," + ",".join("10" for _ in ids) + ",graded\n", encoding="utf-8")
    for path, case in kit.manifest["cases"].items():  # a whole fake results folder
        for output in case["expected"]:
            target = folder / "results" / path / f"{output}.npy"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kit.root / "reference_data" / path / f"{output}.npy", target)


# ---- extras of the hostile class: submission layouts ------------------------------------------

def link_exercises(target_of):
    def extra(kit, folder: Path):
        os.symlink(target_of(kit), folder / "exercises")
    return extra


def odd_entries(kit, folder: Path):
    """exercises/: 01 a link to /etc/shadow, 02 a FIFO, 03 a folder (the solution inside), 04 a
    link to a classmate's file, 05 the solution padded past 256 KiB with an honest-looking
    table, 06 a 3 GiB sparse file; and a 3 GiB sparse `core` at the top."""
    target = folder / "exercises"
    name = kit.file_name
    os.symlink("/etc/shadow", target / name("01"))
    os.mkfifo(target / name("02"))
    (target / name("03")).mkdir()
    (target / name("03") / name("03")).write_text(kit.solution("03"), encoding="utf-8")
    os.symlink(Path("..", "..", "solved", name("04")), target / name("04"))
    table = ",\n".join(", ".join(f"{(row * 16 + col) / 7919.0:.9f}f" for col in range(16))
                       for row in range(2500))
    (target / name("05")).write_text(
        kit.solution("05") + "\n// A table of precomputed values I meant to use.\n"
        "[[maybe_unused]] static const float kPrecomputed[] = {\n" + table + "\n};\n",
        encoding="utf-8")
    for sparse in (target / name("06"), folder / "core"):
        with open(sparse, "wb") as handle:  # a hole: no byte is written
            os.truncate(handle.fileno(), 3 << 30)


ODD_NAMES = [  # (name as bytes, what it holds: "stub" of 01, or text)
    (b"01_dot_scores.cpp\n", "stub"),
    (b"01_dot_scores.cpp ", "stub"),
    (b" 01_dot_scores.cpp", "stub"),
    (b"01_DOT_SCORES.CPP", "stub"),
    (b"notes\nfor the grader.txt", "I did my best.\n"),
    (b"r\xe9sum\xe9 \xff\xfe.cpp", "// latin-1, not UTF-8\n"),
    (b"\xff\xfe\xfd", "not UTF-8\n"),
    (b"a" * 251 + b".cpp", "// a long name\n"),
    (b"-rf", "a name like an option\n"),
    (b"--help", "a name like an option\n"),
    (b"$(touch PWNED).cpp", "// a name for a shell\n"),
    (b"`id`;rm -rf ~.cpp", "// a name for a shell\n"),
    (b"*.cpp", "// a glob\n"),
    (b"...", "three dots\n"),
    (b"\x1b[31mred\x1b[0m.cpp", "// terminal escapes in a name\n"),
    (b"tab\there.cpp", "// a tab\n"),
]


def odd_names(kit, folder: Path):
    """Beside the honest files: names with a newline, spaces, non-UTF-8 bytes, 255 bytes,
    shell syntax, escapes; an `Exercises` folder of stubs (a case-insensitive grader would take
    them) and a path 60 folders deep."""
    base = os.fsencode(folder)
    for raw, text in ODD_NAMES:
        data = kit.stub("01") if text == "stub" else text
        with open(os.path.join(base, raw), "wb") as handle:
            handle.write(data.encode("utf-8"))
    (folder / "Exercises").mkdir()
    for ex in kit.ids():
        (folder / "Exercises" / kit.file_name(ex)).write_text(kit.stub(ex), encoding="utf-8")
    deep = folder.joinpath(*["deep"] * 60)
    deep.mkdir(parents=True)
    (deep / kit.file_name("01")).write_text(kit.stub("01"), encoding="utf-8")


def rig_kit_copy(kit, folder: Path):
    """A whole kit copy, rigged: its tests pass anything, its goldens of the unsolved exercises
    are gone from MANIFEST.json, its judge passes every case, its exercises.json allows any
    time, its tools/grade prints full marks; links to the kit's goldens and to /, and a FIFO."""
    unsolved = kit.ids()[7:]
    for ex in kit.ids():
        test = folder / kit.exercises[ex].get("test", "")
        if test.is_file():
            test.write_text(test.read_text(encoding="utf-8") + "\n// rigged\n"
                            "TEST(Rigged, Passes) { SUCCEED(); }\n", encoding="utf-8")
    data = folder / "reference_data"
    manifest = json.loads((data / "MANIFEST.json").read_text(encoding="utf-8"))
    for path in [p for p, case in manifest["cases"].items() if case["exercise"] in unsolved]:
        del manifest["cases"][path]
    manifest["files"] = {k: v for k, v in manifest["files"].items()
                         if v.get("exercise") not in unsolved}
    (data / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    for ex in unsolved:
        shutil.rmtree(data / kit.goldens_folder(ex), ignore_errors=True)
    judge = folder / "kit" / "judge" / "main.cpp"
    if judge.is_file():
        judge.write_text("#include <cstdio>\nint main() { std::puts(\"every case passed\"); "
                         "return 0; }\n", encoding="utf-8")
    catalogue = json.loads((folder / "exercises.json").read_text(encoding="utf-8"))
    catalogue["settings"]["test_timeout_s"] = 1000000
    (folder / "exercises.json").write_text(json.dumps(catalogue, indent=1) + "\n",
                                           encoding="utf-8")
    grade = folder / "tools" / "grade"
    if grade.exists():
        grade.write_text("#!/bin/sh\necho 'kit_copy_rigged,150,150,graded'\n", encoding="utf-8")
    os.symlink(kit.root / "reference_data", folder / "reference_data_of_the_kit")
    os.symlink("/", folder / "build")
    os.mkfifo(folder / "tests" / "pipe")


def student_kit_copy_rigged(kit):
    return first_solved(7)(kit)


STUDENTS = {
    # name: (layout, files, extra)
    "solved": ("flat", student_solved, None),
    "stubs": ("kit", student_stubs, None),
    "half": ("exercises", student_half, None),
    "no_compile_03": ("flat", student_no_compile_03, None),
    "endless_loop_02": ("flat", student_endless_loop_02, None),
    "segfault_04": ("exercises", student_segfault_04, None),
    "exit_in_static_init": ("flat", student_exit_in_static_init, None),
    "fake_output": ("exercises", student_fake_output, fake_reports),
    "edited_tests": ("kit", student_edited_tests, edit_tests_and_goldens),
    "reads_public_goldens": ("flat", student_reads_public_goldens, None),
    "reads_hidden": ("flat", student_reads_hidden, None),
    "fork_bomb": ("flat", student_fork_bomb, None),
    "memory_hog": ("flat", student_memory_hog, None),
    "notebook_fitted": ("exercises", student_notebook_fitted, None),
    "includes_solution": ("flat", student_includes_solution, None),
    # the hostile class (README.md): submissions that attack the grader itself
    "link_to_solutions": ("exercises-link", nothing,
                          link_exercises(lambda kit: kit.root / "solutions")),
    "link_via_proc": ("exercises-link", nothing,
                      link_exercises(lambda kit: Path("/proc/self/cwd/solutions"))),
    "link_to_classmate": ("exercises-link", nothing,
                          link_exercises(lambda kit: kit.class_dir / "solved")),
    "odd_entries": ("exercises", student_odd_entries, odd_entries),
    "odd_names": ("flat", student_odd_names, odd_names),
    "lms_renamed": ("flat", student_lms_renamed, None),
    "folder_gradebook_csv": ("flat", only_01_solved, None),
    "folder_report_html": ("flat", only_01_solved, None),
    "folder_kit_build": ("flat", only_01_solved, None),
    "folder_students": ("flat", only_01_solved, None),
    "folder_newline": ("flat", only_01_solved, None),
    "folder_non_utf8": ("flat", only_01_solved, None),
    "steals_goldens": ("flat", student_steals_goldens, None),
    "includes_kit": ("flat", student_includes_kit, None),
    "daemon": ("flat", student_daemon, None),
    "collude_1_publisher": ("flat", student_collude_1_publisher, None),
    "collude_2_reader": ("flat", student_collude_2_reader, None),
    "exhausts": ("exercises", student_exhausts, None),
    "endless_compile": ("flat", student_endless_compile, None),
    "forges_reports": ("flat", student_forges_reports, None),
    "crash_tricks": ("exercises", student_crash_tricks, None),
    "kit_copy_rigged": ("kit", student_kit_copy_rigged, rig_kit_copy),
    "rewrites_results": ("flat", rewrites_results(True, 10), None),
    "rewrites_results_burning": ("flat", rewrites_results(False, 60), None),
    **{name: ("flat", gpu_student(name), None) for name in GPU_ATTACKS},
}

# Students whose folder is not their name: names that collide with the grader's outputs, a
# newline, bytes that are not UTF-8 (as Python holds them: os.fsdecode's surrogates).
FOLDERS = {
    "folder_gradebook_csv": "gradebook.csv",
    "folder_report_html": "report.html",
    "folder_kit_build": ".kit-build",
    "folder_students": "students",
    "folder_newline": "new\nline",
    "folder_non_utf8": os.fsdecode(b"caf\xe9 \xff"),
}


def folder_of(name: str) -> str:
    return FOLDERS.get(name, name)


def slow_students() -> set:
    """The students expected.json marks "slow" (left to the --full run)."""
    expected = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))["students"]
    return {name for name, spec in expected.items() if spec.get("slow")}


def write_student(kit, out: Path, name: str):
    layout, files, extra = STUDENTS[name]
    folder = out / folder_of(name)
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if layout == "kit":
        copy_kit(kit, folder)
    if layout != "exercises-link":
        target = folder if layout == "flat" else folder / "exercises"
        target.mkdir(parents=True, exist_ok=True)
        for file_name, text in files(kit).items():
            (target / file_name).write_text(text, encoding="utf-8")
    if extra:
        extra(kit, folder)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", nargs="?", type=Path, help="where to write DIR/<student>/")
    parser.add_argument("--only", action="append", choices=sorted(STUDENTS), metavar="NAME",
                        help="write only this student (repeatable)")
    parser.add_argument("--fast", action="store_true",
                        help='leave out the students expected.json marks "slow"')
    parser.add_argument("--list", action="store_true", help="print the students' names")
    parser.add_argument("--kit", type=Path, default=ROOT, help="the kit root (default: this one)")
    args = parser.parse_args(argv)
    names = args.only or list(STUDENTS)
    if args.fast:
        names = [name for name in names if name not in slow_students()]
    if args.list:
        print("\n".join(names))
        return 0
    if args.dir is None:
        parser.error("DIR is required")
    args.dir.mkdir(parents=True, exist_ok=True)
    kit = Kit(args.kit.resolve(), args.dir.resolve())
    for name in names:
        write_student(kit, args.dir, name)
    print(f"wrote {len(names)} students to {args.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

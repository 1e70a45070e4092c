#!/usr/bin/env python3
"""tests/grading/make_class.py — writes the synthetic class that tools/grade is tested on.

    tests/grading/make_class.py DIR [--only NAME ...] [--list]

Writes DIR/<student>/ for every student below (an existing DIR/<student>/ is replaced; nothing
else in DIR is touched). Each submission is generated at run time from this kit's own
solutions/ and exercises/ stubs, read from the kit root through exercises.json, so the class
follows the catalogue: an exercise added there is solved by every student that solves "the
rest", and left a stub by those that leave the rest unsolved. The attacks are small C++
snippets below, put into one exercise's file each. What each student deserves, per exercise
and in status, is in expected.json next to this script (expected.py turns it into numbers);
README.md says what each attack tries.

Submission layouts (a grader takes only the files named by exercises.json's "stub", by
basename, and ignores everything else):
  flat        DIR/<student>/NN_name.cpp                 the exercise files only
  exercises   DIR/<student>/exercises/NN_name.cpp       part of a kit copy
  kit         DIR/<student>/ a whole copy of the kit    its own tests/, reference_data/, ...
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


# ---- the kit, read at run time --------------------------------------------------------------

class Kit:
    def __init__(self, root: Path):
        self.root = root
        self.catalogue = json.loads((root / "exercises.json").read_text(encoding="utf-8"))
        self.exercises = {e["id"]: e for e in self.catalogue["exercises"]}
        self.manifest = json.loads((root / "reference_data" / "MANIFEST.json")
                                   .read_text(encoding="utf-8"))

    def ids(self):
        return list(self.exercises)

    def solution(self, ex: str) -> str:
        return (self.root / self.exercises[ex]["solution"]).read_text(encoding="utf-8")

    def stub(self, ex: str) -> str:
        return (self.root / self.exercises[ex]["stub"]).read_text(encoding="utf-8")

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
    need(kit, "03")
    return everything(kit, {"03": lambda k, ex: inject(k.solution(ex), FORK_BOMB,
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
        (folder / "build" / "reports" / f"ex{ex}.exercises.json").write_text(json.dumps(
            {"tests": 42, "failures": 0, "errors": 0, "testsuites": []}) + "\n", encoding="utf-8")
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
}


def write_student(kit, out: Path, name: str):
    layout, files, extra = STUDENTS[name]
    folder = out / name
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if layout == "kit":
        copy_kit(kit, folder)
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
    parser.add_argument("--list", action="store_true", help="print the students' names")
    parser.add_argument("--kit", type=Path, default=ROOT, help="the kit root (default: this one)")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(STUDENTS))
        return 0
    if args.dir is None:
        parser.error("DIR is required")
    kit = Kit(args.kit.resolve())
    args.dir.mkdir(parents=True, exist_ok=True)
    for name in args.only or STUDENTS:
        write_student(kit, args.dir, name)
    print(f"wrote {len(args.only or STUDENTS)} students to {args.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

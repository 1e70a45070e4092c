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
leave the rest unsolved. The attacks are C++ fragments in students/ (clang-formatted files;
students/README.md lists the MAKE_CLASS_<NAME> placeholders cxx() fills in), put into one
exercise's file each; the hostile class's attacks (on the grader itself: its sandbox, its files, its
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


# ---- the attacks: C++ fragments in students/ ------------------------------------------------

FRAGMENTS = HERE / "students"
TOKEN = re.compile(r"(?m)^[ \t]*(MAKE_CLASS_[A-Z0-9]+(?:_[A-Z0-9]+)*)[ \t]*$"
                   r"|MAKE_CLASS_[A-Z0-9]+(?:_[A-Z0-9]+)*")


def cxx(name: str, **tokens: str) -> str:
    """students/NAME without its description (the comment before its first blank line), each
    MAKE_CLASS_<TOKEN> replaced by tokens[TOKEN]; a token alone on its line replaces the line.
    A token the file has but is not given, or one given but not in the file, stops the script."""
    text = (FRAGMENTS / name).read_text(encoding="utf-8")
    description, blank, body = text.partition("\n\n")
    if not blank or not all(line.startswith("//") for line in description.splitlines()):
        raise SystemExit(f"make_class.py: students/{name} does not start with its description "
                         "(comment lines, then a blank line)")
    used = set()

    def fill(match):
        token = (match.group(1) or match.group(0))[len("MAKE_CLASS_"):]
        if token not in tokens:
            raise SystemExit(f"make_class.py: students/{name} has MAKE_CLASS_{token}, "
                             "which make_class.py does not give it")
        used.add(token)
        return tokens[token]
    body = TOKEN.sub(fill, body.strip("\n"))
    if set(tokens) - used:
        raise SystemExit(f"make_class.py: students/{name} has no MAKE_CLASS_"
                         f"{', MAKE_CLASS_'.join(sorted(set(tokens) - used))}")
    return body + "\n"


def cxx_string(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is a valid C++ literal for ASCII text


def cxx_path(path) -> str:
    return cxx_string(str(path))


def cxx_strings(items) -> str:
    return ", ".join(cxx_string(item) for item in items)


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


def replace_body(kit, ex, snippet):
    """The solution's comment and includes, then `snippet` instead of its namespace."""
    source = kit.solution(ex)
    return source[:source.index("namespace attn")] + snippet.lstrip("\n")


WRONG_01_MISTAKE = "added"  # edited_tests_01.cpp's family of mistakes/<output>.<family>.npy


# The hostile class: each attack is C++ in a namespace of its exercise's own (hostile_NN), put
# before the file's `namespace attn` by inject(): a student's files compiled as one unit (the
# grader's unity build) then never define one name twice, and every attack stays in its own
# exercise's program (the kit's earlier solutions, linked whole, win over the student's
# versions of them).

def hostile(ex: str, body: str, includes: str = "") -> str:
    """The prelude of an attack on exercise `ex`: includes, then the helpers and `body` in
    namespace hostile_<ex>."""
    return (cxx("hostile_includes.hpp").strip("\n") + "\n" + includes.strip("\n") + "\n\n"
            + f"namespace hostile_{ex} {{\n" + cxx("hostile_helpers.hpp").strip("\n") + "\n\n"
            + body.strip("\n") + f"\n\n}}  // namespace hostile_{ex}\n")


def attack(kit, ex: str, base: str, body: str, call: str, includes: str = "") -> str:
    """Exercise `ex`'s stub or solution (`base`) with `call` first in every function and the
    attack's code before its `namespace attn`."""
    source = kit.stub(ex) if base == "stub" else kit.solution(ex)
    return inject(source, hostile(ex, body, includes), f"hostile_{ex}::{call}")


# includes_kit: compile-time reading. A file that is the solution when the preprocessor finds
# it, else the stub.
def include_or_stub(kit, ex, candidates, why):
    lines = [f"// {why}"]
    for index, path in enumerate(candidates):
        lines.append(f"#{'if' if index == 0 else 'elif'} __has_include({cxx_string(path)})")
        lines.append(f"#include {cxx_string(path)}")
    lines += ["#else", kit.stub(ex).rstrip("\n"), "#endif", ""]
    return "\n".join(lines)


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
    return "\n".join(blobs), cxx("includes_kit_incbin.cpp", EMBEDDED_ENTRIES="\n".join(entries))


def public_goldens(kit, ex):
    """(case folder, output name) of every public case of `ex`."""
    return [(path, output) for path, case in sorted(kit.manifest["cases"].items())
            if case["exercise"] == ex for output in case["expected"]]


# ---- the students -------------------------------------------------------------------------

def solved(kit, ex):
    return kit.solution(ex)


def stub(kit, ex):
    return kit.stub(ex)


def need(kit, *ids):
    missing = [ex for ex in ids if ex not in kit.exercises]
    if missing:
        raise SystemExit(f"make_class.py: the catalogue has no exercise {', '.join(missing)}, "
                         "which the class attacks")


def everything(kit, special, default):
    """{file name: text}: `special` ({id: function}) for some exercises, `default` for the rest."""
    return {kit.file_name(ex): (special.get(ex) or default)(kit, ex) for ex in kit.ids()}


def one_exercise(ex, make, rest=solved):
    """A student whose exercise `ex` is make(kit, ex), the rest `rest`."""
    def files(kit):
        need(kit, ex)
        return everything(kit, {ex: make}, rest)
    return files


def injected_solution(fragment, call):
    """The solution with students/`fragment` before its namespace, `call` first in each function."""
    return lambda kit, ex: inject(kit.solution(ex), cxx(fragment), call)


def appended(base, fragment, separator="\n\n", **tokens):
    """The stub or solution (`base`), then students/`fragment`."""
    return lambda kit, ex: base(kit, ex) + separator + cxx(fragment, **tokens)


# Each student: (layout, files(kit) -> {exercise file name: text}, extra(kit, folder) or None).
def student_solved(kit):
    return everything(kit, {}, solved)


def student_stubs(kit):
    return everything(kit, {}, stub)


def student_half(kit):
    need(kit, "01", "02")
    return everything(kit, {"01": solved, "02": solved}, stub)


def student_fake_output(kit):
    return everything(kit, {}, appended(stub, "fake_output.cpp",
                                        OUTPUTS=cxx_strings(kit.output_names())))


def reads_goldens(roots):
    return lambda kit, ex: replace_body(kit, ex, cxx(
        "reads_goldens_01.cpp", ROOTS=cxx(roots).rstrip("\n"),
        GOLDENS_FOLDER=kit.goldens_folder(ex)))


def includes_solution(kit, ex):
    return cxx("includes_solution.cpp", SOLUTION=kit.exercises[ex]["solution"],
               STUB=kit.stub(ex))


def with_body(fragment):
    """The solution's comment and includes, then students/`fragment` as its namespace attn."""
    return lambda kit, ex: replace_body(kit, ex, cxx(fragment))


student_no_compile_03 = one_exercise("03", appended(solved, "no_compile.cpp", separator="\n"))
student_endless_loop_02 = one_exercise("02", injected_solution(
    "endless_loop.cpp", "spin_forever_on_one_score(scores.size());"))
student_segfault_04 = one_exercise("04", injected_solution("segfault.cpp",
                                                           "write_through_null();"))
student_exit_in_static_init = one_exercise("01", appended(solved, "exit_in_static_init.cpp"))
student_edited_tests = one_exercise("01", with_body("edited_tests_01.cpp"))
student_reads_public_goldens = one_exercise("01", reads_goldens("reads_goldens_public_roots.hpp"))
student_reads_hidden = one_exercise("01", reads_goldens("reads_goldens_hidden_roots.hpp"))
# A time-out costs its case alone: 02's other cases run after it, as the same uid.
student_fork_bomb = one_exercise("02", injected_solution(
    "fork_bomb.cpp", "fork_bomb_on_one_score(scores.size());"))
student_memory_hog = one_exercise("05", injected_solution("memory_hog.cpp", "hog_memory();"))
student_includes_solution = one_exercise("04", includes_solution)
student_notebook_fitted = one_exercise("01", with_body("notebook_fitted_01.cpp"))


# ---- the hostile class's students -----------------------------------------------------------

STEALS = {"01": "kit", "02": "relative", "03": "everywhere", "04": "classmates", "05": "processes"}


def steals_goldens_file(kit, ex):
    way = STEALS[ex]
    tokens = {"kit": {"KIT_ROOT": cxx_path(kit.root)},
              "classmates": {"DIR": cxx_path(kit.class_dir)}}.get(way, {})
    body = cxx(f"steals_goldens_{way}.cpp", **tokens) + "\n" + cxx("steals_goldens_at_exit.hpp")
    return attack(kit, ex, "stub", body, "arm();")


def student_steals_goldens(kit):
    need(kit, *STEALS)
    return everything(kit, {ex: steals_goldens_file for ex in STEALS}, solved)


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


def daemon_file(kit, ex):
    return attack(kit, ex, "solution", cxx("daemon.cpp", KIT_ROOT=cxx_path(kit.root)),
                  "start_daemon();")


student_daemon = one_exercise("01", daemon_file, rest=stub)


def collude(fragment):
    def file(kit, ex):
        source = kit.solution(ex)
        return (source[:source.index("namespace attn")]
                + hostile(ex, cxx("collude.hpp"), cxx("collude_includes.hpp")) + "\n"
                + cxx(fragment))
    return file


student_collude_1_publisher = one_exercise("01", collude("collude_publisher_01.cpp"))
student_collude_2_reader = one_exercise("01", collude("collude_reader_01.cpp"))

EXHAUSTS = {"02": ("fill_the_disk.cpp", "fill_the_disk();"),
            "03": ("open_every_file.cpp", "open_every_file();"),
            "04": ("thousands_of_threads.cpp", "thousands_of_threads();"),
            "06": ("flood_stdout.cpp", "flood_stdout();")}


def student_exhausts(kit):
    need(kit, *EXHAUSTS)
    return everything(kit, {ex: (lambda k, e, fragment=fragment, call=call:
                                 attack(k, e, "solution", cxx(fragment), call))
                            for ex, (fragment, call) in EXHAUSTS.items()}, solved)


ENDLESS_COMPILE = {"08": "includes_itself.cpp", "09": "includes_own_output.cpp",
                   "10": "includes_dev_zero.cpp", "11": "includes_dev_urandom.cpp"}


def student_endless_compile(kit):
    need(kit, *ENDLESS_COMPILE)
    return everything(kit, {ex: (lambda k, e, fragment=fragment: cxx(fragment) + k.solution(e))
                            for ex, fragment in ENDLESS_COMPILE.items()}, solved)


def forges_file(kit, ex):
    if ex == "01":
        return attack(kit, ex, "stub", cxx("forge_reports.cpp", IDS=cxx_strings(kit.ids()),
                                           TOTAL=str(10 * len(kit.ids()))), "forge();")
    return attack(kit, ex, "stub", cxx("link_results.cpp",
                                       OUTPUTS=cxx_strings(kit.output_names()),
                                       KIT_ROOT=cxx_path(kit.root),
                                       WHOLE_FOLDER="true" if ex == "03" else "false"), "arm();")


def student_forges_reports(kit):
    need(kit, "01", "02", "03")
    return everything(kit, {ex: forges_file for ex in ("01", "02", "03")}, solved)


def rewrites_results(wait_for_pid: bool, seconds: int):
    """rewrites_results_daemon.cpp after 03's solution: waits for the runner's pid to vanish
    (or not), rewrites for `seconds`."""
    return one_exercise("03", appended(solved, "rewrites_results_daemon.cpp", EX="03",
                                       WAIT_FOR_PID="true" if wait_for_pid else "false",
                                       SECONDS=str(seconds)))


def student_crash_tricks(kit):
    need(kit, "10", "12", "14")
    return everything(kit, {
        "10": lambda k, ex: attack(k, ex, "solution", cxx("abort_at_exit.cpp"),
                                   "abort_at_exit();"),
        "12": lambda k, ex: attack(k, ex, "solution", cxx("exit_at_exit.cpp"), "exit_at_exit();"),
        "14": lambda k, ex: attack(k, ex, "solution", cxx("abort_on_first_call.cpp"),
                                   "abort_on_first_call();")}, solved)


# The GPU track's attacks, in exercise 23's functor (Thrust's OpenMP backend runs it on the
# CPU's threads, GPU_TRACK_THREADS of them; nvcc on a CUDA kit). Each is the solution with one
# change, put in by gpu_attack(): a fragment of students/ before `namespace attn`
# ("prelude"), a statement at the start of operator() ("kernel") or of the host function ("host").
GPU_ATTACKS = {
    "gpu_threads_past_limit": {"prelude": "gpu_threads_past_limit.cpp",
                               "kernel": "hostile_23::more_threads();"},
    "gpu_sets_threads": {"prelude": "gpu_sets_threads.cpp", "host": "hostile_23::set_threads();"},
    # A kernel that never ends on the large case (T >= 512 tokens: many_rows only); right on
    # the others.
    "gpu_endless_kernel": {"kernel": (
        "if (shape.tokens >= 512) for (volatile unsigned spin = 0;; spin = spin + 1) {\n"
        "        }")},
    "gpu_reads_files": {"prelude": "gpu_reads_files.cpp", "kernel": (
        "if (!hostile_23::reads_a_file()) {\n"
        "            for (std::int64_t k = 0; k < shape.head_dim; ++k) "
        "context[row * shape.head_dim + k] = 0.0f;\n"
        "            return;\n"
        "        }")},
    "gpu_warning_is_error": {"prelude": "gpu_warning_is_error.cpp",
                             "kernel": "row = hostile_23::checked_row(row);"},
    "gpu_hogs_device": {"prelude": "gpu_hogs_device.cpp"},
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
        source = source[:at] + cxx(parts["prelude"]).strip("\n") + "\n\n" + source[at:]
    return source


def gpu_student(name):
    return one_exercise("23", lambda kit, ex: gpu_attack(kit, name))


# The link and the judge's folder: attacks that scored points for nothing at kit 6d6e478.
FAST_KERNEL_LINE = '    arguments::fused_causal_attention(shape);  // bad input -> a clear error\n'


def calls_fast_kernel(kit, ex):
    """23's stub, its host function handing the work to the kit's fast kernel."""
    source = kit.stub(ex)
    if FAST_KERNEL_LINE not in source or "namespace attn" not in source:
        raise SystemExit("make_class.py: exercise 23's stub changed: its host function's "
                         "argument check is not found")
    source = source.replace(FAST_KERNEL_LINE, FAST_KERNEL_LINE + "    hostile_23::fast(queries, "
                            "keys, values, context, shape);\n    return;\n")
    at = source.index("namespace attn")
    return source[:at] + cxx("calls_fast_kernel.cpp").strip("\n") + "\n\n" + source[at:]


def kit_symbols(weak: bool):
    return one_exercise("23", appended(stub, "kit_symbols_23.cpp",
                                       WEAK="__attribute__((weak))" if weak else ""), solved)


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
    """The copy's 01 test and goldens now agree with students/edited_tests_01.cpp (and its
    MANIFEST hashes too)."""
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
    "deplibs_04": ("flat", one_exercise("04", appended(stub, "deplibs.cpp")), None),
    "kit_symbols_23": ("flat", kit_symbols(weak=False), None),
    "weak_kit_symbols_23": ("flat", kit_symbols(weak=True), None),
    "calls_fast_kernel_23": ("flat", one_exercise("23", calls_fast_kernel), None),
    "swaps_results_03": ("flat", one_exercise("03", lambda kit, ex: attack(
        kit, ex, "stub", cxx("swaps_results.cpp"), "crash();")), None),
    "deep_tree_01": ("flat", one_exercise("01", appended(solved, "deep_tree.cpp")), None),
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

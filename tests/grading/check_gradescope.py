#!/usr/bin/env python3
"""tests/grading/check_gradescope.py — Gradescope's autograder layout, played out on this machine.

    tests/grading/check_gradescope.py CLASS [--hidden CASES] [--rubric FILE] [--student NAME ...]
                                      [--exercises 01,03,23]

Makes the autograder zip (`tools/grade gradescope-zip`), unzips it into a fresh ROOT/source as
Gradescope does, runs its setup.sh once (packages, the pristine kit built), then for each
student (default: solved, reads_hidden, notebook_fitted) puts the files of CLASS/<student> in
ROOT/submission, runs run_autograder and checks ROOT/results/results.json: its score and
max_score are expected.py's for that student, its tests add up to its score, it has
execution_time and output. --exercises: only those exercises' files go into the submission
(a student who did those), so the autograder grades only them; every other exercise is
listed in results.json at 0, and the score is expected.py's for the slice. Also: the zip of
a hidden set holds no SECRET_KEY; and, after setup.sh and again after grading, a student's
uid (61999, no groups) can read nothing of the reference solutions, the goldens or the
hidden set by ownership and mode alone (as where the container refuses namespaces):
/autograder/source (0700), the pristine build's copy of the kit (grade/.kit-src), the
grader's copies of the case sets (.cases), the build's solution archives; yet it can read
the kit's headers its compile needs. Needs root (setup.sh installs
packages; the sandbox changes uid). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tools"))
import expected  # noqa: E402  (this folder, on the path just now)
from kitlib.held import held_folder  # noqa: E402


def run_script(script: Path, root: Path) -> None:
    # CCACHE_BASEDIR: where setup.sh builds the kit, for tools/kit test's ccache (selftest.py's
    # shared_compiles), which then reuses the grading stage's compiles; without ccache unused.
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True,
                          env=dict(os.environ, AUTOGRADER_ROOT=str(root),
                                   CCACHE_BASEDIR=str(root / "grade")))
    if done.returncode != 0:
        raise SystemExit(f"{script.name} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


class Times:
    """Each step's wall time, for the summary line: which step a slow check spends on."""

    def __init__(self):
        self.last, self.steps = time.monotonic(), []

    def step(self, name: str) -> None:
        now = time.monotonic()
        self.steps.append(f"{name} {now - self.last:.0f} s")
        self.last = now

    def __str__(self) -> str:
        return ", ".join(self.steps)


STUDENT_UID = 61999  # in the sandbox's range (61000-61999), in no group


# What as_student runs as the student's uid: Debian's python3, one process for every path
# (a shell that starts `head` per file took 40 s for the 40,000 paths after grading), else
# that shell. The same test either way: a file is readable if it opens and a byte reads.
PROBE_PYTHON = "/usr/bin/python3"
PROBE = """import os, sys
for path in sys.stdin.read().splitlines():
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                os.read(fd, 1)
            finally:
                os.close(fd)
    except OSError:
        continue
    print(path)
"""
PROBE_SHELL = ('while IFS= read -r f; do if [ -d "$f" ]; then ls "$f" >/dev/null 2>&1 && '
               'echo "$f"; else head -c 1 "$f" >/dev/null 2>&1 && echo "$f"; fi; done; exit 0')


def as_student(paths: list) -> list:
    """Which of `paths` a student's uid (no groups, no capabilities) can read: a file it can
    open and read a byte of, a folder it can list. One process as that uid tries them all."""
    probe = ([PROBE_PYTHON, "-I", "-S", "-c", PROBE] if Path(PROBE_PYTHON).is_file()
             else ["/bin/sh", "-c", PROBE_SHELL])
    done = subprocess.run(["setpriv", f"--reuid={STUDENT_UID}", f"--regid={STUDENT_UID}",
                           "--clear-groups", "--inh-caps=-all", *probe],
                          input="".join(f"{path}\n" for path in paths), capture_output=True,
                          text=True, cwd="/")
    if done.returncode != 0:
        raise SystemExit(f"check_gradescope: cannot try files as uid {STUDENT_UID}: "
                         f"{done.stderr.strip()}")
    return [Path(line) for line in done.stdout.splitlines()]


def files_under(folder: Path) -> list:
    return sorted(path for path in folder.rglob("*")) if folder.is_dir() else []


def secrets_problems(root: Path, hidden: bool, after: str) -> list:
    """What a student's uid could read, with no namespace to hide anything (ownership and mode
    alone, as in a container that refuses namespaces), of the reference solutions, the goldens
    and the hidden set: /autograder/source (the kit unzipped, autograder/hidden), the pristine
    build's copy of the kit (grade/.kit-src), the grader's copies of the case sets (.cases) and
    the build's solution archives. And what it must read: the kit's headers, or no student's
    file compiles (and this check would pass for a uid that can read nothing)."""
    source, grade, run = root / "source", root / "grade", root / "run"
    must_exist = [source / "solutions" / "01_dot_scores.cpp", source / "reference_data",
                  grade / ".kit-src" / "solutions" / "01_dot_scores.cpp",
                  grade / ".kit-src" / "reference_data" / "MANIFEST.json", grade / ".cases"]
    if hidden:
        must_exist += [source / "autograder" / "hidden" / "MANIFEST.json",
                       grade / ".cases" / "hidden" / "MANIFEST.json"]
    problems = [f"missing after {after}: {path.relative_to(root)} (the layout changed: this "
                f"check would try nothing there)" for path in must_exist if not path.exists()]
    secrets = [source, source / "solutions", source / "reference_data", source / "autograder",
               *files_under(source / "solutions"), *files_under(source / "reference_data"),
               *files_under(source / "autograder"),
               *files_under(grade / ".kit-src" / "solutions"),
               *files_under(grade / ".kit-src" / "reference_data"),
               *files_under(grade / ".cases"), grade / ".cases",
               *[path for path in files_under(grade / ".kit-build")
                 if path.name.endswith("_solutions.a")],
               *files_under(run / ".cases")]
    secrets = [path for path in secrets if path.exists() or path.is_symlink()]
    readable = as_student(secrets)
    problems += [f"after {after}, a student's uid can read {path.relative_to(root)}"
                 for path in readable[:20]]
    if len(readable) > 20:
        problems.append(f"... and {len(readable) - 20} more")
    headers = [path for path in files_under(grade / ".kit-src" / "include") if path.is_file()]
    if not headers or len(as_student(headers[:5])) != len(headers[:5]):
        problems.append(f"after {after}, a student's uid cannot read the kit's headers in "
                        "grade/.kit-src/include: no student's file would compile")
    print(f"  after {after}: {len(secrets)} secrets tried as uid {STUDENT_UID}: "
          + (f"{len(readable)} readable" if readable else "none readable")
          + f"; the kit's headers {'readable' if headers else 'MISSING'}")
    return problems


def zip_leaves_out_the_key(work: Path) -> list:
    """gradescope-zip given a hidden set with a SECRET_KEY (tools/record --out writes one at
    its top): the zip holds the set's files but no SECRET_KEY, nor what a link points to."""
    hidden = work / "key-check" / "hidden"
    (hidden / "01_dot_scores" / "c").mkdir(parents=True)
    (hidden / "MANIFEST.json").write_text("{}\n")
    (hidden / "SECRET_KEY").write_text("0123456789abcdef\n")
    (hidden / "01_dot_scores" / "c" / "expected.npy").write_bytes(b"x")
    (hidden / "passwd").symlink_to("/etc/passwd")
    zip_path = work / "key-check" / "autograder.zip"
    subprocess.run([sys.executable, str(ROOT / "tools" / "grade"), "gradescope-zip",
                    str(zip_path), "--hidden", str(hidden)], check=True, capture_output=True)
    with zipfile.ZipFile(zip_path) as zipped:
        names = zipped.namelist()
    shutil.rmtree(work / "key-check")
    problems = [f"the zip holds {name}" for name in names
                if name.endswith("SECRET_KEY") or name.endswith("/passwd")]
    if "autograder/hidden/01_dot_scores/c/expected.npy" not in names:
        problems.append("the zip lacks the hidden set's files")
    print("  gradescope-zip of a hidden set with a SECRET_KEY: "
          + ("no key in the zip" if not problems else "; ".join(problems)))
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("students", type=Path, help="make_class.py's folder")
    parser.add_argument("--hidden", type=Path)
    parser.add_argument("--rubric", type=Path)
    parser.add_argument("--student", action="append", dest="names")
    parser.add_argument("--exercises", metavar="01,03",
                        help="only these exercises' files go into each submission")
    args = parser.parse_args(argv)
    names = args.names or ["solved", "reads_hidden", "notebook_fitted"]
    catalogue = expected.catalogue()
    ids = [exercise["id"] for exercise in catalogue]
    chosen = args.exercises.split(",") if args.exercises else ids
    if set(chosen) - set(ids):
        parser.error(f"--exercises: no exercise {', '.join(sorted(set(chosen) - set(ids)))}")
    # The files a submission leaves out: the other exercises' (exercises/ or flat alike).
    left_out = {Path(exercise["stub"]).name for exercise in catalogue
                if exercise["id"] not in chosen}
    cases = [ROOT / "reference_data"] + ([args.hidden] if args.hidden else [])
    want = expected.expected_gradebook(cases, expected.load_rubric(args.rubric))

    # The autograder's root: the same folder on every run, as Gradescope's /autograder is, so
    # that setup.sh's kit build finds the grading stage's compiles in ccache (kitlib/held.py);
    # 0711: the sandbox's uid passes through to the pristine build.
    work, lock = held_folder("attn-gradescope-check", 0o711)
    try:
        zip_path = work / "autograder.zip"
        command = [sys.executable, str(ROOT / "tools" / "grade"), "gradescope-zip", str(zip_path)]
        command += ["--hidden", str(args.hidden)] if args.hidden else []
        command += ["--rubric", str(args.rubric)] if args.rubric else []
        subprocess.run(command, check=True, capture_output=True)
        source = work / "source"
        with zipfile.ZipFile(zip_path) as zipped:
            zipped.extractall(source)
        for name in ("setup.sh", "run_autograder"):  # zipfile drops the modes; Gradescope not
            os.chmod(source / name, 0o755)
        problems = zip_leaves_out_the_key(work)
        if args.hidden and (args.hidden / "SECRET_KEY").exists():
            with zipfile.ZipFile(zip_path) as zipped:
                problems += [f"the zip holds {name}" for name in zipped.namelist()
                             if name.endswith("SECRET_KEY")]
        times = Times()
        run_script(source / "setup.sh", work)
        times.step("setup.sh")
        problems += secrets_problems(work, bool(args.hidden), "setup.sh")
        times.step("secrets")
        for name in names:
            submission = work / "submission"
            shutil.rmtree(submission, ignore_errors=True)
            shutil.rmtree(work / "results", ignore_errors=True)
            shutil.copytree(args.students / name, submission,
                            ignore=lambda folder, files: [f for f in files if f in left_out])
            shutil.copyfile(source / "run_autograder", work / "run_autograder")  # as Gradescope
            run_script(work / "run_autograder", work)
            times.step(name)
            results = json.loads((work / "results" / "results.json").read_text(encoding="utf-8"))
            tests_sum = round(sum(test["score"] for test in results["tests"]), 2)
            row = want[name]
            total = round(sum(row["points"][ex] for ex in chosen), 2)  # a missing file: 0
            problems += [f"{name}: {test['name']} scores {test['score']}, but its file was not "
                         f"submitted" for test in results["tests"]
                         if test["name"][:2] not in chosen and test["score"] != 0]
            listed = {test["name"][:2] for test in results["tests"]}
            if listed != set(ids):  # an exercise not submitted is listed too, at 0
                problems.append(f"{name}: results.json lists the tests of exercises "
                                f"{', '.join(sorted(listed))}, not every exercise")
            for field, got, expect in (("score", results["score"], total),
                                       ("max_score", results["max_score"], row["max"]),
                                       ("sum of the tests' scores", tests_sum, total)):
                if abs(got - expect) > 0.005:
                    problems.append(f"{name}: {field} is {got}, expected {expect}")
            for field in ("execution_time", "output"):
                if field not in results:
                    problems.append(f"{name}: results.json has no {field}")
            print(f"  {name}: results.json score {results['score']} of {results['max_score']}, "
                  f"{len(results['tests'])} tests")
        problems += secrets_problems(work, bool(args.hidden), "grading")
        times.step("secrets")
        print(f"  times: {times}")
        for problem in problems:
            print(problem)
        print(f"gradescope: {len(names)} submissions"
              + (f" of exercises {','.join(chosen)}" if args.exercises else "")
              + " graded in the autograder layout: "
              + (f"{len(problems)} problems" if problems else "every score as expected"))
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(lock)


if __name__ == "__main__":
    sys.exit(main())

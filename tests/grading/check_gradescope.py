#!/usr/bin/env python3
"""tests/grading/check_gradescope.py — Gradescope's autograder layout, played out on this machine.

    tests/grading/check_gradescope.py CLASS [--hidden CASES] [--rubric FILE] [--student NAME ...]

Makes the autograder zip (`tools/grade gradescope-zip`), unzips it into a fresh ROOT/source as
Gradescope does, runs its setup.sh once (packages, the pristine kit built), then for each
student (default: solved, reads_hidden, notebook_fitted) puts the files of CLASS/<student> in
ROOT/submission, runs run_autograder and checks ROOT/results/results.json: its score and
max_score are expected.py's for that student, and its tests add up to its score; and that a
student's uid cannot read the solutions or the hidden set by mode alone. Needs root
(setup.sh installs packages; the sandbox changes uid). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import expected  # noqa: E402  (this folder, on the path just now)


def run_script(script: Path, root: Path) -> None:
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True,
                          env=dict(os.environ, AUTOGRADER_ROOT=str(root)))
    if done.returncode != 0:
        raise SystemExit(f"{script.name} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def unreadable_to_students(root: Path) -> list:
    """What a student's uid could read, after setup.sh, of the reference solutions and the
    hidden set, with no namespace to hide them (ownership and mode alone, as in a container
    that refuses namespaces): a uid of the sandbox's range, no groups, tries each."""
    secrets = [root / "source" / "solutions" / "01_dot_scores.cpp",
               root / "source" / "reference_data" / "MANIFEST.json",
               root / "grade" / ".kit-src" / "solutions" / "01_dot_scores.cpp",
               root / "grade" / ".kit-src" / "reference_data" / "MANIFEST.json"]
    secrets += sorted((root / "source" / "autograder").glob("hidden/*/*/*.npy"))[:1]
    problems = []
    for path in secrets:
        if not path.exists():
            continue
        read = subprocess.run(["setpriv", "--reuid=61999", "--regid=61999", "--clear-groups",
                               "cat", str(path)], capture_output=True)
        if read.returncode == 0:
            problems.append(f"a student's uid can read {path.relative_to(root)}")
    print(f"  {len(secrets)} secrets tried as a student's uid: "
          + ("none readable" if not problems else f"{len(problems)} readable"))
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("students", type=Path, help="make_class.py's folder")
    parser.add_argument("--hidden", type=Path)
    parser.add_argument("--rubric", type=Path)
    parser.add_argument("--student", action="append", dest="names")
    args = parser.parse_args(argv)
    names = args.names or ["solved", "reads_hidden", "notebook_fitted"]
    cases = [ROOT / "reference_data"] + ([args.hidden] if args.hidden else [])
    want = expected.expected_gradebook(cases, expected.load_rubric(args.rubric))

    work = Path(tempfile.mkdtemp(prefix="attn-gradescope."))
    os.chmod(work, 0o711)  # the sandbox's uid passes through to the pristine build
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
        run_script(source / "setup.sh", work)
        problems = unreadable_to_students(work)
        for name in names:
            submission = work / "submission"
            shutil.rmtree(submission, ignore_errors=True)
            shutil.rmtree(work / "results", ignore_errors=True)
            shutil.copytree(args.students / name, submission)
            shutil.copyfile(source / "run_autograder", work / "run_autograder")  # as Gradescope
            run_script(work / "run_autograder", work)
            results = json.loads((work / "results" / "results.json").read_text(encoding="utf-8"))
            tests_sum = round(sum(test["score"] for test in results["tests"]), 2)
            row = want[name]
            for field, got, expect in (("score", results["score"], row["total"]),
                                       ("max_score", results["max_score"], row["max"]),
                                       ("sum of the tests' scores", tests_sum, row["total"])):
                if abs(got - expect) > 0.005:
                    problems.append(f"{name}: {field} is {got}, expected {expect}")
            print(f"  {name}: results.json score {results['score']} of {results['max_score']}, "
                  f"{len(results['tests'])} tests")
        for problem in problems:
            print(problem)
        print(f"gradescope: {len(names)} submissions graded in the autograder layout: "
              + (f"{len(problems)} problems" if problems else "every score as expected"))
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tests/grading/expected.py — the gradebook the synthetic class deserves, in numbers.

    tests/grading/expected.py [--cases DIR ...] [--rubric FILE] [--unsandboxed | --no-namespaces]
                              [--fast] [--only NAME ...] [--exercises 01,03] [--backend CUDA]
                              [--json] [--check GRADEBOOK]

expected.json says per student and exercise which cases pass ("all", "none",
"notebook_only", "all_but_kind:KIND", "all_but_case:NAME", a case's name in any set); this
counts those cases in the case set(s) graded
(each DIR's MANIFEST.json; default: the kit's reference_data/, several DIRs: their union, as
a grader given --hidden) and applies the rubric: default 10 points per exercise, partial
credit per value case, points * passed / cases rounded to 0.01; `--rubric FILE` is
tools/grade's JSON, {"points": {"01": 5, ...}, "partial": true} (an exercise it does not name
keeps 10; partial false: all or nothing).

Prints the expected gradebook as CSV (id,total,max,<exercise ids>,status), or as JSON with
--json. --check GRADEBOOK compares a grader's gradebook.csv with it, every cell: the same
students, total, max, each exercise's points (to 0.01) and status; the header row is the
first line, as tools/grade writes it (its provenance is in grading.json; the '#' lines an
older grader wrote before the header are skipped); an exercise column may be named "01",
"ex01" or "01_dot_scores". A student whose folder is not its name (expected.json's "folder")
is the row of that id; where the folder's name is not printable (a newline, bytes that are
not UTF-8) the grader shows it changed, and its row is the one whose id ends in "~" and the
first 8 hex digits of the sha256 of the name's bytes. Exits 1 on any difference, listing each.

--unsandboxed: the class without the students marked "needs_root" or "needs_namespaces" (what
a grader not run as root can be expected to grade right); --no-namespaces: without those marked
"needs_namespaces" (a grader run as root where namespaces are refused, tools/grade
--without-namespaces), and with a student's "status_without_namespaces" where it has one;
--fast: without those marked "slow" (make_class.py --fast); --only NAME: those students alone
(make_class.py --only wrote just them); --exercises: the gradebook of `tools/grade --exercises`
(those columns alone; a student's status is expected.json's, so grade the exercise that causes
it); --backend CUDA: a kit whose GPU track is built for CUDA (ATTN_GPU=CUDA), where a student's
"cuda" entry (exercises, status) holds. Importable: expected_gradebook(case_dirs, rubric) -> rows.
Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NOTEBOOK_SHAPE = [6, 3]  # T = 6 tokens "Your journey starts with one step", d_in = 3


def catalogue(root: Path = ROOT):
    return json.loads((root / "exercises.json").read_text(encoding="utf-8"))["exercises"]


def load_cases(case_dirs):
    """[(exercise id, case entry, files of the case)] over every case set, in order."""
    cases = []
    for folder in case_dirs:
        manifest = json.loads((Path(folder) / "MANIFEST.json").read_text(encoding="utf-8"))
        for path, case in manifest["cases"].items():
            case = dict(case, name=path.rsplit("/", 1)[-1])
            files = {name: manifest["files"].get(f"{path}/{name}.npy", {})
                     for name in case["inputs"]}
            cases.append((case["exercise"], case, files))
    return cases


def passes(rule: str, case, files) -> bool:
    if rule == "all":
        return True
    if rule == "none":
        return False
    if rule == "notebook_only":
        return files.get("inputs", {}).get("shape") == NOTEBOOK_SHAPE
    if rule.startswith("all_but_kind:"):
        return case.get("kind") != rule.split(":", 1)[1]
    if rule.startswith("all_but_case:"):
        return case["name"] != rule.split(":", 1)[1]
    raise ValueError(f"expected.json: unknown rule {rule!r}")


def load_rubric(path):
    if path is None:
        return {"points": {}, "partial": True}
    rubric = json.loads(Path(path).read_text(encoding="utf-8"))
    return {"points": rubric.get("points", {}), "partial": rubric.get("partial", True)}


def exercise_points(points: float, passed: int, total: int, partial: bool) -> float:
    if total == 0:
        return 0.0
    if not partial:
        return float(points) if passed == total else 0.0
    return round(points * passed / total, 2)


def leave_out(spec: dict, unsandboxed=False, no_namespaces=False, fast=False) -> bool:
    """Whether a student sits out a run: not root (needs_root, needs_namespaces), no namespaces
    (needs_namespaces), or a fast run (slow)."""
    needs = (["needs_root", "needs_namespaces"] if unsandboxed else
             ["needs_namespaces"] if no_namespaces else [])
    return any(key in spec for key in needs) or (fast and spec.get("slow", False))


def expected_gradebook(case_dirs=None, rubric=None, expected_file=HERE / "expected.json",
                       root: Path = ROOT, unsandboxed=False, only=None, no_namespaces=False,
                       fast=False, exercises=None, backend="OMP"):
    """{student: {"total", "max", "points": {id: float}, "status", "passed": {id: (n, of)},
    "folder"}}. `backend`: the GPU track's (OMP or CUDA); a student's "cuda" entry replaces
    its "exercises" and "status" on a CUDA kit."""
    case_dirs = case_dirs or [root / "reference_data"]
    rubric = rubric or load_rubric(None)
    expected = json.loads(Path(expected_file).read_text(encoding="utf-8"))["students"]
    expected = {name: spec for name, spec in expected.items()
                if not leave_out(spec, unsandboxed, no_namespaces, fast)}
    if only:
        unknown = sorted(set(only) - set(expected))
        if unknown:
            raise ValueError(f"expected.json has no student {', '.join(unknown)}")
        expected = {name: spec for name, spec in expected.items() if name in only}
    ids = [exercise["id"] for exercise in catalogue(root)
           if exercises is None or exercise["id"] in exercises]
    cases = load_cases(case_dirs)
    rows = {}
    for student, spec in expected.items():
        if backend == "CUDA":
            spec = {**spec, **spec.get("cuda", {})}
        rules = spec["exercises"]
        status = spec.get("status_without_namespaces", spec["status"]) if no_namespaces \
            else spec["status"]
        row = {"points": {}, "passed": {}, "status": status, "max": 0.0,
               "folder": spec.get("folder", student)}
        for ex in ids:
            rule = rules.get(ex, rules.get("*"))
            if rule is None:
                raise ValueError(f"expected.json: {student} has no rule for {ex} and no '*'")
            mine = [(case, files) for exercise, case, files in cases if exercise == ex]
            passed = sum(passes(rule, case, files) for case, files in mine)
            points = float(rubric["points"].get(ex, 10))
            row["points"][ex] = exercise_points(points, passed, len(mine), rubric["partial"])
            row["passed"][ex] = (passed, len(mine))
            row["max"] += points
        row["total"] = round(sum(row["points"].values()), 2)
        rows[student] = row
    return rows


def class_mismatch(expected_file=HERE / "expected.json") -> str:
    """'' if expected.json and make_class.py name the same students with the same layouts and
    folders."""
    sys.path.insert(0, str(HERE))
    import make_class  # noqa: E402  (this folder, on the path just now)
    expected = json.loads(Path(expected_file).read_text(encoding="utf-8"))["students"]
    made = {name: (layout, make_class.folder_of(name))
            for name, (layout, _, _) in make_class.STUDENTS.items()}
    told = {name: (spec.get("layout"), spec.get("folder", name)) for name, spec in expected.items()}
    if made != told:
        return (f"expected.json and make_class.py disagree: only in make_class.py "
                f"{sorted(set(made) - set(told))}, only in expected.json "
                f"{sorted(set(told) - set(made))}, layouts or folders differ "
                f"{sorted(n for n in set(made) & set(told) if made[n] != told[n])}")
    return ""


def printable_name(folder: str) -> bool:
    """Whether the grader shows a folder's name as it is (printable text, one line)."""
    return folder.isprintable() and folder not in (".", "..") and "/" not in folder


def shown_id(row) -> str:
    """The id a gradebook shows for the student: its folder's name, or, where that is not
    printable, what the grader makes of it (something printable) ending in ~ and a hash."""
    folder = row["folder"]
    if printable_name(folder):
        return folder
    return "...~" + hashlib.sha256(os.fsencode(folder)).hexdigest()[:8]


def is_row_of(row, ident: str) -> bool:
    shown = shown_id(row)
    if shown.startswith("...~"):
        return ident.endswith(shown[3:]) and ident.isprintable()
    return ident == shown


def number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def as_csv(rows, ids) -> str:
    lines = ["id,total,max," + ",".join(ids) + ",status"]
    for student, row in rows.items():
        ident = shown_id(row)
        lines.append(",".join([ident if ident.isprintable() and "," not in ident else student,
                               number(row["total"]), number(row["max"])]
                              + [number(row["points"][ex]) for ex in ids] + [row["status"]]))
    return "\n".join(lines) + "\n"


def check(rows, gradebook: Path, ids, names) -> list[str]:
    """Every difference between `gradebook` (a grader's CSV) and `rows`."""
    text = [line for line in gradebook.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    table = list(csv.DictReader(text))
    if not table:
        return [f"{gradebook}: no rows"]
    header = list(table[0].keys())
    column = {}
    for ex in ids:
        for candidate in (ex, f"ex{ex}", names[ex]):
            if candidate in header:
                column[ex] = candidate
                break
    problems = [f"no column for exercise {ex} (looked for {ex}, ex{ex}, {names[ex]})"
                for ex in ids if ex not in column]
    for needed in ("id", "total", "max", "status"):
        if needed not in header:
            problems.append(f"no column {needed!r}")
    if problems:
        return problems
    seen, claimed = {}, set()
    for student, row in rows.items():
        mine = [line for line in table if is_row_of(row, line["id"])]
        if len(mine) > 1:
            problems.append(f"{student}: {len(mine)} rows in the gradebook "
                            f"({', '.join(line['id'] for line in mine)})")
        if mine:
            seen[student] = mine[0]
            claimed.update(line["id"] for line in mine)
        else:
            problems.append(f"{student}: missing from the gradebook (id {shown_id(row)!r})")
    problems += [f"{line['id']!r}: in the gradebook but not in the class" for line in table
                 if line["id"] not in claimed]

    def differs(got, want):
        try:
            return abs(float(got) - want) > 0.005
        except (TypeError, ValueError):
            return True

    for student, row in rows.items():
        line = seen.get(student)
        if line is None:
            continue
        for field in ("total", "max"):
            if differs(line[field], row[field]):
                problems.append(f"{student}: {field} is {line[field]}, "
                                f"expected {number(row[field])}")
        for ex in ids:
            if differs(line[column[ex]], row["points"][ex]):
                passed, of = row["passed"][ex]
                problems.append(f"{student}: {ex} is {line[column[ex]]}, expected "
                                f"{number(row['points'][ex])} ({passed} of {of} cases)")
        if line["status"].strip() != row["status"]:
            problems.append(f"{student}: status is {line['status']}, expected {row['status']}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", action="append", type=Path, metavar="DIR",
                        help="a case set graded (repeatable; default: reference_data)")
    parser.add_argument("--rubric", type=Path, help="tools/grade's rubric JSON")
    sandbox = parser.add_mutually_exclusive_group()
    sandbox.add_argument("--unsandboxed", action="store_true",
                         help='leave out the students marked "needs_root" or "needs_namespaces"')
    sandbox.add_argument("--no-namespaces", action="store_true",
                         help='leave out the students marked "needs_namespaces" (a grader as root '
                              'without namespaces), with their "status_without_namespaces"')
    parser.add_argument("--fast", action="store_true", help='leave out the students marked "slow"')
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="only this student (repeatable)")
    parser.add_argument("--exercises", metavar="01,03",
                        help="graded with tools/grade --exercises: these columns alone")
    parser.add_argument("--backend", choices=("OMP", "CUDA"), default="OMP",
                        help="the graded kit's GPU-track backend (ATTN_GPU; default OMP)")
    parser.add_argument("--json", action="store_true", help="print JSON, not CSV")
    parser.add_argument("--check", type=Path, metavar="GRADEBOOK",
                        help="compare a gradebook.csv with the expected one, every cell")
    args = parser.parse_args(argv)
    exercises = catalogue()
    chosen = args.exercises.split(",") if args.exercises else None
    ids = [exercise["id"] for exercise in exercises if chosen is None or exercise["id"] in chosen]
    names = {exercise["id"]: Path(exercise["goldens"]).name for exercise in exercises}
    rows = expected_gradebook(args.cases, load_rubric(args.rubric), unsandboxed=args.unsandboxed,
                              only=args.only, no_namespaces=args.no_namespaces, fast=args.fast,
                              exercises=chosen, backend=args.backend)
    mismatch = class_mismatch()
    if mismatch:
        print(mismatch)
        return 1
    if args.check:
        problems = check(rows, args.check, ids, names)
        for problem in problems:
            print(problem)
        outcome = f"differs in {len(problems)} cells" if problems else "every cell as expected"
        print(f"{args.check}: {outcome}")
        return 1 if problems else 0
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        sys.stdout.write(as_csv(rows, ids))
    return 0


if __name__ == "__main__":
    sys.exit(main())

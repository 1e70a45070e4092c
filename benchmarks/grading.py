#!/usr/bin/env python3
"""benchmarks/grading.py — how long tools/grade takes per exercise per student, sandbox included.

    sudo python3 benchmarks/grading.py [--students 30] [--jobs 2] [--kit-build DIR]
                                       [--save benchmarks/results/grading-NAME.json]

Grades a class of N copies of the synthetic class's "solved" student (every exercise solved,
so every exercise is compiled, linked, run and judged) with tools/grade --jobs J, and prints
one JSON object: the wall time of the grading (the kit build is left out: it is paid once per
kit commit, and --kit-build DIR reuses one), seconds per student and per exercise per student,
and where a student's seconds go (compiling the unit, then per exercise link, run, judge).
The goal (tools/grader/README.md): <= 0.6 s per exercise per student with --jobs 2.
Standard library only; as root, for the sandbox.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--kit-build", type=Path, help="a finished kit build to reuse (its OUT)")
    parser.add_argument("--save", type=Path, help="also write the JSON object to this file")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="attn-grading-bench."))
    os.chmod(work, 0o711)  # the sandbox's uid passes through to --out
    try:
        subprocess.run([sys.executable, str(KIT / "tests/grading/make_class.py"),
                        str(work / "one"), "--only", "solved"], check=True,
                       stdout=subprocess.DEVNULL)
        for index in range(args.students):
            shutil.copytree(work / "one" / "solved", work / "class" / f"student{index:03d}")
        kit_build = args.kit_build
        if kit_build is None:  # built once, outside the measured grading
            kit_build = work / "kit"
            subprocess.run([sys.executable, str(KIT / "tools/grade"), str(work / "one"),
                            "--out", str(kit_build)], check=True, stdout=subprocess.DEVNULL)
        start = time.monotonic()
        subprocess.run([sys.executable, str(KIT / "tools/grade"), str(work / "class"),
                        "--out", str(work / "graded"), "--jobs", str(args.jobs),
                        "--kit-build", str(kit_build)], check=True, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - start
        timings = json.loads((work / "graded" / "timings.json").read_text())["students"]
        records = json.loads((work / "graded" / "records.json").read_text())["records"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    exercises = len(records[0]["exercises"])
    totals = [record["total"] for record in records]

    def median_of(step):
        return round(statistics.median(
            sum(ex.get(step, 0.0) for ex in student["exercises"].values())
            for student in timings.values()), 2)

    result = {
        "benchmark": "grading", "students": args.students, "jobs": args.jobs,
        "exercises": exercises, "cpus": os.cpu_count(), "machine": platform.node(),
        "commit": subprocess.run(["git", "-C", str(KIT), "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip(),
        "all_full_marks": len(set(totals)) == 1 and records[0]["total"] == records[0]["max"],
        "wall_s": round(wall, 1),
        "s_per_student": round(wall / args.students, 2),
        "s_per_exercise_per_student": round(wall / args.students / exercises, 3),
        "goal_s_per_exercise_per_student": 0.6,
        "median_student_s": {"compile_unit": round(statistics.median(
            student["compile_together_s"] for student in timings.values()), 2),
            "link": median_of("link"), "run": median_of("run-public"),
            "judge": median_of("judge-public")},
    }
    text = json.dumps(result)
    print(text)
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(text + "\n")
    return 0 if result["all_full_marks"] else 1


if __name__ == "__main__":
    sys.exit(main())

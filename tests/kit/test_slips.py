#!/usr/bin/env python3
"""tests/kit/test_slips.py — wrong code as students write it is rejected, and named.

    test_slips.py --build DIR --exercise NN [--slip NAME] [--show]

tests/kit/slips/<the exercise's file> is the solution with slips in it: small wrong variants
(a dropped line, a wrong index, arguments in the wrong order), each chosen at run time by the
environment variable ATTN_SLIP and declared by one line of the file,

    // slip: out_proj_dropped -> out_proj

which says: with ATTN_SLIP=out_proj_dropped the exercise must fail, and its status line (the
reason `tools/kit status` and `check` give, tools/kitcli/progress.py) must contain "out_proj",
and every mistake its failing tests name must say it too: one slip, not two names (a test
whose function waits for a failing one it calls names none: docs/verdicts.md, "because").
What `check` shows of the failures must read as the student's code does: no identifier of the
test harness (HARNESS) anywhere on it. The build's test_exNN_slips program
(cmake/AttnExercise.cmake) runs each slip, as `tools/kit check` runs a student's file; without
ATTN_SLIP it must be done. A slip the numbers cannot tell from another is declared with the
words that cover both. A slip that is right but slow (a kernel that reads every tile) is
declared `-> note: TEXT`: the exercise must be done, and its status line say TEXT.

ctest runs it per exercise (exNN.slips_named, label kit); --show prints every status line.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))
from kitcli import progress, reports, student  # noqa: E402
from kitcli.catalogue import Kit  # noqa: E402

# What only the kit's test files say: a student never wrote `the_case.input<2>("x")`.
HARNESS = re.compile(r"\bthe_case\b|\binput<\d>|\bforward_of\b|\bhashed_\w+\(|\bATTN_[A-Z_]+|"
                     r"\bcase_context\b")
SLIP = re.compile(r"^\s*//\s*slip:\s*(?P<name>[\w-]+)\s*->\s*(?P<expected>.+?)\s*$")


def declared_slips(path: Path) -> list:
    """[(name, expected text)] in the order the file declares them."""
    return [(m["name"], m["expected"]) for m in map(SLIP.match, path.read_text().splitlines())
            if m]


def status_line(program: Path, exercise: dict, slip: str | None, kit: Kit,
                folder: Path) -> tuple:
    """(state name, reason, the lines `check` shows of the failures, the mistakes its
    failing tests name) of one run of the slips program with ATTN_SLIP=slip: a failing test
    names the mistake its first failure names, or the one another test names where it is the
    same slip (docs/verdicts.md); a test that waits for a function it calls names none."""
    verdicts = folder / f"{slip or 'solution'}.verdicts"
    environment = dict(os.environ)
    environment.pop("ATTN_SLIP", None)
    if slip:
        environment["ATTN_SLIP"] = slip
    try:
        run = subprocess.run([str(program), "--attn-quiet", f"--attn-verdicts={verdicts}",
                              kit.cpu_limit()],
                             cwd=KIT, env=environment, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, timeout=kit.test_wall_s)
    except subprocess.TimeoutExpired:
        return progress.FAILING, progress.timed_out(kit), [], set()
    except OSError as error:
        raise SystemExit(f"test_slips: cannot run {program}: {error} (build it first)")
    stream = reports.read_verdicts(verdicts)
    if stream is None or not stream.finished:
        if stream is not None and stream.signal:
            return (progress.FAILING, progress.crashed(stream.signal, stream.running, kit), [],
                    set())
        signal = f" (signal {-run.returncode})" if run.returncode < 0 else ""
        return progress.FAILING, f"the test program stopped before its end{signal}", [], set()
    state = progress.verdict(exercise, stream.tests, program_passed=run.returncode == 0)
    failed = [case for case in stream.tests if case.outcome == "failed"]
    screen = student.function_summary(stream.tests) + student.failures_report(failed)
    names = {case.mistake or case.failures[0].same_slip for case in failed
             if not case.because and case.failures} - {""}
    return state.name, state.reason, screen, names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("--exercise", required=True)
    parser.add_argument("--slip", help="run this slip only")
    parser.add_argument("--show", action="store_true", help="print every status line")
    options = parser.parse_args()

    kit = Kit.load(KIT)
    exercise = next(e for e in kit.exercises if e["id"] == options.exercise)
    source = KIT / "tests" / "kit" / "slips" / Path(exercise["stub"]).name
    program = options.build.resolve() / "bin" / f"test_ex{exercise['id']}_slips"
    slips = declared_slips(source)
    if options.slip:
        slips = [slip for slip in slips if slip[0] == options.slip]
    if not slips:
        print(f"{source.relative_to(KIT)}: no slip declared (`// slip: NAME -> TEXT`)")
        return 1

    problems, solution_problem = [], None
    with tempfile.TemporaryDirectory(prefix="kit-slips-") as folder:
        state, reason, _, _ = status_line(program, exercise, None, kit, Path(folder))
        if state != progress.DONE:
            solution_problem = f"without a slip the file must be done, but: {state}: {reason}"
        for name, expected in slips:
            state, reason, screen, names = status_line(program, exercise, name, kit,
                                                       Path(folder))
            note = expected.removeprefix("note: ")
            if note != expected:  # right but slow: done, with the note
                if state != progress.DONE or note not in reason:
                    problems.append(f"{name}: not done with the note {note!r}: {state}: "
                                    f"{reason}")
            elif state == progress.DONE:
                problems.append(f"{name}: passed as done")
            elif expected not in reason:
                problems.append(f"{name}: the status line does not say {expected!r}: {reason}")
            elif [other for other in names if expected not in other]:  # one slip, two names
                problems.append(f"{name}: also named: "
                                + "; ".join(other for other in names if expected not in other))
            harness = [line for line in screen if HARNESS.search(line)]
            if harness:
                problems.append(f"{name}: `check` shows the test harness: {harness[0].strip()}")
            if options.show:
                print(f"{name:<28} {state}: {reason}")
                print("\n".join(f"{'':<28} | {line}" for line in screen))
    if solution_problem:
        print(f"✗ exercise {exercise['id']}: {solution_problem}")
    for problem in problems:
        print(f"✗ exercise {exercise['id']} slip {problem}")
    wrong = {problem.split(":")[0] for problem in problems}
    print(f"exercise {exercise['id']}: {len(slips) - len(wrong)} of {len(slips)} slips "
          "rejected and named")
    return 1 if problems or solution_problem else 0


if __name__ == "__main__":
    sys.exit(main())

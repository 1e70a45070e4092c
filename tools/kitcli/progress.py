"""An exercise's state and its one-line reason, from what the build and the runs left.

"done" is grading-ready: the exercise's ctest test passed, its GoogleTest report exists,
it ran at least one value case (a test carrying "attn_case"), every value case passed and
no test was skipped. Validation tests alone (bad arguments, which the stubs already
handle) never make an exercise done; a skip (a GPU test without a GPU) never counts.
Results come from ctest's JUnit file and the GoogleTest reports (see reports.py), never
from ctest's console text.
"""

from __future__ import annotations

import re
import signal
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from . import build, reports, stubs
from .catalogue import Kit

DONE, FAILING, SKIPPED, NOT_STARTED = "done", "failing", "skipped", "not started"
STUB_MARKER = "not implemented yet"  # in every attn::not_implemented message
NAMED_MISTAKE = "looks like: "       # a failure that recognised a known mistake says so

# ctest 3.25's JUnit names no cause for a failure; a run that lasted (nearly) the whole
# TIMEOUT was ended by it (ctest records e.g. 2.998 s for TIMEOUT 3).
TIMEOUT_FRACTION = 0.9

SIGNAL_REASONS = {
    signal.SIGSEGV: "crashed with a segmentation fault (an index past the end of a tensor?)",
    signal.SIGABRT: "crashed: it aborted (SIGABRT: a failed assert, or std::terminate?)",
    signal.SIGFPE: "crashed with an arithmetic error (SIGFPE: an integer division by zero?)",
    signal.SIGKILL: "was killed (SIGKILL: out of memory?)",
}


class State(NamedTuple):
    name: str    # DONE, FAILING, SKIPPED or NOT_STARTED
    reason: str  # "" when done or not started


def timed_out(timeout_s: float, test: str | None = None) -> str:
    during = f" in {test}" if test else ""
    return f"timed out after {timeout_s:g} s{during} (an endless loop?)"


def progress_file(kit: Kit, preset: str, ex: dict) -> Path:
    """Where the exercise's test program names the test it is running (--attn-progress):
    left behind by a program that hung or crashed, deleted by one that ended normally."""
    return build.reports_dir(kit, preset) / f"ex{ex['id']}.exercises.running"


def running_test(path: Path) -> str | None:
    """The test a program was running when it hung or crashed, from its progress file."""
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def program_end_reason(end: build.ProgramEnd, timeout_s: float,
                       test: str | None = None) -> str:
    """Why a test program that ran left no verdict: a timeout, a signal, an early exit.
    `test` is the test it was running, when its progress file says."""
    if end.timed_out:
        return timed_out(timeout_s, test)
    if end.not_found:
        return "its test program was not built"
    if end.signal is not None:
        reason = SIGNAL_REASONS.get(end.signal, f"crashed ({build.signal_name(end.signal)})")
        return reason.replace("crashed", f"crashed in {test}", 1) if test else reason
    if end.exit_code == 0:
        return "its test program ended before writing its report (does the code call exit()?)"
    return (f"its test program exited with status {end.exit_code} before its tests finished "
            "(does the code call exit()?)")


def missing_report_reason(kit: Kit, ex: dict, preset: str,
                          result: reports.CtestResult | None) -> str:
    """Why the exercise's test program wrote no report under ctest. ctest's JUnit says
    whether it ran; for a failure, which it does not explain, a run as long as the timeout
    was a timeout, and anything else is run once more, directly, to learn how it ends."""
    if result is None:
        return f"did not run (ctest has no test ex{ex['id']}.exercises)"
    if result.status == "notrun":
        if result.message == "Unable to find executable":
            return "its test program was not built"
        return f"ctest did not run its test program ({result.message or 'not run'})"
    if result.status == "disabled":
        return "its ctest test is disabled"
    if result.passed:
        return "its test program ended before writing its report (does the code call exit()?)"
    test = running_test(progress_file(kit, preset, ex))
    program = build.test_program(kit, preset, ex)
    if result.time_s >= TIMEOUT_FRACTION * kit.test_timeout_s:
        return timed_out(kit.test_timeout_s, test)
    end = build.run_program(program, ["--gtest_brief=1"], kit.test_timeout_s, kit.root)
    if end.not_found or end.exit_code == 0:  # gone since, or it did not crash this time
        return f"crashed in {test}" if test else "crashed before its tests finished"
    return program_end_reason(end, kit.test_timeout_s, test)


def mistake_named(failure: str) -> str | None:
    """The known mistake a failure's line names ("... — looks like: NAME"), or None."""
    return failure.split(NAMED_MISTAKE, 1)[1] if NAMED_MISTAKE in failure else None


def mistake_family(failure: str) -> str | None:
    """The named mistake whatever the dim the case passed ("softmax over the wrong axis
    (dim=1 instead of dim=…)"): the same slip on every case, or None."""
    named = mistake_named(failure)
    return re.sub(r"dim=-?\d+", "dim=…", named) if named else None


def in_reading_order(cases: list) -> list:
    """Value cases first, in their order, then the argument checks: what a function returns
    matters before what it rejects."""
    return sorted(cases, key=lambda case: case.value_case is None)


def verdict(ex: dict, cases: list, program_passed: bool) -> State:
    """The grading rule, applied to the report of a test program that ran to its end. A
    failing exercise's reason is the mistake most of its failing cases are named by (on
    some inputs two mistakes give the same tensor: the majority decides), else its first
    failure of the student's own code."""
    failed = [case for case in in_reading_order(cases) if case.outcome == "failed"]
    if failed:
        own = [case.failure for case in failed if STUB_MARKER not in case.failure]
        named = [failure for failure in own if NAMED_MISTAKE in failure]
        if named:
            most = Counter(map(mistake_family, named)).most_common(1)[0][0]
            named = [failure for failure in named if mistake_family(failure) == most]
        first = (named or own or [case.failure for case in failed])[0]
        return State(FAILING, first or f"{failed[0].name} failed")
    unfinished = [case for case in cases if case.outcome in ("skipped", "not run")]
    if unfinished:
        more = f" (and {len(unfinished) - 1} more)" if len(unfinished) > 1 else ""
        return State(SKIPPED, f"{unfinished[0].name} was {unfinished[0].outcome}{more}; "
                              "a skipped test never counts as done")
    if not any(case.value_case for case in cases):
        return State(FAILING, "no value case ran: its tests only check argument validation")
    if not program_passed:
        return State(FAILING, "its test program failed after every test passed: "
                              f"`tools/kit check {ex['id']}` shows why")
    return State(DONE, "")


def exercise_state(kit: Kit, ex: dict, preset: str, build_output: str,
                   ctest_results: dict) -> State:
    """The state of `ex` after `tools/kit status` built (`build_output`) and ran ctest."""
    error = build.compile_error(ex, build_output)
    if error:  # checked first: ctest would run the last program that did compile
        return State(FAILING, f"does not compile: {error}")
    result = ctest_results.get(f"ex{ex['id']}.exercises")
    cases = reports.read_gtest_report(build.gtest_report_path(kit, preset, ex))
    if cases is None:
        return State(FAILING, missing_report_reason(kit, ex, preset, result))
    if stubs.is_pristine(kit, ex):
        return State(NOT_STARTED, "")
    return verdict(ex, cases, program_passed=result is not None and result.passed)

"""An exercise's state and its one-line reason, from what the build and the runs left.

"done" is grading-ready: the exercise's ctest test passed, its verdict stream ran to its
end, it ran at least one value case (a test with a case), every value case passed and no
test was skipped. Validation tests alone (bad arguments, which the stubs already handle)
never make an exercise done; a skip (a GPU test without a GPU) never counts. Results come
from ctest's JUnit file and the verdict streams (see reports.py), never from console text.
"""

from __future__ import annotations

from typing import NamedTuple

from . import analyse, build, device_lint, reports, stubs
from .catalogue import Kit

DONE, FAILING, SKIPPED, NOT_STARTED = "done", "failing", "skipped", "not started"

# ctest 3.25's JUnit names no cause for a failure; a run that lasted (nearly) the whole
# TIMEOUT was ended by it (ctest records e.g. 2.998 s for TIMEOUT 3).
TIMEOUT_FRACTION = 0.9

SIGNAL_REASONS = {
    "SIGSEGV": "crashed with a segmentation fault (an index past the end of a tensor?)",
    "SIGABRT": "crashed: it aborted (SIGABRT: a failed assert, or std::terminate?)",
    "SIGFPE": "crashed with an arithmetic error (SIGFPE: an integer division by zero?)",
    "SIGKILL": "was killed (SIGKILL: out of memory?)",
}


class State(NamedTuple):
    name: str    # DONE, FAILING, SKIPPED or NOT_STARTED
    reason: str  # "" when done or not started


def out_of_cpu_time(kit: Kit, test: str | None = None) -> str:
    """A test program its CPU limit stopped (SIGXCPU: --attn-cpu-limit)."""
    during = f" in {test}" if test else ""
    return f"used up its {kit.test_timeout_s:g} s of CPU time{during} (an endless loop?)"


def timed_out(kit: Kit, test: str | None = None) -> str:
    """A test program the wall-clock backstop stopped while still within its CPU time: it
    waited, or the machine was too busy to run it."""
    during = f" in {test}" if test else ""
    return (f"did not finish in {kit.test_wall_s:g} s{during}, though within its "
            f"{kit.test_timeout_s:g} s of CPU time: the machine is busy (try again), or the "
            "code waits for something")


def program_end_reason(end: build.ProgramEnd, kit: Kit, test: str | None = None) -> str:
    """Why a test program that ran left no verdict: a limit, a signal, an early exit. `test`
    is the test it was running, when its progress file says."""
    if end.timed_out:
        return timed_out(kit, test)
    if end.not_found:
        return "its test program was not built"
    if end.signal is not None:
        return crashed(build.signal_name(end.signal), test, kit)
    if end.exit_code == 0:
        return "its test program ended before writing its report (does the code call exit()?)"
    return (f"its test program exited with status {end.exit_code} before its tests finished "
            "(does the code call exit()?)")


def crashed(signal_name: str, test: str | None, kit: Kit) -> str:
    """"crashed in TEST with a segmentation fault (...)": what a signal says to a student."""
    if signal_name == "SIGXCPU":
        return out_of_cpu_time(kit, test)
    reason = SIGNAL_REASONS.get(signal_name, f"crashed ({signal_name})")
    return reason.replace("crashed", f"crashed in {test}", 1) if test else reason


def missing_report_reason(kit: Kit, ex: dict, result: reports.CtestResult | None,
                          stream: reports.VerdictStream | None) -> str:
    """Why the exercise's test program did not finish its verdict stream under ctest.
    ctest's JUnit says whether it ran and how long; the stream names the test it stopped in
    and the signal of a crash."""
    if result is None:
        return f"did not run (ctest has no test ex{ex['id']}.exercises)"
    if result.status == "notrun":
        if result.message == "Unable to find executable":
            return "its test program was not built"
        return f"ctest did not run its test program ({result.message or 'not run'})"
    if result.status == "disabled":
        return "its ctest test is disabled"
    test = stream.running if stream else None
    if stream is not None and stream.signal:
        return crashed(stream.signal, test, kit)
    if not result.passed and result.time_s >= TIMEOUT_FRACTION * kit.test_wall_s:
        return timed_out(kit, test)
    during = f" in {test}" if test else ""
    return (f"its test program stopped{during} before its tests finished "
            "(does the code call exit()?)")


def in_reading_order(cases: list) -> list:
    """Value cases first, in their order, then the argument checks: what a function returns
    matters before what it rejects."""
    return sorted(cases, key=lambda case: case.value_case is None)


def in_showing_order(failed: list) -> list:
    """The failed tests in the order the program decided to show them (TestVerdict.shown,
    docs/verdicts.md "groups"); in a stream cut short, which decided none, reading order."""
    return sorted(in_reading_order(failed), key=lambda case: case.shown or (len(failed), 0))


def fold_unreached_checks(failed: list) -> tuple:
    """(failures to show, argument checks folded into a value case's throw). A call that
    throws on every input is one failure: the argument checks its throw kept from being
    tested wait for it, and say nothing new. Where no value case threw, a check's valid call
    that threw is news, and shown."""
    if not any(failure.kind == "threw" for case in failed if case.value_case
               for failure in case.failures):
        return failed, []
    return ([case for case in failed if not case.check_unreached],
            [case for case in failed if case.check_unreached])


def verdict(ex: dict, cases: list, program_passed: bool) -> State:
    """The grading rule, applied to the report of a test program that ran to its end. A
    failing exercise's reason is the failure the program shows first (kit/verdicts.hpp,
    failure_groups: the root cause, the mistake most cases name, the notebook's case)."""
    failed = [case for case in cases if case.outcome == "failed"]
    if failed:
        first = in_showing_order(failed)[0]
        return State(FAILING, first.failure or f"{first.name} failed")
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
    return State(DONE, performance_note(cases))


def performance_note(cases: list) -> str:
    """What a done exercise's tests noted of its speed ("" if nothing): right, and worth a
    sentence (a kernel that reads every tile; kit/verdicts.hpp, note_performance)."""
    notes = [note for case in cases for note in case.notes]
    return f"right, but {notes[0]}" if notes else ""


def gpu_backend(kit: Kit, preset: str) -> str:
    """The GPU track's backend of a preset's build (OFF, OMP or CUDA; cmake/AttnGpu.cmake), or
    "" where that build was never configured."""
    cache = build.build_dir(kit, preset) / "CMakeCache.txt"
    try:
        lines = cache.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return next((line.split("=", 1)[1].strip() for line in lines
                 if line.startswith("ATTN_GPU_BACKEND:")), "OFF")


def cuda_result(kit: Kit, ex: dict) -> str:
    """What the CUDA build (preset cuda, build-cuda/) last said of a GPU-track exercise, for
    status's line under it: "" where it never ran there."""
    if not (ex.get("gpu") or ex.get("kernel")):
        return ""
    stream = reports.read_verdicts(build.verdicts_path(kit, "cuda", ex))
    if stream is None:
        return ""
    if not stream.finished:
        return "CUDA (build-cuda/): its last run stopped before its tests finished"
    if not stream.tests:  # the test program's environment skipped them all
        return "CUDA (build-cuda/): skipped, no CUDA device where it last ran"
    state = verdict(ex, stream.tests, program_passed=True)
    return f"CUDA (build-cuda/): {state.name}" + (f": {state.reason}" if state.reason else "")


def exercise_state(kit: Kit, ex: dict, preset: str, build_output: str,
                   ctest_results: dict) -> State:
    """The state of `ex` after `tools/kit status` built (`build_output`) and ran ctest. An
    untouched stub is not started, built or not: status builds none."""
    if stubs.is_pristine(kit, ex):
        return State(NOT_STARTED, "")
    if ex.get("gpu") and gpu_backend(kit, preset) == "OFF":
        return State(SKIPPED, "not built: this build has no GPU track (install libthrust-dev "
                              "with `tools/kit setup` for its OpenMP backend, then run status "
                              "again)")
    error = build.compile_error(ex, build_output)
    if error:  # checked first: ctest would run the last program that did compile
        return State(FAILING, f"does not compile: {error}")
    result = ctest_results.get(f"ex{ex['id']}.exercises")
    stream = reports.read_verdicts(build.verdicts_path(kit, preset, ex))
    if stream is None or not stream.finished:
        return State(FAILING, missing_report_reason(kit, ex, result, stream))
    state = verdict(ex, stream.tests, program_passed=result is not None and result.passed)
    if state.name == FAILING:  # a line cppcheck names (a variable read before it is set) first
        return State(FAILING, analyse.with_finding(kit.root, ex, state.reason))
    return device_code_checked(kit, ex, state)


def device_code_checked(kit: Kit, ex: dict, state: State) -> State:
    """`state`, or "failing" where a GPU-track exercise that passed on the OpenMP backend
    holds code nvcc refuses in device code (a std::vector in the functor): done means done on
    a GPU too (device_lint.py)."""
    if state.name != DONE:
        return state
    reason = device_lint.status_reason(device_lint.exercise_findings(kit.root, ex))
    return State(FAILING, reason) if reason else state

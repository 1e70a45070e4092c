"""The student's commands: status, check, hint, watch, reset and show."""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import subprocess
import sys
import time
from dataclasses import dataclass, replace

from . import (analyse, build, device_lint, diagnose, heatmap, progress, reports, setup,
               show as show_case, stubs)
from .catalogue import Kit, notebook_cells
from .terminal import from_here, kit_command, progress_bar, say, screen_width, shorten

# How much slower a sanitized program may be: its limits are this multiple of the test's.
ASAN_SLOWER = 4

MARKS = {progress.DONE: "✓", progress.FAILING: "✗", progress.SKIPPED: "·",
         progress.NOT_STARTED: "·"}
BUILD_LOG = "build/kit-build.log"  # written by build.configure_and_build
PRINTED_LINES_SHOWN = 10           # of what the student's code printed
FIRST_FAILURE_LINES = 26           # of the first failure, its picture included: the screen fits 40


def status(kit: Kit) -> int:
    """Builds and runs the exercises the student has touched, prints one line each and the
    progress bar. An untouched stub is "not started" from its git blob alone: nothing of it
    is built, so the first `status` of a fresh clone builds nothing in the foreground; at a
    terminal it starts the kit's own part of the build in the background
    (build.start_kit_build). Exits 0 whenever it could build and report, whatever the score."""
    if not setup.install(kit):
        return 1
    touched = [ex for ex in kit.exercises if not stubs.is_pristine(kit, ex)]
    build_output, ctest_results = "", {}
    if touched:
        configured, build_output, ctest_results = build_and_run(kit, touched)
        if not configured:
            return 1
    width = max(len(ex["name"]) for ex in kit.exercises)
    columns = screen_width()  # on a terminal, one screen line per exercise
    say()
    states = []
    background = build.background_output(kit)
    for ex in kit.exercises:
        state = progress.exercise_state(kit, ex, "default", build_output, ctest_results)
        states.append((ex, state))
        warnings = diagnose.remember_warnings(kit, ex, build_output, background)
        line = f"  {MARKS[state.name]} {ex['id']} {ex['name']:<{width}}  {state.name}"
        if warnings:
            line += f" ({diagnose.count(len(warnings), 'compiler warning')})"
        say(shorten(line + (f": {state.reason}" if state.reason else ""), columns))
        on_cuda = progress.cuda_result(kit, ex)
        if on_cuda:
            say(shorten(f"       {on_cuda}", columns))
    done = sum(state.name == progress.DONE for _, state in states)
    say()
    say("  " + progress_bar(done, len(kit.exercises)))
    say()
    pending = [ex for ex, state in states if state.name != progress.DONE]
    if pending:
        ex = pending[0]
        cells = "; ".join(f"{name} {cited}" for name, _, cited in notebook_cells(ex))
        say(f"Next: exercise {ex['id']}, {ex['title']}" + (f" ({cells})" if cells else ""))
        say(f"      edit {from_here(kit.root, ex['stub'])}; "
            f"`{kit_command(kit.root, 'check ' + ex['id'])}` explains the failures, "
            f"`{kit_command(kit.root, 'hint ' + ex['id'])}` gives a hint.")
    else:
        say("✓ Every exercise passes. Well done!")
    if not touched and build.start_kit_build(kit, pending[0]):  # a head start on check
        say(f"(While you read: the kit's own part of your build and exercise {pending[0]['id']} "
            "are compiling in the background, so your first check has little left to do.)")
    say(f"{done}/{len(kit.exercises)} exercises done")
    return 0


def build_and_run(kit: Kit, touched: list) -> tuple:
    """Builds the test programs of the `touched` exercises (and the kit they link, once) and
    runs them under ctest: (configured, build output, ctest's results by test name)."""
    say(build.announce(kit, "default", "exercise" + ("s " if len(touched) > 1 else " ")
                       + ", ".join(ex["id"] for ex in touched)))
    configured, output = build.configure(kit, "default")
    if not configured:
        say(output[-4000:])
        say("kit: cmake could not configure the build; the messages above say why.")
        return False, "", {}
    # A GPU-track exercise has no target in a build without the GPU track (its state says so).
    built = [ex for ex in touched
             if not (ex.get("gpu") and progress.gpu_backend(kit, "default") == "OFF")]
    if not built:
        return True, "", {}
    _, _, build_output = build.configure_and_build(
        kit, "default", *(build.test_program(kit, "default", ex).name for ex in built))
    say("Running them (ctest --preset default -L exercises) ...")
    ctest = build.run_ctest(kit, "default", "-L", "exercises", "-R",
                            "^ex(" + "|".join(ex["id"] for ex in built) + r")\.exercises$")
    return True, build_output, ctest.results


# ---- which exercise -------------------------------------------------------------------

def known_done(kit: Kit, ex: dict) -> bool:
    """Done by the report its last full run left (status or check), if that run saw the
    file as it is now: an untouched stub, or a file saved since, is never known done."""
    path = build.verdicts_path(kit, "default", ex)
    try:
        if path.stat().st_mtime < (kit.root / ex["stub"]).stat().st_mtime:
            return False
    except OSError:
        return False
    stream = reports.read_verdicts(path)
    return (stream is not None and stream.finished and not stubs.is_pristine(kit, ex)
            and progress.verdict(ex, stream.tests, program_passed=True).name == progress.DONE)


def chosen(kit: Kit, number: str | None) -> dict:
    """The exercise numbered `number`, or without one the Next exercise: the first that
    the reports of the last `status` or `check` do not show done, which needs no build."""
    if number is not None:
        return kit.exercise(number)
    ex = next((ex for ex in kit.exercises if not known_done(kit, ex)), kit.exercises[-1])
    say(f"(no number given: exercise {ex['id']} is Next, the first one the reports of your "
        f"last `status` or `check` do not show done)")
    return ex


# ---- check ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TestRun:
    end: build.ProgramEnd  # its output is only what the code under test printed (--attn-quiet)
    cases: list | None  # None: the program did not run every test (a crash, a timeout, an exit)
    running: str | None  # the test it was running when it hung or crashed


def run_tests(kit: Kit, program, selection: list, verdicts) -> TestRun:
    verdicts.parent.mkdir(parents=True, exist_ok=True)
    verdicts.unlink(missing_ok=True)
    end = build.run_program(program, ["--attn-quiet", f"--attn-verdicts={verdicts}",
                                      kit.cpu_limit(), *selection], kit.test_wall_s, kit.root)
    stream = reports.read_verdicts(verdicts)
    finished = stream is not None and stream.finished
    return TestRun(end, stream.tests if finished else None, stream.running if stream else None)


def with_every_cases_names(kit: Kit, program, run: TestRun, ex: dict) -> TestRun:
    """`run`, of the tests a filter chose, with each test's verdict from a run of them all: a
    program decides its names over every case of a function (docs/verdicts.md), and a filter
    must not change them. Where that run stops early, `run` as it is."""
    whole = run_tests(kit, program, [], build.verdicts_path(kit, "default", ex))
    if whole.cases is None:
        return run
    decided = {case.name: case for case in whole.cases}
    return replace(run, cases=[decided.get(case.name, case) for case in run.cases])


def memory_error_signs(first: TestRun, again: TestRun | None) -> str | None:
    """Why this run may have read or written memory it does not own, or None: a crash, a
    library's error about sizes no input has (it was handed garbage), or failures that change
    from run to run. Never an arithmetic slip, nan or inf from an overflowing exp among them,
    nor a plain wrong answer: the AddressSanitizer build costs the student half a minute. (A
    float read before it is written holds the pattern -ftrivial-auto-var-init gives it, which
    the comparison names itself, and which AddressSanitizer would not find.)"""
    if first.cases is None:  # a signal is a crash; a timeout or an exit() is not
        return "it crashed" if first.end.signal is not None else None
    failed = [case for case in first.cases if case.outcome == "failed"]
    if any(failure.points_to_garbage for case in failed for failure in case.failures):
        return "it threw an error with sizes no input has, as code that read garbage does"
    if again is not None and again.cases is not None and (
            [case.texts for case in first.cases] != [case.texts for case in again.cases]):
        return "two runs gave different results"
    return None


def sanitizer_verdict(kit: Kit, ex: dict, selection: list, why: str) -> list | None:
    """Builds the exercise's test program with AddressSanitizer and UBSan, runs it, and
    returns the lines that explain the first memory error, or None if there was none."""
    target = f"test_ex{ex['id']}_exercises_asan"
    say(f"… {why}: rebuilding it with AddressSanitizer to find where (target {target}) ...")
    started = time.monotonic()
    _, built, build_output = build.configure_and_build(kit, "default", target)
    if not built:
        say(f"  (the AddressSanitizer build failed; {from_here(kit.root, BUILD_LOG)} says why)")
        return None
    verdicts = build.reports_dir(kit, "default") / f"ex{ex['id']}.asan.verdicts"
    verdicts.unlink(missing_ok=True)
    # handle_abort: a failed library check (_GLIBCXX_ASSERTIONS) aborts; ASan prints its stack.
    environment = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:handle_abort=1",
                       UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    try:
        result = subprocess.run([str(build.build_dir(kit, "default") / "bin" / target),
                                 "--attn-quiet", f"--attn-verdicts={verdicts}",
                                 kit.cpu_limit(ASAN_SLOWER), *selection],
                                cwd=kit.root, env=environment, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace",
                                timeout=ASAN_SLOWER * kit.test_wall_s)
    except (subprocess.TimeoutExpired, OSError) as error:
        say(f"  (the AddressSanitizer run did not finish: {error})")
        return None
    report = diagnose.sanitizer_report(ex, result.stdout)
    if report is None:
        say(f"  AddressSanitizer found no memory error ({time.monotonic() - started:.0f} s).")
        return None
    stream = reports.read_verdicts(verdicts)
    return diagnose.render_sanitizer(kit, ex, report, stream.running if stream else None,
                                     lambda path: from_here(kit.root, path))


def group_failures(failed: list) -> list:
    """[(first case, [names of the other cases failing alike])], in the order the program
    decided to show them (docs/verdicts.md, "groups"). A stream cut short decided none: its
    failures alike (Failure.alike) are grouped in reading order."""
    groups: dict = {}
    for case in progress.in_showing_order(failed):
        groups.setdefault(case.shown[0] if case.shown else case.alike, []).append(case)
    return [(cases[0], [case.name for case in cases[1:]]) for cases in groups.values()]


def one_line(case) -> str:
    """A failure as one line: its first line, the call in the student's words and what is
    wrong (the case's description and golden are on lines of their own); for a function whose
    callee fails too, that callee first."""
    if case.because:
        return f"  ✗ {case.name}: {waits_for(case)}"
    return f"  ✗ {case.name}: {case.failure}"


def waits_for(case) -> str:
    """A failing function whose callee fails too, in one line (docs/verdicts.md, "because")."""
    callee = case.because
    return (f"{case.kind} fails, and so does your {callee['function']}, which it calls "
            f"({callee['failed']} of {diagnose.count(callee['cases'], 'case')} "
            f"{'fails' if callee['failed'] == 1 else 'fail'}): "
            f"fix {callee['function']} first")


def failure_screen(failed: list, everything: bool = False) -> list:
    """What `check` says of the failing tests: the first failure in full, cut to
    FIRST_FAILURE_LINES (shapes, worst element, both tensors, the named mistake and its
    hint), the cases failing alike named after it ("also for"), then one line per other kind
    of failure, its cases with it. `everything`: each kind of failure in full."""
    groups = group_failures(failed)
    lines = []
    for number, (case, also) in enumerate(groups):
        if number and not everything:
            more = len(groups) - 1
            lines += ["", f"{diagnose.count(more, 'other failure')} "
                          f"(`check --all` shows {'it' if more == 1 else 'each'} in full):"]
            columns = screen_width()
            for other, other_also in groups[1:]:
                lines.append(shorten(one_line(other), columns))
                if other_also:
                    lines.append(f"    also for: {', '.join(other_also)}")
            break
        # The picture of the weights, where there is one, shares the first failure's lines:
        # what is cut is the end of the details (the tensors printed in full).
        explanation = case.explanation.splitlines()
        picture = heatmap.failure_picture(case, screen_width())
        room = max(FIRST_FAILURE_LINES - len(picture), 3)  # the headline and its case at least
        if len(explanation) > room and not everything:
            cut = len(explanation) - room
            explanation = explanation[:room] + [
                f"  … ({diagnose.count(cut, 'more line')}: `check --all`)"]
        lines += ["", f"✗ {case.name}", *explanation, *picture]
        if also:
            lines.append(f"  also for: {', '.join(also)}")
    return lines


def failures_report(failed: list, everything: bool = False) -> list:
    """What `check` says of the failing tests (failure_screen), argument checks that only
    wait for a throwing call folded into it."""
    shown, folded = progress.fold_unreached_checks(progress.in_reading_order(failed))
    lines = failure_screen(shown, everything)
    if folded:
        lines.append(f"  (and {diagnose.count(len(folded), 'argument check')} not tested until "
                     "the call returns: nothing more to fix there)")
    return lines


def function_summary(cases: list) -> list:
    """✓/✗ per function (each ATTN_CASE kind) of an exercise with several."""
    kinds: dict = {}
    for case in cases:
        if case.value_case is not None:
            kinds.setdefault(case.kind, []).append(case)
    if len(kinds) < 2:
        return []
    width = max(len(kind) for kind in kinds)
    lines = []
    for kind, kind_cases in kinds.items():
        failing = sum(case.outcome != "passed" for case in kind_cases)
        total = len(kind_cases)
        if failing:
            mark, what = "✗", (f"{failing} of {diagnose.count(total, 'case')} "
                               f"{'fails' if failing == 1 else 'fail'}")
        else:
            mark, what = "✓", ("the 1 case passes" if total == 1
                               else f"all {total} cases pass")
        lines.append(f"  {mark} {kind:<{width}}  {what}")
    return lines


def check(kit: Kit, number: str | None, pattern: str | None = None,
          sanitize: bool = False, everything: bool = False) -> int:
    """Builds and runs one exercise's test program directly and explains what it saw."""
    ex = chosen(kit, number)
    if not setup.install(kit):
        return 1
    stub = from_here(kit.root, ex["stub"])
    hint_command = f"`{kit_command(kit.root, 'hint ' + ex['id'])}`"
    program = build.test_program(kit, "default", ex)
    say(f"Exercise {ex['id']}: {ex['title']}  ({stub})")
    if not (build.build_dir(kit, "default") / "build.ninja").exists():
        say(build.announce(kit, "default", f"exercise {ex['id']}"))
    configured, built, build_output = build.configure_and_build(kit, "default", program.name)
    if not configured:
        say(build_output[-4000:])
        say("kit: cmake could not configure the build; the messages above say why.")
        return 1
    warnings = diagnose.remember_warnings(kit, ex, build_output, build.background_output(kit))
    if not built:
        return compile_failure(kit, ex, build_output, hint_command)
    if warnings:
        say(f"⚠ {diagnose.count(len(warnings), 'compiler warning')} in {stub}:")
        for warning in warnings:
            for line in diagnose.render_warning(ex, warning, lambda p: from_here(kit.root, p)):
                say(line)
        say()
    # A GPU-track exercise's device code, linted for a machine without nvcc (device_lint.py).
    for line in device_lint.exercise_report(kit.root, ex, stub):
        say(line)

    selection = [f"--gtest_filter=*{pattern}*"] if pattern else []
    verdicts = (build.verdicts_path(kit, "default", ex) if not pattern else
                build.reports_dir(kit, "default") / f"ex{ex['id']}.subset.verdicts")
    first = run_tests(kit, program, selection, verdicts)
    failed = [case for case in first.cases or [] if case.outcome == "failed"]
    # What cppcheck names by its line (a variable read before it is set), before what it did.
    for line in analyse.check_report(kit.root, ex, bool(failed) or first.cases is None,
                                     lambda path: from_here(kit.root, path)):
        say(line)
    again = run_tests(kit, program, selection, verdicts) if failed else None
    why = memory_error_signs(first, again) or ("you asked for it (--asan)" if sanitize else None)
    memory_error = sanitizer_verdict(kit, ex, selection, why) if why else None
    if pattern and failed:
        first = with_every_cases_names(kit, program, first, ex)
        failed = [case for case in first.cases if case.outcome == "failed"]

    printed = [line for line in first.end.output.splitlines() if line.strip()]
    if printed:
        cut = len(printed) > PRINTED_LINES_SHOWN
        say(f"Your code printed{' (its last lines)' if cut else ''}:")
        for line in printed[-PRINTED_LINES_SHOWN:]:
            say(f"  | {line}")
        say()
    if first.cases is not None:
        for line in function_summary(first.cases):
            say(line)
    if memory_error:
        say()
        for line in memory_error:
            say(line)
        say(f"Stuck? {hint_command}")
        return 1
    if first.cases is None:
        reason = progress.program_end_reason(first.end, kit, first.running)
        say(f"✗ {stub}: {reason}. Stuck? {hint_command}")
        return 1

    for line in failures_report(failed, everything):
        say(line)
    if failed:
        say()
    if pattern:
        say(f"(only the tests matching *{pattern}*: `{kit_command(kit.root, 'check ' + ex['id'])}`"
            " runs them all)")
    state = progress.device_code_checked(
        kit, ex, progress.verdict(ex, first.cases, program_passed=first.end.exit_code == 0))
    if state.name == progress.DONE and state.reason:  # right, with a note on its speed
        say(f"Note: {state.reason}.")
    if state.name == progress.DONE and not pattern:
        # The first exercise not done, as status's Next: one skipped before this one counts.
        following = next((other for other in kit.exercises
                          if other is not ex and not known_done(kit, other)), None)
        next_step = (f"next: `{kit_command(kit.root, 'check ' + following['id'])}` "
                     f"({from_here(kit.root, following['stub'])})" if following else
                     f"every exercise is done: `{kit_command(kit.root, 'status')}`")
        say(f"✓ Exercise {ex['id']} done — {next_step}")
        return 0
    if state.name == progress.DONE:
        say(f"✓ The tests matching *{pattern}* pass.")
        return 0
    say(f"{MARKS[state.name]} Exercise {ex['id']} is not done yet ({stub}): "
        f"{state.reason}. Stuck? {hint_command}")
    return 1


def compile_failure(kit: Kit, ex: dict, build_output: str, hint_command: str) -> int:
    """The first error of the student's file on top, then where the rest is."""
    error = diagnose.first_error(ex, build_output)
    stub = from_here(kit.root, ex["stub"])
    if error is None:  # something else failed to build: show the end of the build
        say(build_output[-3000:])
        say(f"✗ Exercise {ex['id']} did not build, but not because of {stub}: the messages "
            "above say why.")
    else:
        for line in diagnose.render_error(kit, ex, error, lambda p: from_here(kit.root, p)):
            say(line)
        more = len(diagnose.own_file_errors(ex, build_output)) - 1
        say()
        say(f"✗ {stub} does not compile yet"
            + (f" (and {diagnose.count(more, 'more error')} in it: fix this one first, "
               "the others often follow from it)" if more > 0 else "")
            + f". Stuck? {hint_command}")
    say(f"full log: {from_here(kit.root, BUILD_LOG)}")
    return 1


# ---- hint, watch, reset, show ---------------------------------------------------------

def hint(kit: Kit, number: str | None, level: int) -> int:
    ex = chosen(kit, number)
    hints = ex["hints"]
    level = min(max(level, 1), len(hints))
    say(f"Exercise {ex['id']} — hint {level} of {len(hints)}:")
    say(f"  {hints[level - 1]}")
    for cell in ex.get("notebook", []):  # the public notebook cells the exercise mirrors
        say(f"Notebook, {cell['function']}: {cell['cell']} of {cell['url']} — {cell['call']}")
    if level < len(hints):
        more = kit_command(kit.root, f"hint {ex['id']} {level + 1}")
        say(f"More: `{more}`")
    return 0


def watch(kit: Kit, number: str | None) -> int:
    """Checks the exercise once, then again each time its file is saved, until Ctrl-C. Each
    check redraws the screen with its verdict on top. Without a number: the Next exercise
    first, then whichever file is saved."""
    first = chosen(kit, number)
    watched = [first] if number is not None else kit.exercises
    files = {kit.root / ex["stub"]: ex for ex in watched}
    seen = {path: path.stat().st_mtime for path in files if path.exists()}
    footer = ("Watching "
              f"{from_here(kit.root, first['stub']) if number is not None else 'exercises/'}"
              ": save to check again. Ctrl-C stops.")
    try:
        redraw(watched_check(kit, first), footer)
        while True:
            time.sleep(1)
            for path, ex in files.items():
                mtime = path.stat().st_mtime if path.exists() else None
                if mtime != seen.get(path):
                    seen[path] = mtime
                    say(f"… {from_here(kit.root, ex['stub'])} changed: checking exercise "
                        f"{ex['id']} ...")
                    redraw(watched_check(kit, ex), footer)
    except KeyboardInterrupt:
        say()
        return 0


class ScreenBuffer(io.StringIO):
    """What `check` prints for watch to redraw, kept as a terminal would show it: where the
    real output is a terminal, `check` draws its pictures in colour into this too."""

    def __init__(self, screen):
        super().__init__()
        self.screen = screen

    def isatty(self) -> bool:
        return self.screen.isatty()


def watched_check(kit: Kit, ex: dict) -> list:
    """The lines `check` prints for `ex`, its verdict (the last line) moved to the top."""
    printed = ScreenBuffer(sys.stdout)
    with contextlib.redirect_stdout(printed):
        check(kit, ex["id"])
    lines = printed.getvalue().rstrip("\n").splitlines()
    saved = datetime.datetime.now().strftime("%H:%M:%S")
    return [f"{lines[-1]}  [{saved}]", "", *lines[:-1]] if lines else []


def redraw(lines: list, footer: str) -> None:
    """On a terminal the screen is cleared first, as rustlings does: only the latest check
    is on it. In a log each check follows the last after a rule."""
    say("\033[H\033[2J\033[3J" if sys.stdout.isatty() else "-" * 72)
    for line in lines:
        say(line)
    say()
    say(footer)


def reset(kit: Kit, number: str) -> int:
    """Restores the stub's content from git (the blob exercises.json names); the
    student's file goes to .kit/backups/ first."""
    ex = kit.exercise(number)
    current = kit.root / ex["stub"]
    stub = from_here(kit.root, ex["stub"])
    if stubs.is_pristine(kit, ex):
        say(f"{stub} is already the untouched stub.")
        return 0
    content = stubs.pristine_content(kit, ex)
    if current.exists():
        backups = kit.root / ".kit" / "backups"
        backups.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = backups / f"{current.name}.{stamp}"
        backup.write_bytes(current.read_bytes())
        saved = from_here(kit.root, str(backup.relative_to(kit.root)))
        say(f"Your version is saved as {saved}")
        say(f"  to get it back: cp {saved} {stub}")
    current.write_bytes(content)
    say(f"{stub} is the stub again.")
    return 0


def show(kit: Kit, number: str | None, case: str | None) -> int:
    """A case's inputs, its expected outputs and yours, printed as PyTorch prints them."""
    ex = chosen(kit, number)
    for line in show_case.case_lines(kit, ex, case):
        say(line)
    return 0

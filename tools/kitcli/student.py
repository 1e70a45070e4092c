"""The student's commands: status, check, hint, watch and reset."""

from __future__ import annotations

import datetime
import time

from . import build, progress, reports, setup, stubs
from .catalogue import Kit
from .terminal import progress_bar, say, screen_width, shorten

MARKS = {progress.DONE: "✓", progress.FAILING: "✗", progress.SKIPPED: "·",
         progress.NOT_STARTED: "·"}


def status(kit: Kit) -> int:
    """Builds everything, runs every exercise, prints one line each and the progress bar.
    Exits 0 whenever it could build and report, whatever the score."""
    if not setup.install(kit):
        return 1
    say(build.announce(kit, "default", "your exercises"))
    configured, _, build_output = build.configure_and_build(kit, "default", build.STUDENT_VIEW)
    if not configured:
        say(build_output[-4000:])
        say("kit: cmake could not configure the build; the messages above say why.")
        return 1
    say("Running your exercises (ctest --preset default -L exercises) ...")
    ctest = build.run_ctest(kit, "default", "-L", "exercises")
    width = max(len(ex["name"]) for ex in kit.exercises)
    columns = screen_width()  # on a terminal, one screen line per exercise
    say()
    states = []
    for ex in kit.exercises:
        state = progress.exercise_state(kit, ex, "default", build_output, ctest.results)
        states.append((ex, state))
        line = f"  {MARKS[state.name]} {ex['id']} {ex['name']:<{width}}  {state.name}"
        say(shorten(line + (f": {state.reason}" if state.reason else ""), columns))
    done = sum(state.name == progress.DONE for _, state in states)
    say()
    say("  " + progress_bar(done, len(kit.exercises)))
    say()
    pending = [ex for ex, state in states if state.name != progress.DONE]
    if pending:
        ex = pending[0]
        say(f"Next: exercise {ex['id']}, {ex['title']} ({ex['source']})")
        say(f"      edit {ex['stub']}; `tools/kit check {ex['id']}` explains the failures, "
            f"`tools/kit hint {ex['id']}` gives a hint.")
    else:
        say("✓ Every exercise passes. Well done!")
    say(f"{done}/{len(kit.exercises)} exercises done")
    return 0


def check(kit: Kit, number: str) -> int:
    """Builds and runs one exercise's test program directly, printing every message."""
    ex = kit.exercise(number)
    if not setup.install(kit):
        return 1
    program = build.test_program(kit, "default", ex)
    say(f"Exercise {ex['id']}: {ex['title']}  ({ex['stub']})")
    if not (build.build_dir(kit, "default") / "build.ninja").exists():
        say(build.announce(kit, "default", f"exercise {ex['id']}"))
    configured, built, build_output = build.configure_and_build(kit, "default", program.name)
    if not configured or not built:
        say(build_output[-6000:])
        say(f"✗ {ex['stub']} does not compile yet: the compiler's first error is at the top "
            f"of the messages above. Stuck? `tools/kit hint {ex['id']}`")
        return 1
    report = build.gtest_report_path(kit, "default", ex)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    end = build.run_program(program, ["--gtest_brief=1", f"--gtest_output=json:{report}"],
                            kit.test_timeout_s, kit.root)
    for line in end.output.rstrip().splitlines():
        if not line.startswith("Running main() from"):  # gtest_main's greeting
            say(line)
    cases = reports.read_gtest_report(report)
    if cases is None:
        say(f"✗ {ex['stub']}: {progress.program_end_reason(end, kit.test_timeout_s)}")
        return 1
    state = progress.verdict(ex, cases, program_passed=end.exit_code == 0)
    if state.name == progress.DONE:
        following = kit.following(ex)
        next_step = (f"next: `tools/kit check {following['id']}` ({following['stub']})"
                     if following else "that was the last one: `tools/kit status`")
        say(f"✓ Exercise {ex['id']} done — {next_step}")
        return 0
    say(f"{MARKS[state.name]} Exercise {ex['id']} is not done yet ({ex['stub']}): "
        f"{state.reason}. Stuck? `tools/kit hint {ex['id']}`")
    return 1


def hint(kit: Kit, number: str, level: int) -> int:
    ex = kit.exercise(number)
    hints = ex["hints"]
    level = min(max(level, 1), len(hints))
    say(f"Exercise {ex['id']} — hint {level} of {len(hints)}:")
    say(f"  {hints[level - 1]}")
    for cell in ex.get("notebook", []):  # the public notebook cells the exercise mirrors
        say(f"Notebook, {cell['function']}: {cell['cell']} of {cell['url']} — {cell['call']}")
    if level < len(hints):
        say(f"More: `tools/kit hint {ex['id']} {level + 1}`")
    return 0


def watch(kit: Kit) -> int:
    """Re-checks an exercise each time its file is saved, until Ctrl-C."""
    files = {kit.root / ex["stub"]: ex for ex in kit.exercises}
    seen = {path: path.stat().st_mtime for path in files if path.exists()}
    say("Watching exercises/: save a file to check it. Ctrl-C stops.")
    try:
        while True:
            time.sleep(1)
            for path, ex in files.items():
                mtime = path.stat().st_mtime if path.exists() else None
                if mtime != seen.get(path):
                    seen[path] = mtime
                    say(f"\n--- {ex['stub']} changed ---")
                    check(kit, ex["id"])
    except KeyboardInterrupt:
        say()
        return 0


def reset(kit: Kit, number: str) -> int:
    """Restores the stub's content from git (the blob exercises.json names); the
    student's file goes to .kit/backups/ first."""
    ex = kit.exercise(number)
    current = kit.root / ex["stub"]
    if stubs.is_pristine(kit, ex):
        say(f"{ex['stub']} is already the untouched stub.")
        return 0
    stub = stubs.pristine_content(kit, ex)
    if current.exists():
        backups = kit.root / ".kit" / "backups"
        backups.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = backups / f"{current.name}.{stamp}"
        backup.write_bytes(current.read_bytes())
        say(f"Your version is saved as {backup.relative_to(kit.root)}")
    current.write_bytes(stub)
    say(f"{ex['stub']} is the stub again.")
    return 0

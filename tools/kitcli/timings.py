"""tools/kit dev timings: how long a student's commands take, measured in a fresh clone.

Every timing the kit documents comes from here (docs/timings.md, written by this from the run's
record in benchmarks/results/timings-<when>.json; tests/kit/test_docs.py keeps the two equal).
Each step runs as a student would run it, in a fresh clone of this kit's HEAD, one after
another: wall time, and the CPU time (user + system) of everything it ran, so that a busy
machine shows as wall time far above CPU time instead of flattering or spoiling the figure;
with the machine's load average before the step and its core count.

Steps: `status` on the untouched stubs, as at a terminal (it starts the kit's own part of the
build in the background); the first `check 01` at once, waiting for that build; in a second
fresh clone, the first `check 01` after the background build ended (a student who read the
stub first); `check 01` after an edit (the solution saved into exercises/, then four more
saves: the median of the five, which one busy moment cannot decide); the first `check` of
another exercise (03); with --all, also the first and a second `compare --quick` and the first
`book` (minutes). tools/kit runs under the Python that runs this script, as `tools/kit` does
on a system whose `python3` is the interpreter itself (a version manager's shim on PATH, as
pyenv's, adds 0.1 s to every command).
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from . import build
from .catalogue import Kit
from .terminal import say

RESULTS = Path("benchmarks") / "results"
DOC = Path("docs") / "timings.md"


def timed(command: list, cwd: Path) -> dict:
    """Runs `command` in `cwd` (its output discarded): {"wall_s", "cpu_s", "load", "exit"}."""
    load = os.getloadavg()[0]
    before = os.times()
    started = time.monotonic()
    finished = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load": round(load, 2),
            "exit": finished.returncode}


def wait_for_background_build(clone: Path) -> None:
    """Waits until the build `status` started in the background of `clone` ended."""
    pid_file = clone / "build" / build.BACKGROUND_PID
    while pid_file.exists() and build.background_build_pid(Kit.load(clone)) is not None:
        time.sleep(0.5)


def background_cpu_s(clone: Path) -> float:
    """The CPU time of the build `status` started in the background of `clone` (the `times`
    its shell printed last: user, then system time of its children), or 0 where none ran."""
    try:
        last = (clone / "build" / build.BACKGROUND_LOG).read_text(encoding="utf-8").split()[-2:]
    except (OSError, IndexError):
        return 0.0
    seconds = 0.0
    for value in last:  # "1m23.450000s"
        minutes, _, rest = value.rstrip("s").partition("m")
        try:
            seconds += float(minutes) * 60 + float(rest)
        except ValueError:
            return 0.0
    return seconds


# How many times check_after_edit saves and checks; its figure is the median.
EDIT_SAVES = 5


def steps(everything: bool) -> list:
    """(id, what a reader is told, the command, what to do before it, in a new clone) in the
    order they run."""
    def save_solution(clone: Path, save: int) -> None:
        exercise = clone / "exercises" / "01_dot_scores.cpp"
        if save == 0:
            shutil.copy(clone / "solutions" / "01_dot_scores.cpp", exercise)
        else:  # another save of the solved file: a comment added
            with exercise.open("a", encoding="utf-8") as file:
                file.write(f"// save {save}\n")

    def status_then_read(clone: Path, _save: int) -> None:
        subprocess.run(kit + ["status"], cwd=clone, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        wait_for_background_build(clone)

    kit = [sys.executable, "tools/kit"]
    listed = [
        ("status_fresh", "`tools/kit status`, every stub untouched (it starts the kit's own "
         "build in the background)", kit + ["status"], None, False),
        ("first_check_at_once", "the first `tools/kit check 01`, right after `status` (it "
         "waits for that build)", kit + ["check", "01"], None, False),
        ("first_check", "the first `tools/kit check 01` once `status`'s background build ended "
         "(a fresh clone, the stub read first)", kit + ["check", "01"], status_then_read, True),
        ("check_after_edit", f"`tools/kit check 01` after saving an edit (the median of "
         f"{EDIT_SAVES} saves)",
         kit + ["check", "01"], save_solution, False),
        ("first_check_other", "the first `tools/kit check 03`, another exercise",
         kit + ["check", "03"], None, False),
    ]
    if everything:
        listed += [
            ("compare_quick_first", "the first `tools/kit compare --quick` (its optimised "
             "build once)", kit + ["compare", "--quick"], None, False),
            ("compare_quick", "`tools/kit compare --quick` again", kit + ["compare", "--quick"],
             None, False),
            ("book_first", "the first `tools/kit book`", kit + ["book"], None, False),
        ]
    return listed


def render(record: dict) -> str:
    """docs/timings.md of a run's record."""
    prose = [
        "Written by `tools/kit dev timings` from its last run "
        f"(`{record['file']}`); do not edit. Each step ran in a fresh clone of commit "
        f"{record['commit']}, one after another, on a machine of {record['cores']} cores. Wall "
        "time is what you wait; CPU time (user + system, of everything the step ran) is what "
        "the work costs, which a busy machine cannot flatter: where wall time is far above CPU "
        "time divided by the cores, the machine was busy or waiting.",
        "At a terminal, `status` starts the kit's own libraries, which every exercise links, "
        "and the first exercise's test program (its stub as it is) compiling in the "
        "background while you read the first stub; a `check` that comes sooner waits for "
        "them, and its CPU time here includes theirs.",
    ]
    lines = ["# How long the kit's commands take", ""]
    for paragraph in prose:
        lines += textwrap.wrap(paragraph, width=92) + [""]
    lines += [
        "| step | wall | CPU | load before |",
        "|---|---|---|---|",
    ]
    for step in record["steps"]:
        lines.append(f"| {step['what']} | {step['wall_s']:.1f} s | {step['cpu_s']:.1f} s | "
                     f"{step['load']:.2f} |")
    for step in record["steps"]:
        if "runs_wall_s" in step:
            runs = ", ".join(f"{wall:.1f}" for wall in step["runs_wall_s"])
            lines += [""] + textwrap.wrap(f"{step['what'][:1].upper()}{step['what'][1:]}, "
                                          f"each save in turn: {runs} s wall.", width=92)
    return "\n".join(lines) + "\n"


def latest(root: Path) -> Path | None:
    """The newest record in benchmarks/results/, or None."""
    records = sorted((root / RESULTS).glob("timings-*.json"))
    return records[-1] if records else None


def run(kit: Kit, everything: bool) -> int:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=kit.root, text=True,
                            capture_output=True).stdout.strip()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H%M")
    measured = []
    # As a student at a terminal: status starts the kit's build in the background.
    os.environ["ATTN_BACKGROUND_BUILD"] = "1"
    with tempfile.TemporaryDirectory(prefix="kit-timings-") as folder:
        clone = Path(folder) / "kit"
        subprocess.run(["git", "clone", "-q", str(kit.root), str(clone)], check=True)
        for number, (step_id, what, command, before, fresh) in enumerate(steps(everything)):
            if fresh:  # in a clone of its own; the steps after it go on in that clone
                wait_for_background_build(clone)
                clone = Path(folder) / f"kit-{number}"
                subprocess.run(["git", "clone", "-q", str(kit.root), str(clone)], check=True)
            if fresh:  # the background build: how long a student reads before it is done
                load, started = os.getloadavg()[0], time.monotonic()
                before(clone, 0)
                measured.append({"id": "background_build", "what": "`status`'s background "
                                 "build, from `status` to its end (in that clone)",
                                 "wall_s": round(time.monotonic() - started, 1),
                                 "cpu_s": round(background_cpu_s(clone), 1),
                                 "load": round(load, 2), "exit": 0})
            elif before and step_id != "check_after_edit":
                before(clone, 0)
            if step_id == "check_after_edit":
                runs = []
                for save in range(EDIT_SAVES):
                    before(clone, save)
                    runs.append(timed(command, clone))
                result = dict(sorted(runs, key=lambda run: run["wall_s"])[len(runs) // 2],
                              runs_wall_s=[run["wall_s"] for run in runs])
            else:
                result = timed(command, clone)
            if step_id == "first_check_at_once":  # it waited for status's background build
                wait_for_background_build(clone)
                result["cpu_s"] = round(result["cpu_s"] + background_cpu_s(clone), 1)
            say(f"  {what}: {result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} s CPU "
                f"(load {result['load']:.2f} before; exit {result['exit']})")
            measured.append({"id": step_id, "what": what, **result})
        wait_for_background_build(clone)
    name = f"timings-{when}.json"
    record = {"file": str(RESULTS / name), "commit": commit, "when": when,
              "cores": os.cpu_count(), "steps": measured}
    (kit.root / RESULTS).mkdir(parents=True, exist_ok=True)
    (kit.root / RESULTS / name).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    (kit.root / DOC).write_text(render(record), encoding="utf-8")
    say(f"kit dev timings: {RESULTS / name} and {DOC} written")
    return 0

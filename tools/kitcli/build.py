"""Building and running through the CMake presets: configure and build (showing ninja's
progress), the kit's own build started in the background by `status`, ctest with a JUnit
file, the first compile error of one exercise, and one test program run directly."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from kitlib import precompiled

from . import diagnose, reports
from .catalogue import Kit
from .terminal import BuildProgress, say


def run_command(command: list, cwd: Path, timeout: float | None = None) -> tuple:
    """Runs a command; returns (exit status, stdout and stderr together)."""
    result = subprocess.run(command, cwd=cwd, text=True, timeout=timeout,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return result.returncode, result.stdout


def build_dir(kit: Kit, preset: str) -> Path:
    return kit.root / ("build" if preset == "default" else f"build-{preset}")


def reports_dir(kit: Kit, preset: str) -> Path:
    return build_dir(kit, preset) / "reports"


def test_program(kit: Kit, preset: str, ex: dict) -> Path:
    return build_dir(kit, preset) / "bin" / f"test_ex{ex['id']}_exercises"


def verdicts_path(kit: Kit, preset: str, ex: dict) -> Path:
    """Where the test program of `ex`'s exercises track writes its verdict stream under ctest
    (cmake/AttnExercise.cmake)."""
    return reports_dir(kit, preset) / f"ex{ex['id']}.exercises.verdicts"


# ninja's progress line, "[12/34] Building CXX object ...", in the format NINJA_STATUS sets.
NINJA_STATUS = "[%f/%t] "
NINJA_STEP = re.compile(r"^\[(\d+)/(\d+)\] ")


def announce(kit: Kit, preset: str, what: str) -> str:
    """The line said before a build: what it builds, and on the first build that the kit it
    links is built once (the progress line then estimates the wait from this machine's pace)."""
    if (build_dir(kit, preset) / "build.ninja").exists():
        return f"Building {what} ..."
    return (f"First build of {what} and the kit it links: once; later builds compile only "
            "what changed.")


# What every exercise's test program links, whichever exercise a student starts with: built
# by `status` in the background while the student reads the first stub (start_kit_build),
# with that exercise's test program.
KIT_TARGETS = ("kit_core", "kit_testing", "kit_testing_main", "attn_exercise_pch")
BACKGROUND_PID = "kit-background-build.pid"
BACKGROUND_LOG = "kit-background-build.log"


def background_wanted() -> bool:
    """A student at a terminal, or ATTN_BACKGROUND_BUILD=1 (tools/kit dev timings); never
    in a script or CI (ATTN_BACKGROUND_BUILD=0, or output not to a terminal), where a build
    left running would outlive the command that started it."""
    chosen = os.environ.get("ATTN_BACKGROUND_BUILD", "")
    return chosen == "1" or (chosen != "0" and sys.stdout.isatty())


def start_kit_build(kit: Kit, first: dict) -> bool:
    """Starts building, detached and at the lowest priority, the kit's own part of the
    student's build (KIT_TARGETS) and exercise `first`'s test program, with the student's
    file as it is then (the stub, unless saved meanwhile), unless it is built, being built,
    or not wanted here. A first `check` of `first` then has only its tests to run (it waits
    for this build: wait_for_kit_build), and shows the warnings of that compile
    (background_output). The build preset keeps going (ninja -k 0): a file the student
    breaks meanwhile stops nothing else. True if started."""
    folder = build_dir(kit, "default")
    if not background_wanted() or (folder / "libkit_testing.a").exists() or \
            background_build_pid(kit) is not None:
        return False
    folder.mkdir(parents=True, exist_ok=True)
    # `times` ends the log with the CPU time it took (tools/kit dev timings reads it). One job
    # per core, not ninja's cores + 2: the same wall time, 2.6 s less CPU on 2 cores.
    targets = KIT_TARGETS + (test_program(kit, "default", first).name,)
    script = (f"cmake --preset default && cmake --build --preset default --parallel "
              f"{os.cpu_count() or 1} --target {' '.join(targets)}; times")
    with open(folder / BACKGROUND_LOG, "w", encoding="utf-8") as log:
        process = subprocess.Popen(["nice", "-n", "10", "sh", "-c", script], cwd=kit.root,
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   start_new_session=True)
    (folder / BACKGROUND_PID).write_text(f"{process.pid}\n", encoding="utf-8")
    return True


def background_output(kit: Kit) -> str:
    """What status's background build printed so far; "" if none ran."""
    try:
        return (build_dir(kit, "default") / BACKGROUND_LOG).read_text(encoding="utf-8",
                                                                       errors="replace")
    except OSError:
        return ""


def background_build_pid(kit: Kit) -> int | None:
    """The background build's process while it runs (its pid file names a live `sh` of ours),
    else None (and the stale pid file is removed)."""
    pid_file = build_dir(kit, "default") / BACKGROUND_PID
    try:
        pid = int(pid_file.read_text(encoding="utf-8"))
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        command = b""
    if b"cmake --build --preset default" in command:
        return pid
    with contextlib.suppress(OSError):
        pid_file.unlink()
    return None


def wait_for_kit_build(kit: Kit, preset: str) -> None:
    """Waits for the background build `status` started, if it still runs: two builds in one
    folder would spoil each other's work. Says so, and how long it has waited."""
    if preset != "default" or background_build_pid(kit) is None:
        return
    say("Waiting for the kit's own build, which `status` started in the background ...")
    started = time.monotonic()
    while background_build_pid(kit) is not None:
        time.sleep(0.2)
    say(f"  done after {time.monotonic() - started:.0f} s of waiting")


def configure(kit: Kit, preset: str) -> tuple:
    """(configured, cmake's output). A configured build folder is not configured again: ninja
    re-runs cmake itself when a CMakeLists.txt or exercises.json changes, and skipping it
    keeps `check` after an edit fast."""
    wait_for_kit_build(kit, preset)
    if (build_dir(kit, preset) / "build.ninja").exists():
        return True, ""
    code, output = run_command(["cmake", "--preset", preset], kit.root)
    return code == 0, output


def configure_and_build(kit: Kit, preset: str, *targets: str) -> tuple:
    """Returns (configured, built, build output), showing ninja's progress as it goes. No
    target: the preset's default. A student's compile error leaves `built` False but the
    rest built: the build presets keep going (ninja -k 0). The output is also kept in
    <build>/kit-build.log."""
    configured, output = configure(kit, preset)
    if not configured:
        return False, False, output
    precompiled.remove_stale_for_ccache(build_dir(kit, preset))
    command = ["cmake", "--build", "--preset", preset] + (["--target", *targets] if targets else [])
    code, output = run_with_progress(command, kit.root)
    (build_dir(kit, preset) / "kit-build.log").write_text(output, encoding="utf-8")
    return True, code == 0, output


def run_with_progress(command: list, cwd: Path) -> tuple:
    """Runs a build, feeding each of ninja's "[done/total]" lines to a BuildProgress;
    returns (exit status, the whole output)."""
    environment = dict(os.environ, NINJA_STATUS=NINJA_STATUS)
    lines = []
    with subprocess.Popen(command, cwd=cwd, env=environment, text=True, errors="replace",
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as process, \
            BuildProgress() as progress:
        for line in process.stdout:
            lines.append(line)
            step = NINJA_STEP.match(line)
            if step:
                progress.update(int(step[1]), int(step[2]))
    return process.returncode, "".join(lines)


@dataclass(frozen=True)
class CtestRun:
    exit_code: int
    output: str    # for people only: results come from `results`
    results: dict  # {ctest test name: reports.CtestResult}, from ctest's JUnit file


def run_ctest(kit: Kit, preset: str, *selection: str) -> CtestRun:
    """Runs ctest after clearing the reports of earlier runs, so a report that exists
    was written by this run."""
    folder = reports_dir(kit, preset)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    junit = folder / "ctest.junit.xml"
    code, output = run_command(["ctest", "--preset", preset, "-j", str(os.cpu_count() or 2),
                                "--output-junit", str(junit), *selection], kit.root)
    return CtestRun(code, output, reports.read_junit(junit))


def compile_error(ex: dict, build_output: str) -> str | None:
    """If the exercise's file did not compile or link: its first error as one line,
    preferring one in the file itself (diagnose.py reads the compiler's output)."""
    error = diagnose.first_error(ex, build_output)
    if error is not None:
        return diagnose.one_line(ex, error)
    if diagnose.failed_steps(build_output, ex).strip() or any(
            line.startswith("FAILED:") and f"ex{ex['id']}_exercises" in line
            for line in build_output.splitlines()):
        return f"see `tools/kit check {ex['id']}`"
    return None


@dataclass(frozen=True)
class ProgramEnd:
    """How one run of a program ended."""
    exit_code: int | None  # negative: killed by that signal; None: timed out or not found
    output: str = ""
    timed_out: bool = False
    not_found: bool = False

    @property
    def signal(self) -> int | None:
        return -self.exit_code if self.exit_code is not None and self.exit_code < 0 else None


def run_program(program: Path, arguments: list, timeout_s: float, cwd: Path) -> ProgramEnd:
    try:
        code, output = run_command([str(program), *arguments], cwd, timeout=timeout_s)
    except subprocess.TimeoutExpired as timeout:  # keep what it printed before it hung
        printed = timeout.stdout or ""
        if isinstance(printed, bytes):
            printed = printed.decode("utf-8", "replace")
        return ProgramEnd(None, output=printed, timed_out=True)
    except (FileNotFoundError, PermissionError):
        return ProgramEnd(None, not_found=True)
    return ProgramEnd(code, output)


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"

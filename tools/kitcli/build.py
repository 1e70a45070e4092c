"""Building and running through the CMake presets: configure and build (showing ninja's
progress), ctest with a JUnit file, the first compile error of one exercise, and one test
program run directly."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import diagnose, reports
from .catalogue import Kit
from .terminal import BuildProgress


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


def configure(kit: Kit, preset: str) -> tuple:
    """(configured, cmake's output). A configured build folder is not configured again: ninja
    re-runs cmake itself when a CMakeLists.txt or exercises.json changes, and skipping it
    keeps `check` after an edit fast."""
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

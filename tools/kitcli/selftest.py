"""`tools/kit test`: the kit's own test suite, for maintainers and CI. Both tracks build;
the solutions and the kit's own tests all pass; every untouched stub fails cleanly, naming
its file; and, given a Python with PyTorch, `tools/record --check` recomputes every golden."""

from __future__ import annotations

import sys
from pathlib import Path

from . import build, progress, reports, setup, stubs
from .catalogue import Kit
from .terminal import say


def python_with_torch(kit: Kit) -> str | None:
    """Debian's python3 (python3-torch), else the one running tools/kit, if it has torch."""
    for candidate in ("/usr/bin/python3", sys.executable):
        if candidate and Path(candidate).exists() and build.run_command(
                [candidate, "-c", "import torch, numpy"], kit.root)[0] == 0:
            return candidate
    return None


def stub_problems(kit: Kit, preset: str, ctest_results: dict) -> tuple:
    """Every untouched stub's tests fail, each failure naming the stub file, none crash.
    Returns (problems, number of stubs checked)."""
    problems, checked = [], 0
    for ex in kit.exercises:
        if not stubs.is_pristine(kit, ex):
            say(f"  (skipping {ex['stub']}: it is not the stub exercises.json records)")
            continue
        checked += 1
        cases = reports.read_gtest_report(build.gtest_report_path(kit, preset, ex))
        if cases is None:
            reason = progress.missing_report_reason(
                kit, ex, preset, ctest_results.get(f"ex{ex['id']}.exercises"))
            problems.append(f"{ex['stub']}: {reason}")
            continue
        failed = [case for case in cases if case.outcome == "failed"]
        if not failed:
            problems.append(f"{ex['stub']}: the untouched stub passes its tests")
        problems += [f"{ex['stub']}: {case.name} failed without naming the stub: {case.failure}"
                     for case in failed
                     if progress.STUB_MARKER in case.failure and ex["stub"] not in case.failure]
    return problems, checked


def ctest_passed(ctest: build.CtestRun) -> bool:
    """Every test passed, by ctest's exit status and by its JUnit file."""
    results = ctest.results.values()
    return ctest.exit_code == 0 and bool(results) and all(result.passed for result in results)


def ctest_summary(ctest: build.CtestRun) -> list:
    """Lines that say how the ctest run went, from its JUnit file."""
    results = ctest.results.values()
    if not results:
        return [f"  ✗ ctest wrote no JUnit file (exit status {ctest.exit_code})"]
    failed = [result for result in results if not result.passed]
    return ([f"  {len(results) - len(failed)}/{len(results)} ctest tests passed"]
            + [f"  ✗ {result.name}: {result.status}"
               + (f" ({result.message})" if result.message else "") for result in failed])


def run(kit: Kit, preset: str, goldens_check: bool) -> int:
    if not setup.install(kit):
        return 1
    say(f"kit test: building both tracks and the kit's tests (preset {preset}) ...")
    configured, built, build_output = build.configure_and_build(kit, preset)
    if not (configured and built):
        say(build_output[-6000:])
        say("kit test: FAILED to build")
        return 1

    say("kit test: the solutions track and the kit's own tests (ctest -LE exercises):")
    ctest = build.run_ctest(kit, preset, "-LE", "exercises")
    if ctest.exit_code != 0:
        say(ctest.output.rstrip())  # in full only when something failed
    for line in ctest_summary(ctest):
        say(line)
    ok = ctest_passed(ctest)

    say("kit test: the untouched stubs must fail cleanly (ctest -L exercises):")
    ctest = build.run_ctest(kit, preset, "-L", "exercises")
    problems, checked = stub_problems(kit, preset, ctest.results)
    for problem in problems:
        say("  " + problem)
    if checked:  # never claim anything of zero stubs
        say(f"  {checked} untouched stubs checked: "
            + (f"{len(problems)} problems" if problems else "each fails cleanly, naming its file"))
    else:
        say("  no untouched stub to check: every exercise file has been edited")
    ok &= not problems

    if goldens_check:
        python = python_with_torch(kit)
        if python is None:
            say("kit test: tools/record --check skipped: no Python with PyTorch here "
                "(tools/kit setup --recorder)")
        else:
            say(f"kit test: recomputing every golden with PyTorch ({python} tools/record "
                "--check) ...")
            code, output = build.run_command([python, "tools/record", "--check"], kit.root)
            say(output.rstrip())
            ok &= code == 0
    say("kit test: all checks passed" if ok else "kit test: FAILED")
    return 0 if ok else 1

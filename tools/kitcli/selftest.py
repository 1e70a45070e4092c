"""`tools/kit test`: the kit's own test suite, for maintainers and CI. Both tracks build;
the solutions and the kit's own tests all pass; every untouched stub fails cleanly, naming
its file; given a Python with PyTorch, `tools/record --check` recomputes every golden; and
tools/grade grades the synthetic class (tests/grading/), every gradebook cell as deserved."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
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
    """Every test passed or said it cannot run here, by ctest's exit status and by its JUnit
    file."""
    results = ctest.results.values()
    return ctest.exit_code == 0 and bool(results) and \
        all(result.passed or result.skipped for result in results)


def ctest_summary(ctest: build.CtestRun) -> list:
    """Lines that say how the ctest run went, from its JUnit file. A skipped test is NOT RUN,
    never counted as passed."""
    results = ctest.results.values()
    if not results:
        return [f"  ✗ ctest wrote no JUnit file (exit status {ctest.exit_code})"]
    failed = [result for result in results if not (result.passed or result.skipped)]
    skipped = [result.name for result in results if result.skipped]
    passed = len(results) - len(failed) - len(skipped)
    return ([f"  {passed}/{len(results)} ctest tests passed"]
            + ([f"  NOT RUN (each says why with `ctest -R NAME -V`: what it needs is missing "
                f"here): {', '.join(skipped)}"] if skipped else [])
            + [f"  ✗ {result.name}: {result.status}"
               + (f" ({result.message})" if result.message else "") for result in failed])


def grade_synthetic_class(kit: Kit, slow: bool = False) -> bool:
    """tests/grading/make_class.py, tools/grade, expected.py --check: the grader's own test,
    run from a clone of the kit's HEAD (what the grader grades with; edits in this working
    tree, a student's or a maintainer's uncommitted ones, neither count nor get in the way).
    As root the whole class, in the sandbox, then tests/grading/leftovers.py: nothing of a
    sandbox uid left anywhere, the clone and the class byte for byte unchanged. The students
    whose attack only the sandbox's uid change stops (expected.json's "needs_root") sit out as
    another user, and those only its namespaces stop ("needs_namespaces") where the machine
    refuses them (a chroot, a container): their checks are said to be NOT RUN, never passed.
    The "slow" ones (a compile that never ends: minutes of limits) only with `slow`."""
    from grader.sandbox import isolation, namespaces_problem  # tools/ is on the path

    if not (kit.root / ".git").exists():
        say("kit test: grading the synthetic class skipped: tools/grade builds the kit's git "
            "HEAD, and this copy has no .git")
        return True
    mode = isolation()
    # Under /tmp (searchable by all), 0711: the sandbox's uid must pass through to --out.
    work = Path(tempfile.mkdtemp(prefix="attn-grading."))
    os.chmod(work, 0o711)
    try:
        clone = work / "kit"
        code, output = build.run_command(["git", "clone", "--quiet", "--shared", str(kit.root),
                                          str(clone)], kit.root)
        if code != 0:
            say(output.rstrip())
            return False
        grading = clone / "tests" / "grading"
        students = json.loads((grading / "expected.json").read_text(encoding="utf-8"))["students"]
        needs = ["needs_root"] if mode == "none" else ["needs_namespaces"] if mode == "uid" else []
        left_out = [name for name, spec in students.items() if any(key in spec for key in needs)]
        why = {"none": "not root: no sandbox",
               "uid": f"no namespaces here ({namespaces_problem()}); graded --without-namespaces"}
        slow_ones = [name for name, spec in students.items()
                     if spec.get("slow") and name not in left_out and not slow]
        say(f"kit test: grading the synthetic class (tests/grading/, "
            f"{len(students) - len(left_out) - len(slow_ones)} students) with tools/grade ...")
        if left_out:
            say(f"  NOT RUN ({why[mode]}): the checks of {', '.join(left_out)}")
        if slow_ones:
            say(f"  left out (slow; tools/kit test --full grades them): {', '.join(slow_ones)}")
        graded, klass = work / "graded", work / "class"
        make = [sys.executable, str(grading / "make_class.py"), str(klass)]
        for name in students:
            if name not in left_out and name not in slow_ones:
                make += ["--only", name]
        expected = [sys.executable, str(grading / "expected.py"), "--check",
                    str(graded / "gradebook.csv")]
        expected += {"none": ["--unsandboxed"], "uid": ["--no-namespaces"]}.get(mode, [])
        expected += [] if slow else ["--fast"]
        leftovers = [sys.executable, str(grading / "leftovers.py")]
        where = [str(work / "leftovers.json"), "--kit", str(clone), "--class", str(klass)]
        steps = [make] + ([leftovers + ["snapshot"] + where] if mode != "none" else []) + [
            [sys.executable, str(clone / "tools" / "grade"), str(klass),
             "--out", str(graded), "--jobs", str(os.cpu_count() or 2)]
            + (["--without-namespaces"] if mode == "uid" else []),
            expected]
        if mode != "none":  # only root sees every sandbox uid's files and IPC objects
            # A student's machine is busy with other things (a compiler's /tmp/cc*.s): there
            # only the sandbox uids' leftovers count; --full (CI, maintainers) also counts
            # any new name in /tmp, /var/tmp, /dev/shm, /run/lock.
            steps.append(leftovers + ["check"] + where + ["--out", str(graded)]
                         + ([] if slow else ["--ignore", "*"]))
        for step in steps:
            code, output = build.run_command(step, clone)
            if code != 0:
                say(output.rstrip()[-6000:])
                return False
            if step is expected:
                say("  " + output.strip().splitlines()[-1])
        if mode != "none":
            say("  " + output.strip().splitlines()[-1])
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(kit: Kit, preset: str, goldens_check: bool, grading: bool = True,
        full: bool = False) -> int:
    if not setup.install(kit, with_grader=grading and os.geteuid() == 0):
        return 1
    say(f"kit test: building both tracks and the kit's tests (preset {preset}) ...")
    configured, built, build_output = build.configure_and_build(kit, preset)
    if not (configured and built):
        say(build_output[-6000:])
        say("kit test: FAILED to build")
        return 1

    # A sanitizer preset leaves out the Python-only tests (label "python"): they run nothing
    # the preset's flags built, and the default preset's run has them.
    excluded = "exercises" if preset == "default" else "exercises|python"
    say(f"kit test: the solutions track and the kit's own tests (ctest -LE '{excluded}'):")
    ctest = build.run_ctest(kit, preset, "-LE", excluded)
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
    if grading:
        ok &= grade_synthetic_class(kit, slow=full)
    say("kit test: all checks passed" if ok else "kit test: FAILED")
    return 0 if ok else 1

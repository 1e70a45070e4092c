"""`tools/kit test`: the kit's own test suite. It tests the kit, never the student's work: it
builds in build-selftest/ with the stubs as git holds them (exercises.json's stub_blob, written
to build-selftest/stubs/) as the exercises track, so whatever a student has done to exercises/
neither counts nor gets in the way.

Stages, each timed:
  build      both tracks and the kit's tests (preset selftest)
  tests      the solutions track and the kit's own tests at 100 % (ctest; "full" ones with --full)
  stubs      every stub's tests fail cleanly, each failure naming the stub's file
  grading    tools/grade on part of the synthetic class (tests/grading/), every gradebook cell
             as deserved, the pristine kit built once (build-selftest's grading kit) and reused
--full adds what only maintainers and CI need:
  goldens    every golden recomputed by PyTorch (tools/record --check)
  grading    the whole synthetic class, the hostile and the slow students included
  sanitizers the suite built and run with AddressSanitizer + UBSan (preset selftest-asan), and
             every exercise's sanitized program (what `check` builds on demand)
  hidden     a hidden case set: runner and judge, a class graded with it, its report in
             chromium, Gradescope's layout and a Slurm cluster (tests/grading/hidden_set_check.sh)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from . import build, diagnose, progress, reports, setup, stubs
from .catalogue import Kit, KitError
from .terminal import Heartbeat, say

PRESET, ASAN_PRESET = "selftest", "selftest-asan"
# The slice of the synthetic class `tools/kit test` grades: a student of each outcome the
# gradebook shows (all, none, a compile failure, a crash, one attack), on the exercises where
# their grades differ. --full grades the whole class on every exercise.
SLICE_STUDENTS = ("solved", "stubs", "no_compile_03", "segfault_04", "reads_public_goldens")
SLICE_EXERCISES = "01,03,04"


class Stages:
    """Runs the named stages, each with a Heartbeat line every 15 s, and remembers how long
    each took and whether it passed, for the summary at the end."""

    def __init__(self):
        self.times: list = []  # [(name, seconds, passed)]

    @contextmanager
    def stage(self, name: str, what: str):
        say(f"kit test: {what} ...")
        started = time.monotonic()
        outcome = {"passed": True}
        with Heartbeat(name):
            yield outcome
        seconds = time.monotonic() - started
        self.times.append((name, seconds, outcome["passed"]))
        say(f"  {name}: {'passed' if outcome['passed'] else 'FAILED'} in {seconds:.0f} s")

    @property
    def passed(self) -> bool:
        return all(passed for _, _, passed in self.times)

    def summary(self) -> str:
        total = sum(seconds for _, seconds, _ in self.times)
        parts = ", ".join(f"{name} {seconds:.0f} s" + ("" if passed else " (FAILED)")
                          for name, seconds, passed in self.times)
        return f"kit test: {total:.0f} s ({parts})"


def python_with_torch(kit: Kit) -> str | None:
    """Debian's python3 (python3-torch), else the one running tools/kit, if it has torch."""
    for candidate in ("/usr/bin/python3", sys.executable):
        if candidate and Path(candidate).exists() and build.run_command(
                [candidate, "-c", "import torch, numpy"], kit.root)[0] == 0:
            return candidate
    return None


def stubs_folder(kit: Kit) -> Path:
    """Where the selftest presets find their exercises track (CMakePresets.json)."""
    return build.build_dir(kit, PRESET) / "stubs"


def write_pristine_stubs(kit: Kit) -> None:
    """The stubs as git holds them, in stubs_folder(). A file already right is left alone, so
    a warm build compiles nothing again."""
    folder = stubs_folder(kit)
    folder.mkdir(parents=True, exist_ok=True)
    for ex in kit.exercises:
        target = folder / Path(ex["stub"]).name
        content = stubs.pristine_content(kit, ex)
        if not target.is_file() or target.read_bytes() != content:
            target.write_bytes(content)


def stub_problems(kit: Kit, preset: str, ctest_results: dict) -> list:
    """Every stub's tests fail, each failure naming the stub file, none crash."""
    problems = []
    for ex in kit.exercises:
        stream = reports.read_verdicts(build.verdicts_path(kit, preset, ex))
        if stream is None or not stream.finished:
            reason = progress.missing_report_reason(
                kit, ex, ctest_results.get(f"ex{ex['id']}.exercises"), stream)
            problems.append(f"{ex['stub']}: {reason}")
            continue
        cases = stream.tests
        failed = [case for case in cases if case.outcome == "failed"]
        passed = [case.name for case in cases if case.outcome == "passed"]
        if passed:
            problems.append(f"{ex['stub']}: the untouched stub passes {', '.join(passed)}")
        problems += [f"{ex['stub']}: {case.name} failed without naming the stub: {case.failure}"
                     for case in failed if ex["stub"] not in case.failure]
    return problems


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


def stub_warnings(ex: dict, build_output: str) -> list:
    """The compiler's warnings for `ex`'s stub, which this build compiles from its own copy
    of the stubs (build-selftest/stubs/): matched by file name, the solution's left out."""
    name = Path(ex["stub"]).name
    return [d for d in diagnose.parse_compiler_output(build_output)
            if d.severity == "warning" and Path(d.path).name == name
            and "/solutions/" not in d.path]


def build_and_test(kit: Kit, stages: Stages, preset: str, excluded: str) -> None:
    """The build, the tests (ctest -LE excluded) and the stubs' clean failures of one preset."""
    with stages.stage("build" if preset == PRESET else "sanitizers build",
                      f"building both tracks and the kit's tests (preset {preset})") as stage:
        configured, built, build_output = build.configure_and_build(kit, preset)
        if not (configured and built):
            say(build_output[-6000:])
            stage["passed"] = False
            return
    with stages.stage("tests" if preset == PRESET else "sanitizers tests",
                      f"the solutions track and the kit's own tests (ctest -LE '{excluded}')"
                      ) as stage:
        ctest = build.run_ctest(kit, preset, "-LE", excluded)
        if ctest.exit_code != 0:
            say(ctest.output.rstrip())  # in full only when something failed
        for line in ctest_summary(ctest):
            say(line)
        stage["passed"] = ctest_passed(ctest)
    with stages.stage("stubs" if preset == PRESET else "sanitizers stubs",
                      "every untouched stub must fail cleanly (ctest -L exercises)") as stage:
        ctest = build.run_ctest(kit, preset, "-L", "exercises")
        problems = stub_problems(kit, preset, ctest.results)
        # A stub is teaching material: it compiles without a warning (checked where this
        # build compiled it; an incremental build that did not is checked by the next clean
        # one, as CI's).
        problems += [f"{ex['stub']}: the untouched stub compiles with "
                     f"{diagnose.count(len(found), 'compiler warning')}: {found[0].message}"
                     for ex in kit.exercises if (found := stub_warnings(ex, build_output))]
        for problem in problems:
            say("  " + problem)
        say(f"  {len(kit.exercises)} stubs: "
            + (diagnose.count(len(problems), "problem") if problems
               else "each fails cleanly, naming its file"))
        stage["passed"] = not problems


def grading_kit_folder(kit: Kit) -> Path:
    """Where tools/kit test keeps the pristine kit tools/grade grades with, built once and
    reused while HEAD stays the same. The sandbox's user must pass through every folder above
    it, which a home folder may not allow: then under /tmp, in a folder of this user's."""
    inside = build.build_dir(kit, PRESET) / "grading-kit"
    if all(folder.stat().st_mode & 0o001 for folder in inside.parent.resolve().parents
           if folder.exists()):
        return inside
    key = hashlib.sha1(str(kit.root.resolve()).encode()).hexdigest()[:10]
    outside = Path(tempfile.gettempdir()) / f"attn-kit-selftest-{os.geteuid()}-{key}"
    if outside.is_symlink() or (outside.exists() and outside.stat().st_uid != os.geteuid()):
        raise KitError(f"{outside} is not this user's folder: remove it")
    return outside


def prepare_grading_kit(kit: Kit) -> Path | None:
    """The pristine kit of HEAD that tools/grade grades with (--kit-build), built or brought up
    to date (only what a new commit changed is rebuilt); None, having said why, if it does not
    build."""
    tools = str(kit.root / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from grader import kitbuild  # noqa: E402  (tools/ is the package root of both)

    kit_dir = grading_kit_folder(kit)
    kit_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(kit_dir, 0o711)
    try:
        kitbuild.prepare(kit_dir, kitbuild.catalogue()["exercises"], os.cpu_count() or 2)
    except kitbuild.BuildError as error:
        say(f"  {error}")
        return None
    return kit_dir


def grade_synthetic_class(kit: Kit, full: bool) -> bool:
    """tests/grading/make_class.py, tools/grade, expected.py --check, as root in the sandbox,
    then tests/grading/leftovers.py: nothing of a sandbox uid left anywhere, the kit's export
    and the class byte for byte unchanged. tools/grade grades the kit's git HEAD (exported, never the
    working tree). The students whose attack only the sandbox's uid change stops (expected.json's
    "needs_root") sit out as another user, and those only its namespaces stop
    ("needs_namespaces") where the machine refuses them (a chroot, a container): their checks
    are said to be NOT RUN, never passed."""
    tools = str(kit.root / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from grader import kitbuild  # noqa: E402  (tools/ is the package root of both)
    from grader.sandbox import isolation, namespaces_problem  # noqa: E402

    if not (kit.root / ".git").exists():
        say("  skipped: tools/grade builds the kit's git HEAD, and this copy has no .git")
        return True
    mode = isolation()
    grading = kit.root / "tests" / "grading"
    students = json.loads((grading / "expected.json").read_text(encoding="utf-8"))["students"]
    needs = ["needs_root"] if mode == "none" else ["needs_namespaces"] if mode == "uid" else []
    chosen = [name for name in students if full or name in SLICE_STUDENTS]
    left_out = [name for name in chosen if any(key in students[name] for key in needs)]
    chosen = [name for name in chosen if name not in left_out]
    if left_out:
        why = {"none": "not root: no sandbox",
               "uid": f"no namespaces here ({namespaces_problem()}); graded "
                      "--without-namespaces"}[mode]
        say(f"  NOT RUN ({why}): the checks of {', '.join(left_out)}")
    kit_dir = prepare_grading_kit(kit)
    if kit_dir is None:
        return False
    say(f"  the kit's HEAD built in {kit_dir}; grading {diagnose.count(len(chosen), 'student')}"
        + ("" if full else f" on exercises {SLICE_EXERCISES}") + " ...")
    # Under /tmp (searchable by all), 0711: the sandbox's uid must pass through to the class.
    work = Path(tempfile.mkdtemp(prefix="attn-grading."))
    os.chmod(work, 0o711)
    try:
        graded, klass = work / "graded", work / "class"
        make = [sys.executable, str(grading / "make_class.py"), str(klass)]
        make += [argument for name in chosen for argument in ("--only", name)]
        exercises = [] if full else ["--exercises", SLICE_EXERCISES]
        expected = [sys.executable, str(grading / "expected.py"), "--check",
                    str(graded / "gradebook.csv"), *exercises]
        expected += [argument for name in chosen for argument in ("--only", name)]
        expected += {"none": ["--unsandboxed"], "uid": ["--no-namespaces"]}.get(mode, [])
        leftovers = [sys.executable, str(grading / "leftovers.py")]
        # The kit the sandbox could reach is the grader's export of HEAD, not this working
        # tree (which its owner may be editing meanwhile).
        where = [str(work / "leftovers.json"), "--kit", str(kit_dir / ".kit-src"),
                 "--class", str(klass)]
        grade = [sys.executable, str(kit.root / "tools" / "grade"), str(klass), "--out",
                 str(graded), "--kit-build", str(kit_dir), "--jobs", str(os.cpu_count() or 2),
                 *exercises] + (["--without-namespaces"] if mode == "uid" else [])
        steps = [make] + ([leftovers + ["snapshot"] + where] if mode != "none" else [])
        steps += [grade, expected]
        if mode != "none":  # only root sees every sandbox uid's files and IPC objects
            # A student's machine is busy with other things (a compiler's /tmp/cc*.s): there
            # only the sandbox uids' leftovers count; --full (CI, maintainers) also counts
            # any new name in /tmp, /var/tmp, /dev/shm, /run/lock.
            steps.append(leftovers + ["check"] + where + ["--out", str(graded)]
                         + ([] if full else ["--ignore", "*"]))
        for step in steps:
            code, output = build.run_command(step, kit.root)
            if code != 0:
                say(output.rstrip()[-6000:])
                return False
            if step is expected or step[1].endswith("leftovers.py") and "check" in step:
                say("  " + output.strip().splitlines()[-1])
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


def recompute_goldens(kit: Kit) -> bool:
    python = python_with_torch(kit)
    if python is None:
        say("  NOT RUN: no Python with PyTorch here (tools/kit setup --recorder)")
        return True
    code, output = build.run_command([python, "tools/record", "--check"], kit.root)
    say(output.rstrip())
    return code == 0


def run(kit: Kit, goldens_check: bool = True, grading: bool = True, full: bool = False) -> int:
    stages = Stages()
    as_root = os.geteuid() == 0
    if not setup.install(kit, with_grader=grading and as_root,
                         with_recorder=full and goldens_check and as_root):
        return 1
    write_pristine_stubs(kit)
    build_and_test(kit, stages, PRESET, "exercises" if full else "exercises|full")
    if full and goldens_check:
        with stages.stage("goldens", "recomputing every golden with PyTorch (tools/record "
                                     "--check)") as stage:
            stage["passed"] = recompute_goldens(kit)
    if grading:
        with stages.stage("grading", "grading the synthetic class with tools/grade "
                                     "(tests/grading/)") as stage:
            stage["passed"] = grade_synthetic_class(kit, full)
    if full:
        # The Python-only tests run nothing this build made, and the "full" ones already ran;
        # a sanitized build has no slips (AttnExercise.cmake).
        build_and_test(kit, stages, ASAN_PRESET, "exercises|python|full")
        with stages.stage("sanitized programs", "every exercise's sanitized program (what "
                                                "`check` builds on demand)") as stage:
            _, stage["passed"], output = build.configure_and_build(kit, PRESET,
                                                                   "sanitized_exercises")
            if not stage["passed"]:
                say(output[-6000:])
        if grading:
            with stages.stage("hidden", "a hidden case set: judged, graded, reported, on "
                                        "Gradescope and Slurm") as stage:
                script = kit.root / "tests" / "grading" / "hidden_set_check.sh"
                kit_dir = prepare_grading_kit(kit)  # HEAD may have moved since the grading
                if kit_dir is None:
                    stage["passed"] = False
                else:
                    code, output = build.run_command(
                        [str(script), str(build.build_dir(kit, PRESET)), str(kit_dir)], kit.root)
                    say(output.rstrip()[-6000:])
                    stage["passed"] = code == 0
    say(stages.summary())
    say("kit test: all checks passed" if stages.passed else "kit test: FAILED")
    return 0 if stages.passed else 1

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
             chromium, Gradescope's layout and a Slurm cluster (tests/grading/hidden_set_check.sh),
             each on a slice of the class and its exercises; Gradescope's setup.sh and Slurm
             build the pristine kit again, with ccache from the grading stage's compiles
             (shared_compiles)
The whole class is graded on every exercise once (grading); every stage's time is in the
summary line at the end ("kit test: N s, M s of CPU (wall/CPU: build ... s/... s, ...)"), which
.ci/run repeats.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

from kitlib.isolation import isolation, namespaces_problem

from . import build, diagnose, progress, reports, setup, stubs
from .catalogue import Kit, KitError
from .terminal import Heartbeat, say

PRESET, ASAN_PRESET = "selftest", "selftest-asan"
# A ccache folder the caller keeps between runs (.ci/run: CI runs on one machine, run after
# run): every build of `tools/kit test` then goes through it, the selftest and sanitized builds
# too, and compiles only what a commit changed. Without it, only the pristine kit's two
# builds share a cache, in build-selftest/ccache (shared_compiles).
KEPT_CACHE = "ATTN_CCACHE_DIR"
# The slice of the synthetic class `tools/kit test` grades: a student of each outcome the
# gradebook shows (all, none, a compile failure, a crash, one attack), on the exercises where
# their grades differ. --full grades the whole class on every exercise.
# Two of the exploit corpus too: the link's (.deplibs) and the judge's folder (a swap).
SLICE_STUDENTS = ("solved", "stubs", "no_compile_03", "segfault_04", "reads_public_goldens",
                  "deplibs_04", "swaps_results_03")
SLICE_EXERCISES = "01,03,04"
# The synthetic class's runs are timed out sooner than a class's (20 s of CPU time, 100 s of
# wall clock): its students who loop cost a time-out per case, and its honest programs need
# under 2 s of CPU (exercise 22's GPT-2 forward in a Debug build, the slowest). Its fork bomb
# mostly sleeps, so the wall clock ends each of its cases: at 16 s, not 40.
CLASS_TIMEOUT_S, CLASS_WALL_TIMEOUT_S = 8, 16
# Its compiles too (60 s of CPU and 90 of wall clock for a class): the longest honest one, all
# 23 solutions as one unit, takes 24 s of CPU on our 2-core machine, and an include loop
# (endless_compile) ends at this limit, in the unit and then alone: 40 s, not 60 (60 of wall
# clock, not 90, for an #include of a pipe).
CLASS_COMPILE_TIMEOUT_S = 40


def children_cpu_s() -> float:
    """User and system CPU seconds of every finished child process (and theirs) so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


class Stages:
    """Runs the named stages, each with a Heartbeat line every 15 s, and remembers how long
    each took, in wall time and in its processes' CPU time, and whether it passed, for the
    summary at the end. The CPU time is what a busy machine cannot inflate: a stage whose CPU
    is far below twice its wall time (2 cores) waits on something."""

    def __init__(self):
        self.times: list = []  # [(name, seconds, cpu seconds, passed)]

    @contextmanager
    def stage(self, name: str, what: str):
        say(f"kit test: {what} ...")
        started, cpu = time.monotonic(), children_cpu_s()
        outcome = {"passed": True}
        with Heartbeat(name):
            yield outcome
        seconds, cpu = time.monotonic() - started, children_cpu_s() - cpu
        self.times.append((name, seconds, cpu, outcome["passed"]))
        say(f"  {name}: {'passed' if outcome['passed'] else 'FAILED'} in {seconds:.0f} s "
            f"({cpu:.0f} s of CPU)")

    @property
    def passed(self) -> bool:
        return all(passed for *_, passed in self.times)

    def summary(self) -> str:
        total = sum(seconds for _, seconds, _, _ in self.times)
        cpu = sum(cpu for _, _, cpu, _ in self.times)
        parts = ", ".join(f"{name} {seconds:.0f} s/{cpu:.0f} s"
                          + ("" if passed else " (FAILED)")
                          for name, seconds, cpu, passed in self.times)
        return f"kit test: {total:.0f} s, {cpu:.0f} s of CPU (wall/CPU: {parts})"


@contextmanager
def shared_compiles(kit: Kit, base: Path | None = None):
    """`--full` builds the pristine kit twice, each in a folder of the same layout (.kit-src
    beside .kit-build and .judge-build): the grading stage's (which the hidden stage's grading
    and `tools/grade slurm` reuse), then Gradescope's setup.sh in a new one. With ccache on
    PATH (.ci/run installs it) the builds configured inside this share their compiles: CMake
    takes the launcher from CMAKE_CXX_COMPILER_LAUNCHER, and CCACHE_BASEDIR (`base`, the
    build's folder; the hidden stage's scripts set their own) makes every path in a command
    line relative, so a later build finds the first one's objects.
    Every compile still runs its command; only its result comes from the cache. Each build
    first removes the precompiled headers it will build again (kitlib/precompiled.py: ccache
    would key them on the stale ones, and could hand back one made of other headers). A student's
    compile never goes through ccache: the grader's build recipe leaves the launcher out
    (cmake/attn_record_step.py)."""
    kept = os.environ.get(KEPT_CACHE)
    cache = Path(kept) if kept else build.build_dir(kit, PRESET) / "ccache"
    if shutil.which("ccache") is None or cache.exists() and not os.access(cache, os.W_OK):
        yield False  # each build compiles everything (another user's cache: not ours to use)
        return
    settings = {"CMAKE_CXX_COMPILER_LAUNCHER": "ccache", "CCACHE_DIR": str(cache),
                # about 60 MB a commit for the pristine kit; the kept cache also holds the
                # selftest and sanitized builds' objects, about 400 MB a commit
                "CCACHE_MAXSIZE": "3G" if kept else "500M",
                # It holds the solutions' objects: root's alone (the grader's lock_down then
                # sets the mode of every file of a kit build, as without ccache).
                "CCACHE_UMASK": "077",
                # The same object wherever the folder is (-g's working directory aside), and
                # hits on the precompiled headers and on sources exported a moment ago.
                "CCACHE_NOHASHDIR": "1",
                "CCACHE_SLOPPINESS": "pch_defines,time_macros,include_file_mtime,"
                                     "include_file_ctime",
                # A hit hashes every file the compile read, the precompiled header too
                # (141 MB): 0.9 s a hit, most of a warm build. Hashes kept by inode, size and
                # times make it 0.03 s.
                "CCACHE_INODECACHE": "1"}
    if base is not None:
        settings["CCACHE_BASEDIR"] = str(base.resolve())
    saved = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        yield True
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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
    build. Built by tools/grade itself (`tools/grade prepare-kit`): kitcli imports no grader."""
    kit_dir = grading_kit_folder(kit)
    kit_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(kit_dir, 0o711)
    if shutil.which("ccache") is None:  # configured with it (shared_compiles), now gone
        for folder in (kit_dir / ".kit-build", kit_dir / ".judge-build"):
            cache = folder / "CMakeCache.txt"
            if cache.is_file() and "_COMPILER_LAUNCHER:STRING=ccache" in cache.read_text(
                    errors="replace"):
                shutil.rmtree(folder)
    started = time.monotonic()
    with shared_compiles(kit, kit_dir):
        code, output = build.run_command([sys.executable, str(kit.root / "tools" / "grade"),
                                          "prepare-kit", str(kit_dir)], kit.root)
    say(f"  the pristine kit of HEAD in {kit_dir}: "
        + (f"built or brought up to date in {time.monotonic() - started:.0f} s" if code == 0
           else "does NOT build"))
    if code != 0:
        say("  " + output.strip()[-6000:])
        return None
    return kit_dir


def link_depfiles_as_required(kit_dir: Path) -> bool:
    """Says whether the pristine kit's links write dependency files (CMake >= 3.27 with a
    linker that takes them), read from its build recipe; False where .ci/run requires them
    (ATTN_REQUIRE_LINK_DEPFILES=1) and they are off: then the class would not be graded
    through them, which is what CI must show works."""
    recipe = kit_dir / ".kit-build" / "recipes" / "ex01.link.json"
    argv = json.loads(recipe.read_text(encoding="utf-8"))["argv"] if recipe.is_file() else []
    on = any("--dependency-file=" in arg for arg in argv)
    say(f"  the kit's links {'write' if on else 'write no'} dependency files "
        f"(CMake's link depfiles {'on' if on else 'off'})")
    if not on and os.environ.get("ATTN_REQUIRE_LINK_DEPFILES") == "1":
        say("  FAILED: ATTN_REQUIRE_LINK_DEPFILES=1, and CMake wrote none: set ATTN_KIT_CMAKE "
            "to a CMake >= 3.27 (.ci/newer-cmake) with a linker that takes them")
        return False
    return True


def grade_synthetic_class(kit: Kit, full: bool) -> bool:
    """tests/grading/make_class.py, tools/grade, expected.py --check, as root in the sandbox,
    then tests/grading/leftovers.py: nothing of a sandbox uid left anywhere, the kit's export
    and the class byte for byte unchanged. tools/grade grades the kit's git HEAD (exported,
    never the working tree). The students whose attack only the sandbox's uid change stops
    (expected.json's "needs_root") sit out as another user, and those only its namespaces
    stop ("needs_namespaces") where the machine refuses them (a chroot, a container): their
    checks are said to be NOT RUN, never passed. --full grades each student on its
    "graded_on" slice (expected.json), one grader run per slice; without --full, a few
    students on SLICE_EXERCISES."""
    if not (kit.root / ".git").exists():
        say("  skipped: tools/grade builds the kit's git HEAD, and this copy has no .git")
        return True
    mode = isolation()
    grading = kit.root / "tests" / "grading"
    expectations = json.loads((grading / "expected.json").read_text(encoding="utf-8"))
    students = expectations["students"]
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
    if kit_dir is None or not link_depfiles_as_required(kit_dir):
        return False
    # The grader runs: {exercises ("" for all): students}, each a class of its own.
    runs: dict = {}
    for name in chosen:
        slice_name = students[name].get("graded_on")
        exercises = (expectations["slices"][slice_name] if slice_name else "") if full \
            else SLICE_EXERCISES
        runs.setdefault(exercises, []).append(name)
    say(f"  grading {diagnose.count(len(chosen), 'student')} in {len(runs)} "
        f"run{'s' if len(runs) > 1 else ''}: "
        + "; ".join(f"{len(names)} on {exercises or 'every exercise'}"
                    for exercises, names in runs.items()) + " ...")
    # Under /tmp (searchable by all), 0711: the sandbox's uid must pass through to the class.
    work = Path(tempfile.mkdtemp(prefix="attn-grading."))
    os.chmod(work, 0o711)
    try:
        classes, graded = work / "class", work / "graded"
        classes.mkdir(mode=0o711)
        graded.mkdir(mode=0o711)
        leftovers = [sys.executable, str(grading / "leftovers.py")]
        # The kit the sandbox could reach is the grader's export of HEAD, not this working
        # tree (which its owner may be editing meanwhile).
        where = [str(work / "leftovers.json"), "--kit", str(kit_dir / ".kit-src"),
                 "--class", str(classes)]
        makes, grades = [], []
        for number, (exercises, names) in enumerate(runs.items()):
            klass, out = classes / str(number), graded / str(number)
            only = [argument for name in names for argument in ("--only", name)]
            slice_ = ["--exercises", exercises] if exercises else []
            makes.append([sys.executable, str(grading / "make_class.py"), str(klass), *only])
            grade = [sys.executable, str(kit.root / "tools" / "grade"), str(klass), "--out",
                     str(out), "--kit-build", str(kit_dir), "--jobs", str(os.cpu_count() or 2),
                     "--timeout", str(CLASS_TIMEOUT_S), "--wall-timeout",
                     str(CLASS_WALL_TIMEOUT_S), "--compile-timeout",
                     str(CLASS_COMPILE_TIMEOUT_S), *slice_] \
                + (["--without-namespaces"] if mode == "uid" else [])
            expected = [sys.executable, str(grading / "expected.py"), "--check",
                        str(out / "gradebook.csv"), *slice_, *only]
            expected += {"none": ["--unsandboxed"], "uid": ["--no-namespaces"]}.get(mode, [])
            grades += [grade, expected]
        steps = makes + ([leftovers + ["snapshot"] + where] if mode != "none" else []) + grades
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
            if step[1].endswith("expected.py") or step[1].endswith("leftovers.py") \
                    and "check" in step:
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
    with shared_compiles(kit, kit.root) if os.environ.get(KEPT_CACHE) else nullcontext():
        run_stages(kit, stages, goldens_check, grading, full)
    say(stages.summary())
    say("kit test: all checks passed" if stages.passed else "kit test: FAILED")
    return 0 if stages.passed else 1


def run_stages(kit: Kit, stages: Stages, goldens_check: bool, grading: bool, full: bool) -> None:
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
                    # Gradescope's setup.sh builds the pristine kit again, in its own folder:
                    # with ccache, from the grading stage's compiles.
                    with shared_compiles(kit) as shared:
                        if not shared:
                            say("  no ccache here: Gradescope's build of the kit compiles "
                                "everything again (minutes more; .ci/run installs it)")
                        code, output = build.run_command(
                            [str(script), str(build.build_dir(kit, PRESET)), str(kit_dir)],
                            kit.root)
                    say(output.rstrip()[-6000:])
                    stage["passed"] = code == 0

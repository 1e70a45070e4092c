"""tools/grade: grades a class of submissions against the kit's cases (tools/grader/README.md).

    tools/grade SUBMISSIONS --out OUT [--jobs N] [--hidden CASES] [--rubric FILE]
                [--exercises 01,03] [--shard K/N] [--kit-build DIR] [--without-namespaces]
                [--timeout S] [--wall-timeout S] [--compile-timeout S]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fcntl
import json
import math
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

from kitlib import packages
from kitlib.isolation import isolation, namespaces_problem
from kitlib.statuses import worse
from kitlib.text import printable

from . import cases as casesets
from . import gradescope, kitbuild, reports, submission, symbols
from .rubric import Rubric
from .sandbox import LINK_GID, Limits, Sandbox, View, seal_problem

# A compile or link step's limits (--compile-timeout sets its CPU seconds; the wall clock
# allows COMPILE_WALL_FACTOR times more): an include loop ends at its CPU time, an #include of
# a pipe at the wall clock.
COMPILE_LIMITS = dict(address_space=4 << 30, cpu_s=60, wall_s=90.0, nproc=64,
                      file_size=256 << 20)
COMPILE_WALL_FACTOR = 1.5
# Thrust's OpenMP backend runs this many threads of a GPU-track exercise: within the process
# limit (Limits.nproc) whatever the grading machine's number of cores. OMP_THREAD_LIMIT holds a
# kernel to them whatever it asks (nested teams, omp_set_num_threads): past the process limit,
# libgomp would exit from one thread while the others still ran, and the run would end in
# exit(1) or a crash by chance.
GPU_TRACK_THREADS = 2
# A CUDA run holds the machine's GPU alone (this lock file, for every grader on the machine,
# and a lock per grader for its job slots): a program that takes all device memory, or a
# kernel that never ends, costs its own cases, never a classmate's run beside it.
GPU_LOCK = "/tmp/attn-grade-gpu.lock"
JUDGE_LIMITS = ["prlimit", f"--as={4 << 30}", "--cpu=60", "--core=0", "--"]
JUDGE_WALL_S = 120
# The judge's verdict file this grader reads (docs/verdicts.md).
JUDGE_SCHEMA = ("attn-kit/judge-verdicts", 1)
WORK_BYTES = 1 << 30  # a job slot's work folder (a tmpfs): sources, objects, programs, results
PRIVATE_MOUNTS = "ATTN_GRADER_PRIVATE_MOUNTS"  # set once the grader runs in its own mount ns
WITHOUT_NAMESPACES_LOSES = (
    "a run's processes may outlive it until the grader kills its uid; /tmp, /dev/shm and IPC "
    "objects are the machine's; a program reads every file other users may read (keep "
    "SUBMISSIONS and the hidden set 0700); disk use is bounded per file only")


def run_limits(timeout_s: float, wall_s: float, cuda: bool) -> Limits:
    """A test program's limits: `timeout_s` of CPU time, and `wall_s` of wall clock (several
    times longer), so that a busy machine slows a run without failing it. A CUDA program's
    kernels spend GPU time, not the CPU time of the process that waits for them, and hold the
    GPU alone (Grader.gpu): its limit is the wall clock, `timeout_s`, and its address space is
    not bounded (the CUDA runtime maps far more than any limit allows)."""
    if cuda:
        return Limits(address_space="unlimited", cpu_s=max(1, math.ceil(timeout_s)),
                      wall_s=timeout_s)
    return Limits(cpu_s=max(1, math.ceil(timeout_s)), wall_s=wall_s)


def require_searchable_by_others(folder: Path) -> None:
    """The sandbox user compiles against OUT/.kit-src and .kit-build, so every folder above
    OUT must let others pass (o+x). A mktemp -d folder (0700) does not: say so, rather than
    grade every student "build-failed"."""
    for path in (folder, *folder.parents):
        if not path.stat().st_mode & 0o001:
            raise kitbuild.BuildError(
                f"the sandbox user cannot reach --out: {path} is not searchable by others "
                f"(chmod o+x {path}, or put --out under a folder that is)")


def make_out(out: Path, isolated: bool) -> None:
    """OUT is searchable but not listable: the sandbox user reaches the kit build (which it
    needs to compile) and its own folder under .sandbox by name; everything else is 0700."""
    out.mkdir(parents=True, exist_ok=True)
    if isolated:
        require_searchable_by_others(out.parent)
    os.chmod(out, 0o711 if isolated else 0o700)
    students = out / "students"
    students.mkdir(exist_ok=True)
    os.chmod(students, 0o700)


class SlotError(Exception):
    """A job slot that cannot go on: what a student left in its work folder could not be
    removed. The slot stops; its next students go to the others."""


def release(path: Path) -> None:
    """Removes a folder a student's code may have filled (3,000 nested folders, files made
    read-only): `rm -rf --one-file-system`, which walks any depth without recursion in Python
    and never crosses into a mount. Raises SlotError if anything is left."""
    if not os.path.lexists(path):
        return
    done = subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)],
                          capture_output=True, text=True, errors="replace")
    if os.path.lexists(path):
        raise SlotError(f"could not remove {path}: {done.stderr.strip()[-300:]}")


def new_folder(path: Path, mode: int = 0o711) -> Path:
    """A folder the grader makes before anything of the student's runs, owned by the grader
    (root): the sandbox's uid may pass through it, never rename or add an entry in it. One
    that exists already is refused: the grader never reuses what a program could have made."""
    try:
        path.mkdir(mode=mode)
    except FileExistsError:
        raise SlotError(f"{path} exists before the grader made it") from None
    os.chmod(path, mode)
    return path


def list_students(submissions: Path) -> tuple:
    """(the student folders, sorted; notes on entries that are not graded). Every real folder
    is a student, whatever its name: a folder that holds no submission is graded "files
    missing", which an instructor sees, never skipped in silence."""
    students, notes = [], []
    for path in sorted(submissions.iterdir()):
        if path.is_symlink():
            notes.append(f"not graded: {submission.student_id(path.name)} is a symbolic link "
                         "(the grader follows no link)")
        elif path.is_dir():
            students.append(path)
    return students, notes


def shard_of(students: list, shard: tuple) -> list:
    """Shard K of N: the students at positions K-1, K-1+N, ... of the sorted class."""
    k, n = shard
    return [student for i, student in enumerate(students) if i % n == k - 1]


def shard_spec(text: str) -> tuple:
    """--shard K/N, 1 <= K <= N."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N (e.g. 2/3)") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: K/N needs 1 <= K <= N")
    return k, n


def choose_isolation(without_namespaces: bool) -> str:
    """The sandbox mode this machine allows; refuses, in one line, to grade as root without
    namespaces unless the instructor accepts what that loses."""
    mode = isolation()
    if mode == "uid" and not without_namespaces:
        raise kitbuild.BuildError(
            f"{namespaces_problem()}; grade on a machine that allows them, or pass "
            f"--without-namespaces to grade with a uid change and limits only "
            f"({WITHOUT_NAMESPACES_LOSES})")
    return mode


def said(output: dict) -> str:
    """What the judge said of a failed output beyond its reason: the same slip as another
    case (its name decided there), else the shape of its error, if any (docs/verdicts.md)."""
    if output.get("same_slip_as"):
        return f" — the same slip as {output['same_slip_as']['case']}"
    if output.get("diagnosis") and not output.get("mistake"):
        return f" — {output['diagnosis']}"
    return ""


class Grader:
    def __init__(self, args):
        self.args = args
        self.out = args.out.resolve()
        catalogue = kitbuild.catalogue()
        ids = [ex["id"] for ex in catalogue["exercises"]]
        chosen = getattr(args, "exercises", None) or ids
        self.exercises = [ex for ex in catalogue["exercises"] if ex["id"] in chosen]
        self.settings = catalogue["settings"]
        # A test program's CPU seconds (--timeout, else what ctest allows), and its wall-clock
        # backstop, as the kit's: a program that waits ends there; one on a busy machine that
        # stays within its CPU time passes (exercises.json's test_wall_factor).
        self.timeout_s = (getattr(args, "timeout", None)
                          or float(self.settings.get("test_timeout_s", 20)))
        self.wall_s = (getattr(args, "wall_timeout", None)
                       or float(self.settings.get("test_wall_factor", 5)) * self.timeout_s)
        compile_s = getattr(args, "compile_timeout", None) or COMPILE_LIMITS["cpu_s"]
        self.compile_limits = dict(COMPILE_LIMITS, cpu_s=max(1, math.ceil(compile_s)),
                                   wall_s=COMPILE_WALL_FACTOR * compile_s)
        self.rubric = Rubric.load(args.rubric, ids).only(chosen)
        self.mode = choose_isolation(getattr(args, "without_namespaces", False))
        self.isolated = self.mode != "none"
        self.notes = []
        self.gpu_lock = threading.Lock()

    def prepare(self):
        out = self.out
        make_out(out, self.isolated)
        t0 = time.monotonic()
        if self.args.kit_build:
            kit_dir = self.args.kit_build.resolve()
            if self.isolated:
                require_searchable_by_others(kit_dir)
            self.head = kitbuild.reuse(kit_dir)
        else:
            kit_dir = out
            self.head = kitbuild.prepare(out, self.exercises, self.args.build_jobs)
        self.build_s = time.monotonic() - t0
        self.kit_dir = kit_dir
        source, build = kit_dir / ".kit-src", kit_dir / ".kit-build"
        self.judge = kitbuild.judge_program(kit_dir)
        self.commands = {ex["id"]: kitbuild.commands(build, ex) for ex in self.exercises}
        # The GPU track's files, Thrust's (gpu) and CUDA kernels (kernel, on the emulator
        # without CUDA): compiled alone, with their own flags.
        self.is_gpu = {ex["id"]: bool(ex.get("gpu") or ex.get("kernel")) for ex in self.exercises}
        self.is_kernel = {ex["id"]: bool(ex.get("kernel")) for ex in self.exercises}
        self.backend = kitbuild.gpu_backend(build)
        self.toolchain = tuple(sorted({path for ex in self.exercises for path in
                                       kitbuild.toolchain_dirs(self.commands[ex["id"]])}))
        self.compile_view = tuple(sorted({path for ex in self.exercises for path in
                                          kitbuild.compile_inputs(self.commands[ex["id"]],
                                                                  [source, build])})) \
            + self.toolchain
        self.build_dir = build
        self.link_rules = {}

        sandbox_root = out / ".sandbox"
        release(sandbox_root)
        sandbox_root.mkdir()
        os.chmod(sandbox_root, 0o711)
        self.sandbox_root = sandbox_root
        private = out / ".cases"
        private.mkdir(exist_ok=True)
        os.chmod(private, 0o700)
        self.sets = {"public": private / "public"}
        casesets.private_copy(source / "reference_data", self.sets["public"])
        if self.args.hidden:
            hidden = self.args.hidden.resolve()
            if self.isolated and casesets.readable_by_others(hidden / "MANIFEST.json"):
                self.notes.append(f"warning: the hidden set {hidden} is readable by other users; "
                                  f"the graded copy is root-only, keep the original so too")
            self.sets["hidden"] = casesets.private_copy(hidden, private / "hidden")
        self.inputs = {(name, ex["id"]): casesets.inputs_only(
            path, sandbox_root / f"inputs-{name}" / ex["id"], ex["id"])
            for name, path in self.sets.items() for ex in self.exercises}
        self.manifests = {name: casesets.manifest(path) for name, path in self.sets.items()}
        if self.mode == "none":
            self.notes.append("not root: programs run WITHOUT a uid change or namespaces "
                              "(limits and timeouts still apply); grade as root for the sandbox")
        elif self.mode == "uid":
            self.notes.append(f"graded WITHOUT namespaces (--without-namespaces): "
                              f"{WITHOUT_NAMESPACES_LOSES}")
        if seal_problem(self.mode):
            self.notes.append(f"test programs may start processes ({seal_problem(self.mode)}): "
                              "one could still change a run's results after its program exited, "
                              "until the sandbox ends")
        if self.mode == "bwrap" and os.environ.get(PRIVATE_MOUNTS) != "1":
            self.notes.append("the grader could not make its own mount namespace: work folders "
                              "are not size-bounded")

    def meta(self, students: list, wall: float) -> dict:
        """records.json's "meta": what the run graded with, and for `tools/grade merge`, what
        its shards must agree on (kit, case sets, rubric, class) and which shard this is."""
        meta = {"kit_head": self.head, "build_s": round(self.build_s, 2),
                "grading_wall_s": round(wall, 2), "jobs": self.args.jobs,
                "sets": list(self.sets), "sandboxed": self.isolated, "sandbox": self.mode,
                "case_sets": {name: casesets.fingerprint(path) for name, path in self.sets.items()},
                "rubric": {"points": self.rubric.points, "partial": self.rubric.partial},
                "timeout_s": self.timeout_s, "wall_timeout_s": self.wall_s,
                "compile_timeout_s": self.compile_limits["cpu_s"],
                "class": [submission.student_id(student.name) for student in students]}
        if self.args.shard:
            meta["shard"] = list(self.args.shard)
        return meta

    def sandbox(self) -> Sandbox:
        """A job slot's sandbox (a uid no other grader on this machine holds) and its work
        folder: a tmpfs of WORK_BYTES when the grader has its own mount namespace, so a
        student who writes until the disk is full fills only that."""
        sandbox = Sandbox(self.mode)
        work = self.sandbox_root / f"uid{sandbox.uid}"
        work.mkdir(exist_ok=True)
        if self.mode == "bwrap" and os.environ.get(PRIVATE_MOUNTS) == "1":
            subprocess.run(["mount", "-t", "tmpfs", "-o",
                            f"size={WORK_BYTES},mode=0711,nosuid,nodev", "tmpfs", str(work)],
                           check=True)
        sandbox.work = work
        sandbox.students = 0  # a fresh folder each (grade_student)
        return sandbox

    def grade_student(self, student: Path, sandbox: Sandbox) -> dict:
        """Grades one student in a folder of its own in the slot's work folder, released when
        done (release(): a failure there stops the slot, raising SlotError)."""
        sandbox.students += 1
        work = new_folder(sandbox.work / f"student-{sandbox.students}")
        try:
            return self.grade_in(student, sandbox, work)
        finally:
            sandbox.sweep()
            release(work)

    def grade_in(self, student: Path, sandbox: Sandbox, work: Path) -> dict:
        start = time.monotonic()
        sources = new_folder(work / "sources", 0o755)
        # The student's files are copied before anything of theirs runs.
        taken = submission.take(student, self.exercises, sources)
        ident = submission.student_id(student.name)
        record = {"id": ident, "exercises": {}, "status": "graded", "files": taken.summary()}
        feedback_dir = self.out / "students" / ident
        feedback_dir.mkdir(exist_ok=True)
        os.chmod(feedback_dir, 0o700)
        # The GPU track's files compile with other flags (Thrust's backend, nvcc): alone.
        together = self.compile_together({ex_id: source for ex_id, source in taken.files.items()
                                          if not self.is_gpu[ex_id]}, work, sandbox)
        if together["object"] is None:
            record["compiled_together"] = together["why"]
        for exercise in self.exercises:
            ex_id = exercise["id"]
            result = self.grade_exercise(exercise, taken.files.get(ex_id), work, sandbox,
                                         feedback_dir,
                                         None if self.is_gpu[ex_id] else together["object"],
                                         taken.not_taken.get(ex_id))
            record["exercises"][ex_id] = result
            record["status"] = worse(record["status"], result["status"])
        if not taken.complete:
            record["status"] = "files missing"
        record["seconds"] = round(time.monotonic() - start, 2)
        record["compile_together_s"] = together["seconds"]
        record["total"] = round(sum(r["points"] for r in record["exercises"].values()), 2)
        record["max"] = self.rubric.total
        reports.write_student(feedback_dir, record, self.exercises, self.rubric)
        return record

    def compile_together(self, sources: dict, work: Path, sandbox: Sandbox) -> dict:
        """All of a student's exercise files compiled as ONE translation unit (the precompiled
        header and xtensor's templates are then paid once, not once per exercise), its
        definitions made weak (objcopy --weaken-symbols) so that each exercise's program links
        it in place of its own file: the kit's earlier solutions, strong, still win over the
        student's versions of them, exactly as when one file is linked.
        {"object": path or None, "why", "seconds"}. None when it does not compile (two files
        defining the same helper, one file's error): then every exercise compiles alone, which
        also names the file at fault."""
        start = time.monotonic()
        if len(sources) < 2:
            return {"object": None, "why": "fewer than two files", "seconds": 0.0}
        folder = new_folder(work / "together")
        lines = []
        for ex_id, source in sorted(sources.items()):
            shutil.copyfile(source, folder / source.name)
            lines.append(f'#include "{source.name}"\n')
        unity = folder / "all_exercises.cpp"
        unity.write_text("".join(lines), encoding="utf-8")
        for path in folder.iterdir():
            os.chmod(path, 0o644)
        sandbox.give(str(folder))
        obj = folder / "all_exercises.o"
        cmds = self.commands[max(sources)]  # every exercise file compiles with the same flags
        view = View(read_only=self.compile_view, writable=(folder,))
        # -fPIC: global functions stay interposable, so a call from the student's 04 to their
        # own softmax is neither inlined nor bound inside the unit, and links to the kit's
        # strong solution like any other (without it, fork_bomb's 03 ran inside their 04).
        # The precompiled header (-fPIE) then goes unused; the unit is still ~4x faster.
        argv = kitbuild.student_compile(cmds, str(unity), str(obj))
        compiled = sandbox.run(argv + ["-fPIC"], str(folder),
                               Limits(**self.compile_limits), view)
        # Checked before it is weakened (what it defines and calls: symbols.py); a unit
        # refused is compiled file by file, where each file's check names its own exercise.
        refused = self.refusal(obj, folder, sandbox, sorted(sources)) \
            if compiled.status == "ok" else ""
        # Only its definitions: a weakened undefined reference (cblas_ssyrk) would link to 0.
        weaken = ("nm -g --defined-only -P all_exercises.o | cut -d' ' -f1 > defined.txt && "
                  "objcopy --weaken-symbols=defined.txt all_exercises.o")
        weakened = compiled.status == "ok" and not refused and sandbox.run(
            ["/bin/sh", "-c", weaken], str(folder), Limits(**self.compile_limits),
            View(writable=(folder,))).status == "ok"
        seconds = round(time.monotonic() - start, 2)
        if not weakened:
            return {"object": None, "seconds": seconds,
                    "why": "compiled file by file: " + ("the files do not compile as one unit"
                                                        if compiled.status != "ok" else
                                                        f"the unit is refused: {refused}"
                                                        if refused else
                                                        "weakening its symbols failed")}
        return {"object": obj, "why": "", "seconds": seconds}

    def refusal(self, obj: Path, folder: Path, sandbox: Sandbox, ex_ids: list) -> str:
        """Why the student's object `obj`, of exercises `ex_ids`, may not be linked ("" if it
        may): symbols.py's rules, on what nm and readelf, run in the sandbox, list of it."""
        listing = folder / (obj.name + ".symbols")
        ran = sandbox.run(["/bin/sh", "-c", f"({symbols.listing_command(obj)}) > {listing}"],
                          str(folder), Limits(**self.compile_limits), View(writable=(folder,)))
        if ran.status != "ok":
            return f"its symbols could not be listed ({ran.why or ran.status})"
        try:
            fd = os.open(listing, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as file:
                text = file.read(symbols.MAX_LISTING_BYTES + 1).decode("utf-8", "replace")
        except OSError as error:
            return f"its symbols could not be read ({error.strerror})"
        if len(text) > symbols.MAX_LISTING_BYTES:
            return "it defines more symbols than the grader reads"
        return symbols.refusal(text, symbols.merged([self.rules(ex_id) for ex_id in ex_ids]))

    def rules(self, ex_id: str) -> symbols.LinkRules:
        """Exercise ex_id's link rules (symbols.py), from the kit's build, once per grading."""
        if ex_id not in self.link_rules:
            self.link_rules[ex_id] = symbols.rules_for(self.commands[ex_id], [self.build_dir])
        return self.link_rules[ex_id]

    def grade_exercise(self, exercise, source, work, sandbox, feedback_dir, together,
                       not_taken) -> dict:
        """Builds (with the object of all files compiled together, else this file alone), runs
        and judges one exercise. A program built with the others' code whose main() never
        started (a static initializer, maybe another file's, exited, crashed or hung) is built
        again alone: one file's crash costs its exercise only."""
        ex_id = exercise["id"]
        t0 = time.monotonic()
        result = {"status": "graded", "points": 0.0, "max": self.rubric.points[ex_id],
                  "sets": {}, "note": "", "timing": {}}
        all_cases = {name: casesets.cases_of(m, ex_id) for name, m in self.manifests.items()}
        if source is None:
            result["note"] = (f"not taken: {not_taken}" if not_taken else
                              f"no file {Path(exercise['stub']).name} in the submission")
            self.fail_all(result, all_cases, result["note"])
        else:
            # The exercise's folder is the grader's: the sandbox's uid may write in its
            # build/, cwd-SET/ and results-SET/ folders, never rename or add one.
            folder = work / ex_id
            for attempt in ([together] if together else []) + [None]:
                release(folder)
                new_folder(folder)
                sandbox.give(str(new_folder(folder / "build")))
                result.update(status="graded", note="", sets={}, stopped=[])
                program = self.build(exercise, source, folder, sandbox, result, attempt)
                if program is None:
                    if attempt is not None:
                        continue  # it may link alone (another file's undefined reference)
                    self.fail_all(result, all_cases, "the file does not build")
                    break
                started = self.run_and_judge(exercise, folder, program, sandbox, feedback_dir,
                                             result, all_cases)
                if started or attempt is None:
                    break
            result["timing"]["built"] = "together" if attempt is not None else "alone"
            release(folder)  # its program: room for the next one
        total = sum(s["cases"] for s in result["sets"].values())
        passed = sum(s["passed"] for s in result["sets"].values())
        result["points"] = self.rubric.score(ex_id, passed, total)
        result["timing"]["total"] = round(time.monotonic() - t0, 2)
        return result

    @staticmethod
    def fail_all(result, all_cases, reason):
        for name, paths in all_cases.items():
            result["sets"][name] = {"cases": len(paths), "passed": 0, "failures": [
                {"case": p, "reason": reason, "mistake": "", "hint": ""} for p in paths]}

    def build(self, exercise, source, folder, sandbox, result, together) -> Path | None:
        """The exercise's test program in folder/build, linked with `together` or with the file
        compiled alone; None (and the compiler's words in result["note"]) when it does not
        build, or when its object defines or calls what it may not (symbols.py)."""
        ex_id = exercise["id"]
        cmds = self.commands[ex_id]
        folder = folder / "build"
        program = folder / f"test_ex{ex_id}_exercises"
        obj, student_file = together, folder / Path(exercise["stub"]).name
        if together is None:
            shutil.copyfile(source, student_file)
            os.chmod(student_file, 0o644)
            obj = folder / "exercise.o"
            # The compiler sees the kit's headers and its own folder: `#include` or `.incbin`
            # of a solution or a golden finds nothing.
            compiled = sandbox.run(kitbuild.student_compile(cmds, str(student_file), str(obj)),
                                   str(folder), Limits(**self.compile_limits),
                                   View(read_only=self.compile_view, writable=(folder,)))
            result["timing"]["compile"] = round(compiled.seconds, 2)
            if compiled.status != "ok":
                result["status"] = "build-failed"
                result["note"] = "does not compile:\n" + self.compiler_words(
                    compiled, student_file, folder, exercise) + "\n" + self.how_compiled(
                    ex_id, kitbuild.student_compile(cmds, str(student_file), str(obj)))
                return None
            refused = self.refusal(obj, folder, sandbox, [ex_id])
            if refused:
                result["status"] = "build-failed"
                result["note"] = f"not linked: {refused}"
                return None
        # Only the link step sees what it links of the kit's build (the earlier solutions'
        # libraries among them), and only the linker runs there: no student code.
        linked = sandbox.run(kitbuild.student_link(cmds, str(obj), str(program),
                                                   weak=together is not None),
                             str(folder), Limits(**self.compile_limits),
                             View(read_only=tuple(kitbuild.link_inputs(cmds, [self.build_dir]))
                                  + ((obj.parent,) if together is not None else ())
                                  + self.toolchain,
                                  writable=(folder,)),
                             groups=(LINK_GID,))
        result["timing"]["link"] = round(linked.seconds, 2)
        if linked.status != "ok":
            result["status"] = "build-failed"
            result["note"] = "does not link:\n" + self.compiler_words(
                linked, student_file, folder, exercise)
            return None
        return program

    def how_compiled(self, ex_id: str, argv: list) -> str:
        """How the grader compiled a file that did not compile, for the student: where that
        differs from another build of theirs (the GPU track's backend; warnings made errors;
        the one unit of the other files), a file may compile there and not here."""
        errors = [arg for arg in argv if arg.startswith("-Werror")]
        made = (f" Warnings made errors: {' '.join(errors)}." if errors else "")
        if self.is_kernel[ex_id] and self.backend != "CUDA":
            how = "g++ for the kit's CUDA emulator (the .cu file as C++)"
        elif self.is_gpu[ex_id]:
            how = {"CUDA": "nvcc, for the GPU",
                   "OMP": "g++ on Thrust's OpenMP backend (the .cu file as C++, "
                          "-fopenmp)"}.get(self.backend, f"the {self.backend} backend")
            return (f"(Compiled alone, as this kit's build compiles the GPU track: {how}, not "
                    f"in one unit with your other files.{made} A file that compiles with "
                    f"another backend may not compile here: `tools/kit check {ex_id}` on a "
                    f"kit built like this one (ATTN_GPU={self.backend}) shows the same errors.)")
        return (f"(Compiled alone, with the kit's own command for an exercise file.{made} "
                f"`tools/kit check {ex_id}` compiles it the same way.)")

    @staticmethod
    def compiler_words(outcome, student_file, folder, exercise) -> str:
        """The compiler's output with the sandbox's paths taken out, for the student."""
        words = outcome.output.replace(str(student_file), Path(exercise["stub"]).name) \
            .replace(str(folder) + "/", "")[:3000]
        return words + (f"\n({outcome.why})" if outcome.why else "")

    def run_and_judge(self, exercise, folder, program, sandbox, feedback_dir, result,
                      all_cases) -> bool:
        """Runs the program on each case set and judges its result files into result["sets"].
        Returns whether its main() started (the runner's marker file) on some set."""
        ex_id = exercise["id"]
        started = False
        for name in self.sets:
            results = folder / f"results-{name}"
            crashes, ran_s, ran = self.run_cases(program, folder, results,
                                                 self.inputs[(name, ex_id)], all_cases[name],
                                                 sandbox, self.is_gpu[ex_id])
            result["timing"][f"run-{name}"] = ran_s
            for outcome in crashes.values():  # an exit(1) ("failed") leaves the status as it is
                result["status"] = worse(result["status"], outcome.status)
            if ran and not (results / "runner-started").exists():
                # It never started main() (a static initializer exited or crashed, the loader
                # failed): no case ran, and the note says why, never a silent zero.
                ran.why = "the test program never started its cases: " + (
                    ran.why or self.exit_in_words(ran, self.is_gpu[ex_id]))
                crashes.setdefault("", ran)
                if ran.status == "failed":
                    result["status"] = worse(result["status"], "crashed")
            # What stopped a run, and in which case ("" before any): a list, added to what an
            # earlier case set's run stopped on; each case's failure also says its own.
            result.setdefault("stopped", []).extend(
                {"case": case, "kind": "timed-out" if outcome.status == "timed-out" else "crashed",
                 "why": outcome.why} for case, outcome in sorted(crashes.items()))
            started |= (results / "runner-started").exists()
            result["sets"][name] = self.judge_set(ex_id, name, results, feedback_dir, result,
                                                  all_cases[name], crashes,
                                                  sandbox.uid if sandbox.isolated else os.getuid())
        return started

    def run_cases(self, program, folder, results, inputs, cases, sandbox, gpu) -> tuple:
        """Runs the program on the cases; a crash or a time-out costs the case it happened
        in: the cases that had not started run again, in a fresh run. Returns ({case: the
        Outcome that stopped it}, seconds, the first run's Outcome). `gpu`: a GPU-track
        exercise, whose OpenMP threads count against the process limit (so a fixed number of
        them) and whose CUDA runtime maps far more address space than any limit allows (so
        none, and the NVIDIA devices in the sandbox, on a CUDA kit)."""
        run_dir = folder / f"cwd-{results.name}"
        for path in (run_dir, results):
            sandbox.give(str(new_folder(path)))
        cuda = gpu and self.backend == "CUDA"
        view = View(read_only=(inputs,), writable=(folder,), devices=True, gpu=cuda)
        limits = run_limits(self.timeout_s, self.wall_s, cuda)
        env = ({"OMP_NUM_THREADS": str(GPU_TRACK_THREADS),
                "OMP_THREAD_LIMIT": str(GPU_TRACK_THREADS)} if gpu else {})
        crashes, seconds, first, remaining = {}, 0.0, None, list(cases)
        while remaining:
            only = [] if remaining == cases else [f"--attn-case={','.join(remaining)}"]
            with self.gpu(cuda):
                ran = sandbox.run([str(program), f"--attn-run-cases={inputs}",
                                   f"--attn-results={results}"] + only, str(run_dir),
                                  limits, view, env=env, one_process=True)
            seconds += ran.seconds
            first = first or ran
            if ran.status == "failed" and (results / "runner-started").exists():
                # exit(1) in the middle of a case (libgomp when it cannot start its threads):
                # it costs that case, as a crash would, and the cases after it run again.
                ran.why = self.exit_in_words(ran, gpu)
            elif ran.status not in ("crashed", "timed-out"):
                break
            stopped_in = self.current_case(results)
            if stopped_in not in remaining:  # no case named: the rest cannot be told apart
                crashes.update({case: ran for case in remaining
                                if not (results / case).exists()})
                break
            crashes[stopped_in] = ran
            remaining = [case for case in remaining
                         if case != stopped_in and not (results / case).exists()]
        return crashes, round(seconds, 2), first

    @staticmethod
    def exit_in_words(ran, gpu: bool) -> str:
        """Why a runner that exited with a status other than 0 stopped, for the student: its
        status, the last line it printed, and the limit that line points to."""
        lines = [line.strip() for line in ran.output.splitlines() if line.strip()]
        why = f"the program exited with status {ran.returncode}"
        if lines:
            last = printable(lines[-1], one_line=True, limit=160)
            why += f" (its last words: {last})"
        if "thread creation failed" in ran.output.lower() or "resource temporarily" in \
                ran.output.lower():
            why += (f": a test program may run {Limits().nproc} threads and processes in all"
                    + (f", and a GPU-track kernel gets {GPU_TRACK_THREADS} OpenMP threads"
                       if gpu else ""))
        return why

    def gpu(self, cuda: bool):
        """The machine's GPU, held alone for one CUDA run (a no-op for any other run)."""
        grader = self

        class Held:
            def __enter__(self):
                if cuda:
                    grader.gpu_lock.acquire()
                    self.file = open(GPU_LOCK, "w")
                    fcntl.flock(self.file, fcntl.LOCK_EX)

            def __exit__(self, *_):
                if cuda:
                    self.file.close()
                    grader.gpu_lock.release()

        return Held()

    @staticmethod
    def current_case(results: Path) -> str:
        """The case the runner said it was running (its current-case file), or "". The
        student's code could have written it: it only chooses which cases run again."""
        try:
            fd = os.open(results / "current-case", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return ""
        try:
            return os.read(fd, 4096).decode("utf-8", "replace").strip()
        except OSError:  # a folder of that name
            return ""
        finally:
            os.close(fd)

    def judge_set(self, ex_id, name, results, feedback_dir, result, paths, crashes,
                  uid) -> dict:
        """The verdict: the judge on the result files against the full set. The program's exit
        status and output are never read for it. A judge that fails or runs out of time costs
        these cases, marked so, never the student's other exercises."""
        verdicts_file = feedback_dir / f"verdicts-{ex_id}-{name}.json"
        t1 = time.monotonic()
        problem = ""
        try:
            judged = subprocess.run(JUDGE_LIMITS + [
                str(self.judge), "--cases", str(self.sets[name]), "--results", str(results),
                "--results-owner", str(uid), "--exercise", ex_id, "--out", str(verdicts_file)]
                + (["--hide-expected"] if name != "public" else []),
                capture_output=True, text=True, errors="replace", timeout=JUDGE_WALL_S)
            if judged.returncode != 0:
                problem = printable(judged.stderr.strip(), one_line=True, limit=300) or \
                    f"exit status {judged.returncode}"
        except subprocess.TimeoutExpired:
            problem = f"it ran out of its {JUDGE_WALL_S} s"
        verdicts = []
        if not problem:
            try:
                os.chmod(verdicts_file, 0o600)
                judged_file = json.loads(verdicts_file.read_text(encoding="utf-8"))
                if (judged_file["schema"], judged_file["version"]) != JUDGE_SCHEMA:
                    raise ValueError(f"{judged_file['schema']} version {judged_file['version']}"
                                     f", not {JUDGE_SCHEMA[0]} version {JUDGE_SCHEMA[1]}")
                verdicts = judged_file["cases"]
            except (OSError, ValueError, KeyError) as error:
                problem = f"its verdicts could not be read ({error})"
        if problem:
            result["note"] += f"\nthe grader could not judge the {name} cases: {problem}"
        result["timing"][f"judge-{name}"] = round(time.monotonic() - t1, 2)
        # The names are final: the judge took back those another case of the same function
        # rules out (kit/core/src/judge.cpp, take_back_name), as the test programs do.
        by_case = {v["case"]: v for v in verdicts}
        failures, passed_cases = [], []
        for path in paths:
            verdict = by_case.get(path)
            if verdict and verdict["passed"]:
                passed_cases.append(path)
                continue
            reason = "the grader could not judge it" if problem else "not judged"
            bad = [o for o in (verdict or {}).get("outputs", [])
                   if not o["passed"]] or [{"name": "", "reason": reason, "mistake": "",
                                            "hint": ""}]
            named = {}
            for o in bad:
                # Named here, or the same slip as another case names (docs/verdicts.md).
                name = o.get("mistake") or o.get("same_slip_as", {}).get("mistake")
                if name:
                    named.setdefault(name, {"name": name, "hint": o.get("hint", ""),
                                            "id": o.get("mistake_id", ""),
                                            "family": o.get("family", "")})
            outputs = [{"name": o["name"], "reason": o["reason"] + said(o)} for o in bad]
            failure = {"case": path, "reason": "; ".join(
                (f"{o['name']}: " if o["name"] else "") + o["reason"] for o in outputs),
                "outputs": outputs,
                # The mistakes the outputs were named, as a list: two outputs wrong the same
                # way (weights and context) name theirs once.
                # Each with its id and family (docs/verdicts.md): what a reader counts by.
                "mistakes": list(named.values()),
                "function": (verdict or {}).get("kind", ""),
                # The judge's facts, not words read back: the call is still the kit's stub
                # (docs/verdicts.md); no failed output had a tensor to read (no "shape").
                "not_implemented": bool((verdict or {}).get("not_implemented")),
                "no_result": not any("shape" in o for o in bad)}
            if path in crashes:
                # What stopped the case, with its kind: a reader never reads the words.
                failure["crash"] = {"kind": "timed-out" if crashes[path].status == "timed-out"
                                    else "crashed", "why": crashes[path].why}
            details = "".join(o.get("details", "") for o in bad)
            if name == "public" and details:  # a hidden case's expected values are never shown
                failure["details"] = details
            failures.append(failure)
        return {"cases": len(paths), "passed": len(passed_cases), "failures": failures,
                "passed_cases": passed_cases}


def exercise_list(text: str) -> list:
    """ "1,03" -> ["01", "03"], each an exercise of exercises.json."""
    ids = [ex["id"] for ex in kitbuild.catalogue()["exercises"]]
    chosen = [f"{int(item):02d}" if item.strip().isdigit() else item.strip()
              for item in text.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in ids]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"no exercise {', '.join(unknown) or text!r}; the "
                                         f"exercises are {', '.join(ids)}")
    return chosen


def positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, more than 0 and at most 3600")
    return seconds


def add_grading_options(parser: argparse.ArgumentParser) -> None:
    """The options of a grading run, shared with `tools/grade slurm` (which passes them on)."""
    parser.add_argument("submissions", type=Path, help="a folder with one folder per student")
    parser.add_argument("--out", type=Path, required=True, help="where the gradebook goes")
    parser.add_argument("--jobs", type=int, default=1, help="students graded at once")
    parser.add_argument("--hidden", type=Path, help="a hidden case set (tools/record --out)")
    parser.add_argument("--rubric", type=Path, help='JSON {"points": {"01": 5}, "partial": true}')
    parser.add_argument("--build-jobs", type=int, default=2, help="ninja -j of the kit's build")
    parser.add_argument("--exercises", type=exercise_list, metavar="01,03",
                        help="grade these exercises only (their files alone are taken; the "
                             "gradebook has their columns alone)")
    parser.add_argument("--timeout", type=positive_seconds, metavar="SECONDS",
                        help="CPU seconds of a test program's run before the case it is in "
                             "counts as timed out; the wall clock allows test_wall_factor times "
                             "more (default: exercises.json's test_timeout_s, as ctest allows)")
    parser.add_argument("--wall-timeout", type=positive_seconds, metavar="SECONDS",
                        help="wall-clock seconds of a test program's run, which end one that "
                             "waits (a sleep, a fork bomb's pauses) or a machine far too busy "
                             "(default: test_wall_factor times the CPU seconds)")
    parser.add_argument("--compile-timeout", type=positive_seconds, metavar="SECONDS",
                        help="CPU seconds of each compile or link of a student's files, which "
                             f"end an include loop; the wall clock allows {COMPILE_WALL_FACTOR:g} "
                             f"times more (default {COMPILE_LIMITS['cpu_s']})")
    parser.add_argument("--without-namespaces", action="store_true",
                        help="on a machine that refuses namespaces (a chroot, a container), "
                             "grade with a uid change and limits only (what is lost: "
                             "tools/grader/README.md)")


def in_private_mounts(argv: list) -> None:
    """Runs the grader again in a mount namespace of its own (once, as root, where namespaces
    work), so the tmpfs work folders it mounts are its own and vanish with it."""
    if os.geteuid() != 0 or os.environ.get(PRIVATE_MOUNTS) or isolation() != "bwrap":
        return
    os.environ[PRIVATE_MOUNTS] = "1"
    grade = str(Path(__file__).resolve().parents[1] / "grade")
    os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", "--",
                          sys.executable, grade, *argv])


def packages_ready() -> bool:
    """What the grader needs installed (the kit's build packages, bubblewrap): installed as
    root by `tools/kit setup`'s own step, else named in one line."""
    return packages.install(kitbuild.catalogue()["settings"]["packages"],
                            with_grader=os.geteuid() == 0)


def prepare_kit_main(argv) -> int:
    """`tools/grade prepare-kit DIR`: the pristine kit of HEAD built in DIR/.kit-build (only
    what a new commit changed is rebuilt), for `tools/grade --kit-build DIR` (tools/kit test
    grades its synthetic class so)."""
    parser = argparse.ArgumentParser(prog="tools/grade prepare-kit",
                                     description="build the pristine kit of HEAD in "
                                                 "DIR/.kit-build, for --kit-build DIR")
    parser.add_argument("folder", type=Path, help="where .kit-src and .kit-build go")
    parser.add_argument("--build-jobs", type=int, default=os.cpu_count() or 2,
                        help="ninja -j of the kit's build")
    args = parser.parse_args(argv)
    try:
        kitbuild.prepare(args.folder.resolve(), kitbuild.catalogue()["exercises"],
                         args.build_jobs)
    except kitbuild.BuildError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not packages_ready():
        return 1
    in_private_mounts(argv)
    if "--gradescope" in argv:
        return gradescope.main(Grader, argv)
    parser = argparse.ArgumentParser(prog="tools/grade", description=__doc__.split("\n")[0])
    add_grading_options(parser)
    parser.add_argument("--shard", type=shard_spec, metavar="K/N",
                        help="grade only students K, K+N, ... of the sorted class "
                             "(tools/grade merge joins the shards)")
    parser.add_argument("--kit-build", type=Path, metavar="DIR",
                        help="use the kit DIR/.kit-build finished for this HEAD, build nothing")
    args = parser.parse_args(argv)
    everyone, skipped = list_students(args.submissions)
    if not everyone:
        print(f"grade: no student folders in {args.submissions}", file=sys.stderr)
        return 1
    # A shard with no student (more shards than students) still writes its OUT, for merge.
    students = shard_of(everyone, args.shard) if args.shard else everyone
    try:
        grader = Grader(args)
        grader.notes += skipped
        print(f"grade: {'using' if args.kit_build else 'building'} the kit's HEAD in "
              f"{args.kit_build or args.out}/.kit-build ...", flush=True)
        grader.prepare()
    except kitbuild.BuildError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 1
    for note in grader.notes:
        print(f"grade: {note}")
    print(f"grade: kit {grader.head[:10]} ready in {grader.build_s:.1f} s; grading "
          f"{len(students)} students with {args.jobs} job(s)", flush=True)
    slots = queue.Queue()
    for _ in range(args.jobs):
        slots.put(grader.sandbox())
    lock = threading.Lock()
    live_slots = [args.jobs]  # a slot whose work folder could not be released stops

    def grader_error(student, error) -> dict:
        record = {"id": submission.student_id(student.name), "status": "crashed",
                  "total": 0.0, "max": grader.rubric.total, "exercises": {}, "seconds": 0.0,
                  "error": printable(f"grader error: {error!r}", one_line=True, limit=500),
                  "traceback": traceback.format_exc()[-6000:]}
        reports.write_grader_error(grader.out / "students" / record["id"], record)
        return record

    def one(student):
        sandbox = None
        while sandbox is None:
            with lock:
                if not live_slots[0]:
                    break
            try:
                sandbox = slots.get(timeout=1)
            except queue.Empty:
                continue
        try:
            if sandbox is None:
                raise SlotError("every job slot stopped: no slot left to grade in")
            record = grader.grade_student(student, sandbox)
            slots.put(sandbox)
        except SlotError as error:  # this slot goes no further: its next students, elsewhere
            record = grader_error(student, error)
            if sandbox is not None:
                with lock:
                    live_slots[0] -= 1
                print(f"grade: job slot of uid {sandbox.uid} stopped: {error}", flush=True)
        except Exception as error:  # a grader bug on one student must not stop the class
            record = grader_error(student, error)
            slots.put(sandbox)
        with lock:
            print(f"  {record['id']:<24} {record['total']:>7.2f}/{record['max']:<6} "
                  f"{record['status']:<13} {record['seconds']:.1f} s", flush=True)
        return record

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        records = list(pool.map(one, students))
    wall = time.monotonic() - start
    reports.write_class(grader.out, records, grader.exercises, grader.rubric, grader.notes,
                        grader.meta(everyone, wall))
    print(f"grade: {len(records)} students in {wall:.1f} s ({wall / max(len(records), 1):.1f} s "
          f"each with {args.jobs} job(s)); {grader.out / 'gradebook.csv'}")
    return 0

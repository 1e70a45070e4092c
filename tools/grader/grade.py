"""tools/grade: grades a class of submissions against the kit's cases (tools/grader/README.md).

    tools/grade SUBMISSIONS --out OUT [--jobs N] [--hidden CASES] [--rubric FILE]
                [--shard K/N] [--kit-build DIR]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import cases as casesets
from . import gradescope, kitbuild, reports
from .rubric import Rubric
from .sandbox import LINK_GID, Limits, Sandbox, namespaces_work

SEVERITY = {"graded": 0, "crashed": 1, "timed-out": 2, "build-failed": 3}
COMPILE_LIMITS = dict(address_space=4 << 30, cpu_s=120, wall_s=180.0, nproc=64, file_size=256 << 20)


def find_sources(submission: Path, exercises: list) -> dict:
    """The student's file of each exercise: SUBMISSION/exercises/NN_*.cpp or SUBMISSION/NN_*.cpp.
    Only those names are taken; a link or anything but a regular file is not."""
    found = {}
    for exercise in exercises:
        name = Path(exercise["stub"]).name
        for candidate in (submission / "exercises" / name, submission / name):
            if candidate.is_file() and not candidate.is_symlink():
                found[exercise["id"]] = candidate
                break
    return found


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


def list_students(submissions: Path) -> list:
    return sorted(p for p in submissions.iterdir() if p.is_dir() and not p.is_symlink()
                  and not p.name.startswith("."))


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


class Grader:
    def __init__(self, args):
        self.args = args
        self.out = args.out.resolve()
        catalogue = kitbuild.catalogue()
        self.exercises = catalogue["exercises"]
        self.settings = catalogue["settings"]
        self.rubric = Rubric.load(args.rubric, [ex["id"] for ex in self.exercises])
        self.isolated = os.geteuid() == 0
        self.notes = []

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
        self.judge = build / "bin" / "attn_judge"
        self.commands = {ex["id"]: kitbuild.commands(source, build, ex) for ex in self.exercises}
        self.build_dir = build

        sandbox_root = out / ".sandbox"
        if sandbox_root.exists():
            shutil.rmtree(sandbox_root)
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
        self.inputs = {name: casesets.inputs_only(path, sandbox_root / f"inputs-{name}")
                       for name, path in self.sets.items()}
        self.manifests = {name: casesets.manifest(path) for name, path in self.sets.items()}
        if not self.isolated:
            self.notes.append("not root: programs run WITHOUT a uid change (limits and timeouts "
                              "still apply); grade as root for the sandbox")
        self.namespaces = self.isolated and namespaces_work()
        if self.isolated and not self.namespaces:
            self.notes.append("this machine refuses network and mount namespaces (a container?): "
                              "the sandbox changes uid and sets limits, but programs could reach "
                              "the network and share /tmp")

    def meta(self, students: list, wall: float) -> dict:
        """records.json's "meta": what the run graded with, and for `tools/grade merge`, what
        its shards must agree on (kit, case sets, rubric, class) and which shard this is."""
        meta = {"kit_head": self.head, "build_s": round(self.build_s, 2),
                "grading_wall_s": round(wall, 2), "jobs": self.args.jobs,
                "sets": list(self.sets), "sandboxed": self.isolated,
                "case_sets": {name: casesets.fingerprint(path) for name, path in self.sets.items()},
                "rubric": {"points": self.rubric.points, "partial": self.rubric.partial},
                "class": [student.name for student in students]}
        if self.args.shard:
            meta["shard"] = list(self.args.shard)
        return meta

    def sandbox(self) -> Sandbox:
        """A job slot's sandbox: a uid no other grader on this machine holds (shards too)."""
        return Sandbox(namespaces=self.namespaces, keep=(self.out, self.kit_dir))

    def grade_student(self, student: Path, sandbox: Sandbox) -> dict:
        start = time.monotonic()
        work = self.sandbox_root / f"uid{sandbox.uid}"
        if work.exists():
            shutil.rmtree(work)
        work.mkdir()
        sandbox.give(str(work))
        sources = find_sources(student, self.exercises)
        record = {"id": student.name, "exercises": {}, "status": "graded"}
        feedback_dir = self.out / student.name
        feedback_dir.mkdir(exist_ok=True)
        os.chmod(feedback_dir, 0o700)
        together = self.compile_together(sources, work, sandbox)
        if together["object"] is None:
            record["compiled_together"] = together["why"]
        for exercise in self.exercises:
            result = self.grade_exercise(exercise, sources.get(exercise["id"]), work, sandbox,
                                         feedback_dir, together["object"])
            record["exercises"][exercise["id"]] = result
            if SEVERITY[result["status"]] > SEVERITY[record["status"]]:
                record["status"] = result["status"]
        sandbox.sweep()
        shutil.rmtree(work, ignore_errors=True)
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
        folder = work / "together"
        folder.mkdir()
        sandbox.give(str(folder))
        lines = []
        for ex_id, source in sorted(sources.items()):
            copy = folder / source.name
            shutil.copyfile(source, copy)
            os.chmod(copy, 0o644)
            lines.append(f'#include "{source.name}"\n')
        unity = folder / "all_exercises.cpp"
        unity.write_text("".join(lines), encoding="utf-8")
        os.chmod(unity, 0o644)
        obj = folder / "all_exercises.o"
        env = {"TMPDIR": str(folder), "HOME": str(folder)}
        cmds = self.commands[max(sources)]  # every exercise file compiles with the same flags
        # -fPIC: global functions stay interposable, so a call from the student's 04 to their
        # own softmax is neither inlined nor bound inside the unit, and links to the kit's
        # strong solution like any other (without it, fork_bomb's 03 ran inside their 04).
        # The precompiled header (-fPIE) then goes unused; the unit is still ~4x faster.
        argv = kitbuild.student_compile(cmds, str(unity), str(obj))
        compiled = sandbox.run(argv[:1] + ["-fPIC"] + argv[1:], str(self.build_dir),
                               Limits(**COMPILE_LIMITS), env)
        # Only its definitions: a weakened undefined reference (cblas_ssyrk) would link to 0.
        weaken = ("nm -g --defined-only -P all_exercises.o | cut -d' ' -f1 > defined.txt && "
                  "objcopy --weaken-symbols=defined.txt all_exercises.o")
        weakened = compiled.status == "ok" and sandbox.run(
            ["/bin/sh", "-c", weaken], str(folder), Limits(**COMPILE_LIMITS), env).status == "ok"
        seconds = round(time.monotonic() - start, 2)
        if not weakened:
            return {"object": None, "seconds": seconds,
                    "why": "compiled file by file: " + ("the files do not compile as one unit"
                                                        if compiled.status != "ok"
                                                        else "weakening its symbols failed")}
        return {"object": obj, "why": "", "seconds": seconds}

    def grade_exercise(self, exercise, source, work, sandbox, feedback_dir, together) -> dict:
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
            result["note"] = f"no file {Path(exercise['stub']).name} in the submission"
            self.fail_all(result, all_cases, result["note"])
        else:
            folder = work / ex_id
            for attempt in ([together] if together else []) + [None]:
                if folder.exists():
                    shutil.rmtree(folder)
                folder.mkdir()
                sandbox.give(str(folder))
                result.update(status="graded", note="", sets={})
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
        """The exercise's test program, linked with `together` or with the file compiled
        alone; None (and the compiler's words in result["note"]) when it does not build."""
        ex_id = exercise["id"]
        cmds = self.commands[ex_id]
        program = folder / f"test_ex{ex_id}_exercises"
        env = {"TMPDIR": str(folder), "HOME": str(folder)}
        obj, student_file = together, folder / Path(exercise["stub"]).name
        if together is None:
            shutil.copyfile(source, student_file)
            os.chmod(student_file, 0o644)
            obj = folder / "exercise.o"
            # The compiler runs in the sandbox: `#include` or `.incbin` of a hidden tensor fails.
            compiled = sandbox.run(kitbuild.student_compile(cmds, str(student_file), str(obj)),
                                   str(self.build_dir), Limits(**COMPILE_LIMITS), env)
            result["timing"]["compile"] = round(compiled.seconds, 2)
            if compiled.status != "ok":
                result["status"] = "build-failed"
                result["note"] = "does not compile:\n" + self.compiler_words(
                    compiled.output, student_file, folder, exercise)
                return None
        # Only the link step may read the kit's libraries (the earlier solutions among them).
        linked = sandbox.run(kitbuild.student_link(cmds, str(obj), str(program),
                                                   weak=together is not None),
                             str(self.build_dir), Limits(**COMPILE_LIMITS), env,
                             groups=(LINK_GID,))
        result["timing"]["link"] = round(linked.seconds, 2)
        if linked.status != "ok":
            result["status"] = "build-failed"
            result["note"] = "does not link:\n" + self.compiler_words(
                linked.output, student_file, folder, exercise)
            return None
        return program

    @staticmethod
    def compiler_words(output, student_file, folder, exercise) -> str:
        """The compiler's output with the sandbox's paths taken out, for the student."""
        return output.replace(str(student_file), Path(exercise["stub"]).name) \
            .replace(str(folder) + "/", "")[:3000]

    def run_and_judge(self, exercise, folder, program, sandbox, feedback_dir, result,
                      all_cases) -> bool:
        """Runs the program on each case set and judges its result files into result["sets"].
        Returns whether its main() started (the runner's marker file) on some set."""
        ex_id = exercise["id"]
        wall = float(self.settings.get("test_timeout_s", 20))
        started = False
        for name in self.sets:
            run_dir, results = folder / f"cwd-{name}", folder / f"results-{name}"
            for path in (run_dir, results):
                path.mkdir()
                sandbox.give(str(path))
            ran = None
            if result["status"] == "timed-out":
                # It hung on an earlier set: its cases here fail unrun, not another timeout.
                result["timing"][f"run-{name}"] = 0.0
            else:
                ran = sandbox.run([str(program), f"--attn-run-cases={self.inputs[name]}",
                                   f"--attn-results={results}"], str(run_dir),
                                  Limits(wall_s=wall, cpu_s=int(wall)))
                result["timing"][f"run-{name}"] = round(ran.seconds, 2)
            if ran is not None and ran.status in ("crashed", "timed-out") and \
                    SEVERITY[ran.status] > SEVERITY[result["status"]]:
                result["status"] = ran.status
                result["note"] = (f"the test program {ran.status} on the {name} cases "
                                  f"(exit {ran.returncode}); cases without a result fail")
            started |= (results / "runner-started").exists()
            result["sets"][name] = self.judge_set(ex_id, name, results, feedback_dir, result,
                                                  all_cases[name])
        return started

    def judge_set(self, ex_id, name, results, feedback_dir, result, paths) -> dict:
        """The verdict: the judge on the result files against the full set. The program's exit
        status and output are never read for it."""
        verdicts_file = feedback_dir / f"verdicts-{ex_id}-{name}.json"
        t1 = time.monotonic()
        judged = subprocess.run([str(self.judge), "--cases", str(self.sets[name]), "--results",
                                 str(results), "--exercise", ex_id, "--out", str(verdicts_file)],
                                capture_output=True, text=True, timeout=120)
        if verdicts_file.exists():
            os.chmod(verdicts_file, 0o600)
        result["timing"][f"judge-{name}"] = round(time.monotonic() - t1, 2)
        if judged.returncode != 0:
            verdicts = []
            result["note"] += f"\nthe judge could not judge: {judged.stderr.strip()}"
        else:
            verdicts = json.loads(verdicts_file.read_text(encoding="utf-8"))["cases"]
        by_case = {v["case"]: v for v in verdicts}
        failures, passed_cases = [], []
        for path in paths:
            verdict = by_case.get(path)
            if verdict and verdict["passed"]:
                passed_cases.append(path)
                continue
            bad = [o for o in (verdict or {}).get("outputs", []) if not o["passed"]] or \
                [{"name": "", "reason": "not judged", "mistake": "", "hint": ""}]
            failures.append({"case": path, "reason": "; ".join(
                (f"{o['name']}: " if o["name"] else "") + o["reason"] for o in bad),
                "mistake": "; ".join(o["mistake"] for o in bad if o.get("mistake")),
                "hint": "; ".join(o["hint"] for o in bad if o.get("hint"))})
        return {"cases": len(paths), "passed": len(passed_cases), "failures": failures,
                "passed_cases": passed_cases}


def add_grading_options(parser: argparse.ArgumentParser) -> None:
    """The options of a grading run, shared with `tools/grade slurm` (which passes them on)."""
    parser.add_argument("submissions", type=Path, help="a folder with one folder per student")
    parser.add_argument("--out", type=Path, required=True, help="where the gradebook goes")
    parser.add_argument("--jobs", type=int, default=1, help="students graded at once")
    parser.add_argument("--hidden", type=Path, help="a hidden case set (tools/record --out)")
    parser.add_argument("--rubric", type=Path, help='JSON {"points": {"01": 5}, "partial": true}')
    parser.add_argument("--build-jobs", type=int, default=2, help="ninja -j of the kit's build")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
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
    everyone = list_students(args.submissions)
    if not everyone:
        print(f"grade: no student folders in {args.submissions}", file=sys.stderr)
        return 1
    # A shard with no student (more shards than students) still writes its OUT, for merge.
    students = shard_of(everyone, args.shard) if args.shard else everyone
    grader = Grader(args)
    print(f"grade: {'using' if args.kit_build else 'building'} the kit's HEAD in "
          f"{args.kit_build or args.out}/.kit-build ...", flush=True)
    try:
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

    def one(student):
        sandbox = slots.get()
        try:
            record = grader.grade_student(student, sandbox)
        except Exception as error:  # a grader bug on one student must not stop the class
            record = {"id": student.name, "status": "crashed", "total": 0.0,
                      "max": grader.rubric.total, "exercises": {}, "seconds": 0.0,
                      "error": f"grader error: {error!r}"}
        finally:
            slots.put(sandbox)
        with lock:
            print(f"  {record['id']:<24} {record['total']:>7.2f}/{record['max']:<6} "
                  f"{record['status']:<12} {record['seconds']:.1f} s", flush=True)
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

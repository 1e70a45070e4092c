#!/usr/bin/env python3
"""tests/grading/test_shards.py — tools/grade --shard K/N's partition, tools/grade merge on
fabricated shard OUTs (records.json and student folders written the way a grading run writes
them) and the scripts tools/grade slurm writes, with no kit build, no grading run and no
Slurm. ctest runs it as kit.grade_shards.

  - the shards of a class: every student in exactly one, for any N (more shards than students
    too);
  - three shards merged: the same gradebook.csv and records as one run over the class writes,
    the student folders copied from SHARD_OUT/students/ with their modes (0700 / 0600);
    gradebook.csv's header row first (no '#' line), the provenance in grading.json (0600);
  - each refusal, in one line naming the problem: a shard missing, a shard given twice, a
    student in two shards, another kit commit, another rubric, another class, a folder that is
    not a shard, a shard with no records.json;
  - tools/grade slurm's grade.sbatch (the array, a shard per task, the kit built once) and
    merge.sbatch (every shard, in order).
tests/grading/slurm_check.sh runs them on a real Slurm cluster (CI).

Standard library only: python3 tests/grading/test_shards.py
"""

import argparse
import contextlib
import io
import json
import shutil
import stat
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from grader import grade, kitbuild, merge, reports, slurm  # noqa: E402  (after the path is set)
from grader.rubric import Rubric  # noqa: E402

EXERCISES = kitbuild.catalogue()["exercises"]
CLASS = ["ada", "bob", "cyd", "dee", "eve", "fay", "gus"]
META = {"kit_head": "a" * 40, "build_s": 1.5, "grading_wall_s": 10.0, "jobs": 1,
        "sets": ["public"], "sandboxed": True, "case_sets": {"public": "b" * 64},
        "rubric": {"points": {ex["id"]: 10 for ex in EXERCISES}, "partial": True},
        "class": CLASS}


def record(student: str) -> dict:
    """A record as Grader.grade_student makes it: student i passes i of each exercise's 6
    cases (capped), so every row of the gradebook differs."""
    passed = min(CLASS.index(student), 6)
    exercises = {}
    for ex in EXERCISES:
        cases = [f"ex{ex['id']}/case{i}" for i in range(6)]
        exercises[ex["id"]] = {
            "status": "graded", "points": round(10 * passed / 6, 2), "max": 10, "note": "",
            "timing": {"compile": 0.5, "total": 1.0},
            "sets": {"public": {"cases": 6, "passed": passed, "passed_cases": cases[:passed],
                                "failures": [{"case": case, "reason": "wrong values",
                                              "mistakes": []}
                                             for case in cases[passed:]]}}}
    return {"id": student, "exercises": exercises, "status": "graded", "seconds": 5.0,
            "total": round(sum(e["points"] for e in exercises.values()), 2),
            "max": 10.0 * len(EXERCISES)}


def write_out(folder: Path, students: list, meta: dict) -> Path:
    """An OUT as tools/grade writes it: a 0700 folder per student under OUT/students with 0600
    files, and the class-wide files from reports.write_class."""
    folder.mkdir()
    records = [record(student) for student in students]
    (folder / "students").mkdir(mode=0o700)
    for student in students:
        (folder / "students" / student).mkdir(mode=0o700)
        (folder / "students" / student / "feedback.txt").write_text(f"feedback for {student}\n")
        (folder / "students" / student / "feedback.txt").chmod(0o600)
    reports.write_class(folder, records, EXERCISES, Rubric(**meta["rubric"]), [], meta)
    return folder


class ShardTest(unittest.TestCase):
    def setUp(self):
        temporary = tempfile.TemporaryDirectory(prefix="grade-merge-")
        self.addCleanup(temporary.cleanup)
        self.root = Path(temporary.name)

    def shard(self, k: int, n: int, students=None, name=None, **meta) -> Path:
        """Shard K/N's OUT: its students (default: grade.shard_of's), META changed by meta."""
        students = grade.shard_of(CLASS, (k, n)) if students is None else students
        return write_out(self.root / (name or f"shard{k}of{n}"), students,
                         {**META, "grading_wall_s": 10.0 + k, **meta, "shard": [k, n]})

    def refused(self, folders: list) -> str:
        """merge's one-line error (through its CLI, as an instructor sees it)."""
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            code = merge.main([str(f) for f in folders] + ["--out", str(self.root / "merged")])
        self.assertEqual(code, 1)
        lines = stderr.getvalue().splitlines()
        self.assertEqual(len(lines), 1, lines)
        return lines[0]


class PartitionTest(unittest.TestCase):
    def test_every_student_in_exactly_one_shard(self):
        for n in range(1, len(CLASS) + 3):
            shards = [grade.shard_of(CLASS, (k, n)) for k in range(1, n + 1)]
            self.assertEqual(sorted(s for shard in shards for s in shard), CLASS, f"N = {n}")

    def test_shard_k_takes_every_nth_student_from_the_kth(self):
        self.assertEqual(grade.shard_of(CLASS, (2, 3)), ["bob", "eve"])

    def test_shard_spec(self):
        self.assertEqual(grade.shard_spec("2/3"), (2, 3))
        for bad in ("0/3", "4/3", "3", "a/b", "1/2/3"):
            with self.assertRaises(Exception, msg=bad):
                grade.shard_spec(bad)


class MergeTest(ShardTest):
    def test_three_shards_merge_into_the_single_run_gradebook(self):
        shards = [self.shard(k, 3) for k in (3, 1, 2)]  # any order
        single = write_out(self.root / "single", CLASS, META)
        merged = self.root / "merged"
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(merge.main([str(s) for s in shards] + ["--out", str(merged)]), 0)
        self.assertEqual((merged / "gradebook.csv").read_text(),
                         (single / "gradebook.csv").read_text())
        ours = json.loads((merged / "records.json").read_text())
        theirs = json.loads((single / "records.json").read_text())
        self.assertEqual(ours["records"], theirs["records"])
        self.assertEqual(ours["notes"], theirs["notes"])
        timing = {"build_s", "grading_wall_s", "jobs", "shards"}
        self.assertEqual({k: v for k, v in ours["meta"].items() if k not in timing},
                         {k: v for k, v in theirs["meta"].items() if k not in timing})
        self.assertEqual(ours["meta"]["grading_wall_s"], 13.0)  # the slowest shard
        self.assertEqual([s["shard"] for s in ours["meta"]["shards"]], [[1, 3], [2, 3], [3, 3]])
        timings = json.loads((merged / "timings.json").read_text())
        self.assertEqual(sorted(timings["students"]), CLASS)
        self.assertEqual(stat.S_IMODE((merged / "students").stat().st_mode), 0o700)
        for student in CLASS:
            self.assertEqual(stat.S_IMODE((merged / "students" / student).stat().st_mode), 0o700)
            feedback = merged / "students" / student / "feedback.txt"
            self.assertEqual(stat.S_IMODE(feedback.stat().st_mode), 0o600)
            self.assertEqual(feedback.read_text(), f"feedback for {student}\n")

    def test_the_gradebook_header_comes_first_and_provenance_goes_to_grading_json(self):
        """Spreadsheets, pandas and LMS imports take line 1 as the header: no '#' line."""
        shards = [self.shard(k, 2) for k in (1, 2)]
        merged = self.root / "merged"
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(merge.main([str(s) for s in shards] + ["--out", str(merged)]), 0)
        lines = (merged / "gradebook.csv").read_text().splitlines()
        self.assertEqual(lines[0], "id,total,max," + ",".join(ex["id"] for ex in EXERCISES)
                         + ",status")
        self.assertFalse(any(line.startswith("#") for line in lines))
        self.assertEqual(len(lines), 1 + len(CLASS))
        provenance = merged / "grading.json"
        self.assertEqual(stat.S_IMODE(provenance.stat().st_mode), 0o600)
        data = json.loads(provenance.read_text())
        self.assertEqual(data["kit_commit"], META["kit_head"])
        self.assertEqual(data["case_sets"], META["case_sets"])
        self.assertEqual(data["rubric"], META["rubric"])
        self.assertEqual(data["students"], len(CLASS))
        self.assertIn("graded_at", data)

    def test_more_shards_than_students(self):
        shards = [self.shard(k, 9) for k in range(1, 10)]
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(merge.main([str(s) for s in shards] +
                                        ["--out", str(self.root / "merged")]), 0)
        self.assertEqual(len(json.loads((self.root / "merged" / "records.json").read_text())
                             ["records"]), len(CLASS))

    def test_a_missing_shard(self):
        self.assertEqual(self.refused([self.shard(1, 3), self.shard(3, 3)]),
                         "grade merge: shard 2/3 missing (given: 1/3, 3/3)")

    def test_a_shard_given_twice(self):
        first = self.shard(2, 3)
        again = self.root / "copy-of-2"
        shutil.copytree(first, again)
        line = self.refused([self.shard(1, 3), first, again, self.shard(3, 3)])
        self.assertEqual(line, f"grade merge: shard 2/3 given twice: {first} and {again}")

    def test_a_student_in_two_shards(self):
        one = self.shard(1, 2, students=["ada", "bob", "cyd", "eve", "gus"])
        two = self.shard(2, 2)  # bob, dee, fay
        self.assertEqual(self.refused([one, two]),
                         f"grade merge: student bob graded twice: in {one} and {two}")

    def test_another_kit_commit(self):
        line = self.refused([self.shard(1, 2), self.shard(2, 2, kit_head="c" * 40)])
        self.assertIn("different kit commit", line)

    def test_another_rubric(self):
        rubric = {"points": {ex["id"]: 5 for ex in EXERCISES}, "partial": True}
        self.assertIn("different rubric",
                      self.refused([self.shard(1, 2), self.shard(2, 2, rubric=rubric)]))

    def test_another_timeout(self):
        self.assertIn("different time-out of a test program",
                      self.refused([self.shard(1, 2, timeout_s=20.0),
                                    self.shard(2, 2, timeout_s=8.0)]))
        self.assertIn("different wall-clock time-out of a test program",
                      self.refused([self.shard(1, 2, name="wall1", wall_timeout_s=100.0),
                                    self.shard(2, 2, name="wall2", wall_timeout_s=16.0)]))

    def test_another_case_set(self):
        self.assertIn("different case sets",
                      self.refused([self.shard(1, 2),
                                    self.shard(2, 2, case_sets={"public": "d" * 64})]))

    def test_another_class(self):
        self.assertIn("different class",
                      self.refused([self.shard(1, 2), self.shard(2, 2, **{"class": CLASS[:-1]})]))

    def test_not_a_shard(self):
        single = write_out(self.root / "single", CLASS, META)
        self.assertEqual(self.refused([single]),
                         f"grade merge: {single} is not a shard (graded without --shard K/N)")

    def test_an_unfinished_shard(self):
        unfinished = self.root / "unfinished"
        unfinished.mkdir()
        self.assertEqual(self.refused([self.shard(1, 2), unfinished]),
                         f"grade merge: {unfinished} has no records.json (did its shard finish?)")


class SlurmScriptsTest(ShardTest):
    def test_no_sbatch_stops_before_the_build_in_one_line(self):
        (self.root / "class" / "alice").mkdir(parents=True)
        stderr = io.StringIO()
        with unittest.mock.patch.object(slurm.shutil, "which", return_value=None), \
                unittest.mock.patch.object(kitbuild, "prepare") as build, \
                contextlib.redirect_stderr(stderr):
            code = slurm.main([str(self.root / "class"), "--out", str(self.root / "out"),
                               "--array", "2"])
        self.assertEqual((code, build.called), (1, False))
        self.assertEqual(stderr.getvalue(), slurm.SBATCH_MISSING + "\n")
        self.assertTrue(slurm.SBATCH_MISSING.startswith("grade: sbatch not found: "))
        self.assertIn("--no-submit", slurm.SBATCH_MISSING)
        self.assertFalse((self.root / "out").exists())  # nothing written either

    def test_no_submit_needs_no_sbatch(self):
        (self.root / "class" / "alice").mkdir(parents=True)
        with unittest.mock.patch.object(slurm.shutil, "which", return_value=None), \
                unittest.mock.patch.object(kitbuild, "prepare", return_value="a" * 40), \
                unittest.mock.patch.object(grade, "make_out",
                                           side_effect=lambda out, _: out.mkdir()), \
                contextlib.redirect_stdout(io.StringIO()) as stdout, \
                contextlib.redirect_stderr(io.StringIO()):
            code = slurm.main([str(self.root / "class"), "--out", str(self.root / "out"),
                               "--array", "2", "--no-submit"])
        self.assertEqual(code, 0)
        self.assertTrue((self.root / "out" / "slurm" / "grade.sbatch").is_file())
        self.assertIn("submit: id=$(sbatch --parsable", stdout.getvalue())

    def test_the_tasks_use_a_kit_built_before_and_nothing_is_built(self):
        (self.root / "class" / "alice").mkdir(parents=True)
        built = self.root / "built"
        with unittest.mock.patch.object(slurm.shutil, "which", return_value=None), \
                unittest.mock.patch.object(kitbuild, "prepare") as prepare, \
                unittest.mock.patch.object(kitbuild, "reuse", return_value="a" * 40) as reuse, \
                unittest.mock.patch.object(grade, "require_searchable_by_others"), \
                unittest.mock.patch.object(grade, "make_out",
                                           side_effect=lambda out, _: out.mkdir()), \
                contextlib.redirect_stdout(io.StringIO()) as stdout, \
                contextlib.redirect_stderr(io.StringIO()):
            code = slurm.main([str(self.root / "class"), "--out", str(self.root / "out"),
                               "--array", "2", "--no-submit", "--kit-build", str(built)])
        self.assertEqual(code, 0)
        prepare.assert_not_called()
        reuse.assert_called_once_with(built.resolve())
        task = (self.root / "out" / "slurm" / "grade.sbatch").read_text().splitlines()[-1]
        self.assertIn(f" --kit-build {built.resolve()} ", task)
        self.assertIn(f"kit {'a' * 10} in {built.resolve()}/.kit-build, finished",
                      stdout.getvalue())

    def test_a_kit_build_of_another_commit_stops_it_before_it_writes_a_script(self):
        (self.root / "class" / "alice").mkdir(parents=True)
        stale = kitbuild.BuildError("the kit build in /k is of commit bbbbbbbbbb, the kit's "
                                    "HEAD is aaaaaaaaaa: build it again")
        with unittest.mock.patch.object(slurm.shutil, "which", return_value=None), \
                unittest.mock.patch.object(kitbuild, "reuse", side_effect=stale), \
                unittest.mock.patch.object(grade, "require_searchable_by_others"), \
                unittest.mock.patch.object(grade, "make_out",
                                           side_effect=lambda out, _: out.mkdir()), \
                contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()) as stderr:
            code = slurm.main([str(self.root / "class"), "--out", str(self.root / "out"),
                               "--array", "2", "--no-submit", "--kit-build", "/k"])
        self.assertEqual(code, 1)
        self.assertEqual(stderr.getvalue(), f"grade slurm: {stale}\n")
        self.assertFalse((self.root / "out" / "slurm").exists())

    def test_an_array_of_shards_then_a_merge_of_them(self):
        out = self.root / "out"
        out.mkdir()
        args = argparse.Namespace(submissions=Path("/srv/class"), array=3, jobs=2,
                                  hidden=Path("/srv/hidden"), rubric=None,
                                  exercises=["01", "03"], partition="short", time="30",
                                  timeout=8.0, wall_timeout=16.0, compile_timeout=40.0)
        grade_script, merge_script = slurm.write_scripts(args, out, out)
        lines = grade_script.read_text().splitlines()
        for directive in ("--array=1-3", "--cpus-per-task=2", "--partition=short", "--time=30",
                          f"--output={out}/slurm/grade-%A_%a.log"):
            self.assertIn(f"#SBATCH {directive}", lines)
        self.assertEqual(lines[-1], f"exec {kitbuild.KIT}/tools/grade /srv/class --out "
                                    f"{out}/shards/$SLURM_ARRAY_TASK_ID --shard "
                                    f"$SLURM_ARRAY_TASK_ID/3 --kit-build {out} --jobs 2 "
                                    f"--hidden /srv/hidden --exercises 01,03 --timeout 8.0 "
                                    f"--wall-timeout 16.0 --compile-timeout 40.0")
        lines = merge_script.read_text().splitlines()
        self.assertIn("#SBATCH --partition=short", lines)
        self.assertEqual(lines[-1], f"exec {kitbuild.KIT}/tools/grade merge {out}/shards/1 "
                                    f"{out}/shards/2 {out}/shards/3 --out {out}")


if __name__ == "__main__":
    unittest.main()

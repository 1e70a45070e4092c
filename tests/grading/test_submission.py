#!/usr/bin/env python3
"""tests/grading/test_submission.py — what tools/grade takes of a submission (submission.py).

Exactly the exercise files exercises.json names, each a regular file reached without following
a link; everything else is "not taken" with a reason, or missing with what was found instead;
nothing of the submission is ever read but those files (a FIFO does not block, a 3 GiB sparse
file is not read). Student ids are printable and distinct. ctest: kit.grade_submission.
Standard library only: python3 tests/grading/test_submission.py
"""

import os
import sys
import tempfile
import time
import unittest
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))

from grader import kitbuild, submission  # noqa: E402  (after the path is set)

EXERCISES = kitbuild.catalogue()["exercises"]
FIRST, SECOND, THIRD = (Path(ex["stub"]).name for ex in EXERCISES[:3])


class TakeTest(unittest.TestCase):
    def setUp(self):
        self.top = Path(tempfile.mkdtemp(prefix="attn-take-test."))
        self.student = self.top / "student"
        self.student.mkdir()
        self.into = self.top / "into"
        self.into.mkdir()
        self.secret = self.top / "secret.cpp"
        self.secret.write_text("// not the student's")

    def tearDown(self):
        for folder, dirs, files in os.walk(self.top, topdown=False):
            for name in files + dirs:
                path = Path(folder, name)
                path.unlink() if path.is_symlink() or not path.is_dir() else path.rmdir()
        self.top.rmdir()

    def take(self):
        return submission.take(self.student, EXERCISES, self.into)

    def test_regular_files_flat_or_in_exercises(self):
        (self.student / FIRST).write_text("// first")
        (self.student / "exercises").mkdir()
        (self.student / "exercises" / SECOND).write_text("// second")
        taken = self.take()
        self.assertEqual(sorted(taken.files), [EXERCISES[0]["id"], EXERCISES[1]["id"]])
        self.assertEqual((self.into / SECOND).read_text(), "// second")
        self.assertEqual(oct((self.into / FIRST).stat().st_mode & 0o777), "0o644")

    def test_a_linked_exercises_folder_is_not_followed(self):
        (self.top / "elsewhere").mkdir()
        (self.top / "elsewhere" / FIRST).write_text("// the kit's answer")
        for target in (self.top / "elsewhere", Path("/proc/self/cwd/solutions")):
            link = self.student / "exercises"
            if link.is_symlink():
                link.unlink()
            link.symlink_to(target)
            taken = self.take()
            self.assertEqual(taken.files, {})
            self.assertIn("exercises/ is a symbolic link", taken.not_taken[EXERCISES[0]["id"]])
            self.assertFalse(taken.complete)

    def test_links_fifos_folders_and_big_files_are_not_taken(self):
        (self.student / FIRST).symlink_to(self.secret)
        os.mkfifo(self.student / SECOND)  # opened without O_NONBLOCK, this would hang
        (self.student / THIRD).mkdir()
        start = time.monotonic()
        taken = self.take()
        self.assertLess(time.monotonic() - start, 5)
        ids = [ex["id"] for ex in EXERCISES[:3]]
        self.assertEqual(taken.files, {})
        self.assertIn("symbolic link", taken.not_taken[ids[0]])
        self.assertIn("named pipe", taken.not_taken[ids[1]])
        self.assertIn("folder", taken.not_taken[ids[2]])
        self.assertEqual(list(self.into.iterdir()), [])

    def test_a_sparse_3_gib_file_is_refused_unread(self):
        sparse = self.student / FIRST
        with open(sparse, "wb") as stream:
            stream.truncate(3 << 30)
        start = time.monotonic()
        taken = self.take()
        self.assertLess(time.monotonic() - start, 2, "the sparse file was read")
        self.assertIn("over the 256 KiB", taken.not_taken[EXERCISES[0]["id"]])
        (self.student / SECOND).write_bytes(b"x" * (submission.MAX_SOURCE_BYTES + 1))
        self.assertIn(EXERCISES[1]["id"], self.take().not_taken)

    def test_missing_files_say_what_was_found_instead(self):
        (self.student / FIRST.replace(".cpp", "-1.cpp")).write_text("// renamed by an LMS")
        (self.student / f"Alice_{SECOND}").write_text("//")
        (self.student / "homework.zip").write_bytes(b"PK")
        (self.student / "notes.txt").write_text("not work")
        (self.student / "bad\nname\x1b.cpp").write_text("//")
        taken = self.take()
        self.assertEqual(taken.missing, [ex["id"] for ex in EXERCISES])
        self.assertIn(FIRST.replace(".cpp", "-1.cpp"), taken.found_instead)
        self.assertIn(f"Alice_{SECOND}", taken.found_instead)
        self.assertIn("homework.zip", taken.found_instead)
        self.assertNotIn("notes.txt", taken.found_instead)
        self.assertIn("bad?name?.cpp", taken.found_instead)

    def test_a_submission_that_is_not_a_folder(self):
        self.student.rmdir()
        self.student.symlink_to(self.top / "into")
        taken = self.take()
        self.assertEqual(taken.files, {})
        self.assertEqual(len(taken.missing), len(EXERCISES))


class StudentIdTest(unittest.TestCase):
    def test_printable_names_are_kept(self):
        for name in ("alice", "Bob Smith", "gradebook.csv", ".kit-build", "ünïcode"):
            self.assertEqual(submission.student_id(name), name)

    def test_odd_names_become_printable_and_distinct(self):
        odd = ["a\nb", "a\rb", "a\x1bb", os.fsdecode(b"a\xffb"), ".", ".."]
        ids = [submission.student_id(name) for name in odd]
        self.assertEqual(len(set(ids)), len(ids))
        for ident in ids:
            self.assertTrue(ident.isprintable(), ident)
            self.assertNotIn("/", ident)
            self.assertNotIn(ident, (".", ".."))


if __name__ == "__main__":
    unittest.main()

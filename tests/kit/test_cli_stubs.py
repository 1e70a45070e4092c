#!/usr/bin/env python3
"""tests/kit/test_cli_stubs.py — "not started" and `tools/kit reset` go by the stub's
content (its git blob id, stub_blob in exercises.json), never by git status."""

import io
import shutil
import sys
import unittest
from contextlib import redirect_stdout

from cli_testing import ThrowawayKitTest
from kitcli import progress, selftest, stubs, student
from kitcli.catalogue import KitError

HAS_GIT = shutil.which("git") is not None


class StubWarningsTest(unittest.TestCase):
    """tools/kit test's stub stage: an untouched stub compiles without a warning."""
    EXERCISE = {"id": "23", "stub": "exercises/23_fused_attention.cu"}
    BUILD = ("[1/2] Building CXX object CMakeFiles/ex23_exercises.dir/23_fused_attention.cu.o\n"
             "/k/build-selftest/stubs/23_fused_attention.cu:67:42: warning: unused parameter "
             "'queries' [-Wunused-parameter]\n"
             "/k/solutions/23_fused_attention.cu:9:1: warning: the solution's, not the stub's\n"
             "/k/build-selftest/stubs/22_gpt2_sizing.cpp:5:1: warning: another exercise's\n")

    def test_the_stubs_own_warnings_are_found_by_its_file_name(self):
        found = selftest.stub_warnings(self.EXERCISE, self.BUILD)
        self.assertEqual([d.message for d in found],
                         ["unused parameter 'queries' [-Wunused-parameter]"])

    def test_a_build_without_warnings_finds_none(self):
        self.assertEqual(selftest.stub_warnings(self.EXERCISE, "[1/1] Linking CXX ...\n"), [])


class BlobIdTest(ThrowawayKitTest):
    @unittest.skipUnless(HAS_GIT, "git is not installed")
    def test_is_what_git_hash_object_prints(self):
        stub = self.ex("02")["stub"]
        self.assertEqual(self.git("hash-object", stub).strip(),
                         stubs.git_blob_id((self.kit.root / stub).read_bytes()))

    def test_of_an_empty_file_is_gits(self):
        self.assertEqual(stubs.git_blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")


@unittest.skipUnless(HAS_GIT, "git is not installed")
class CommittedWorkTest(ThrowawayKitTest):
    def test_partial_work_committed_to_git_is_the_students_and_failing(self):
        self.commit_the_kit()
        self.start_work("02", "// half of softmax\n")
        self.git("commit", "-q", "-am", "my softmax, half done")
        stub = self.ex("02")["stub"]
        self.assertEqual(self.git("status", "--porcelain", "--", stub), "")  # clean to git
        state = progress.exercise_state(self.kit, self.ex("02"), "default", "",
                                        self.ctest_results)
        self.assertEqual(state.name, progress.FAILING)


@unittest.skipUnless(HAS_GIT, "git is not installed")
class ResetTest(ThrowawayKitTest):
    def reset(self, ex_id):
        output = io.StringIO()
        with redirect_stdout(output):
            code = student.reset(self.kit, ex_id)
        return code, output.getvalue()

    def test_restores_the_blobs_content_and_keeps_the_students_file(self):
        self.commit_the_kit()
        stub = self.kit.root / self.ex("03")["stub"]
        shipped = stub.read_bytes()
        self.start_work("03", "// my loop\n")
        self.git("commit", "-q", "-am", "my work")  # a later commit cannot hide the stub
        mine = stub.read_bytes()
        code, output = self.reset("03")
        self.assertEqual(code, 0)
        self.assertEqual(stub.read_bytes(), shipped)
        [backup] = (self.kit.root / ".kit" / "backups").iterdir()
        self.assertEqual(backup.read_bytes(), mine)
        self.assertIn(f"Your version is saved as .kit/backups/{backup.name}", output)
        self.assertTrue(stubs.is_pristine(self.kit, self.ex("03")))

    def test_says_so_when_the_file_is_already_the_stub(self):
        self.assertEqual(self.reset("03"), (0, f"{self.ex('03')['stub']} is already the "
                                               "untouched stub.\n"))

    def test_says_clearly_when_git_cannot_produce_the_stub(self):
        self.git("init", "-q")  # a repository that never held the stubs
        self.start_work("03")
        with self.assertRaises(KitError) as raised:
            self.reset("03")
        self.assertIn(f"cannot restore {self.ex('03')['stub']}: git has no blob "
                      f"{self.ex('03')['stub_blob']}", str(raised.exception))
        self.assertFalse((self.kit.root / ".kit").exists())  # nothing touched


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

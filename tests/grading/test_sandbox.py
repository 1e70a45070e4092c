#!/usr/bin/env python3
"""tests/grading/test_sandbox.py — tools/grade's sandbox and Gradescope split, without a build.

  - split(): an exercise's points shared over its tests add up to them exactly, to 0.01;
  - as root (skipped otherwise): two sandboxes never share a uid, and a third claims the
    uid a released one held; a program's /tmp is its own, empty and gone afterwards, but a
    folder the sandbox must keep (the grader's --out in /tmp) is still there;
    kitbuild.lock_down leaves a sandboxed program able to read the kit's headers but not a
    solution's source, and the build's files only with the link step's group.

ctest runs it as kit.grade_sandbox. Standard library only: python3 tests/grading/test_sandbox.py
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))

from grader import kitbuild  # noqa: E402  (after the path is set)
from grader.reports import split  # noqa: E402
from grader.sandbox import LINK_GID, Limits, Sandbox, namespaces_work  # noqa: E402

AS_ROOT = os.geteuid() == 0


class SplitTest(unittest.TestCase):
    def test_parts_add_up_exactly(self):
        for amount, weights in ((10, [5, 3, 3]), (3.33, [1, 1, 1]), (7.77, [16, 581]),
                                (20, [1, 2]), (0.01, [1, 1, 1])):
            parts = split(amount, weights)
            self.assertEqual(len(parts), len(weights))
            self.assertAlmostEqual(sum(parts), amount, places=9)
            self.assertTrue(all(round(part, 2) == part for part in parts))

    def test_no_weight_gives_all_to_the_last(self):
        self.assertEqual(split(0, [0, 0]), [0.0, 0.0])
        self.assertEqual(split(4, []), [])


@unittest.skipUnless(AS_ROOT, "the sandbox changes uid: root only")
class SandboxTest(unittest.TestCase):
    def test_two_sandboxes_never_share_a_uid(self):
        first, second = Sandbox(), Sandbox()
        self.assertNotEqual(first.uid, second.uid)
        taken = first.uid
        del first  # its lock file closes: the uid is free again
        third = Sandbox()
        self.assertEqual(third.uid, taken)
        self.assertNotEqual(third.uid, second.uid)

    @unittest.skipUnless(AS_ROOT and namespaces_work(), "needs mount namespaces")
    def test_tmp_is_private_to_each_run(self):
        sandbox = Sandbox()
        with tempfile.TemporaryDirectory() as folder:
            os.chmod(folder, 0o777)
            marker = f"attn-sandbox-test-{os.getpid()}"
            wrote = sandbox.run(["/bin/sh", "-c", f"ls -A /tmp; echo x > /tmp/{marker}"],
                                folder, Limits(wall_s=10))
            self.assertEqual(wrote.status, "ok", wrote.output)
            self.assertEqual(wrote.output.strip(), "", "a run's /tmp starts empty")
            self.assertFalse(Path("/tmp", marker).exists(), "a run's /tmp outlived it")
            again = sandbox.run(["/bin/sh", "-c", f"cat /tmp/{marker}"], folder,
                                Limits(wall_s=10))
            self.assertEqual(again.status, "failed", "the next run saw the last one's /tmp")
            Path(folder, "kept").write_text("here")
            kept = Sandbox(keep=(folder,)).run(["/bin/cat", f"{folder}/kept"], folder,
                                               Limits(wall_s=10))
            self.assertEqual((kept.status, kept.output), ("ok", "here"))

    def test_lock_down_hides_the_answers(self):
        with tempfile.TemporaryDirectory() as top:
            os.chmod(top, 0o711)
            source, build = Path(top, "src"), Path(top, "build")
            for path, text in ((source / "include" / "attn" / "api.hpp", "// header"),
                               (source / "solutions" / "01.cpp", "// the answer"),
                               (source / "reference_data" / "MANIFEST.json", "{}"),
                               (build / "libex01_solutions.a", "archive"),
                               (build / "pch" / "cmake_pch.hxx", "// pch")):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            kitbuild.lock_down([source, build], [source / "include", build / "pch"], LINK_GID)
            sandbox = Sandbox(keep=(top,))  # under /tmp, which the sandbox makes its own

            def readable(path, groups=()):
                return sandbox.run(["/bin/cat", str(path)], top, Limits(wall_s=10),
                                   groups=groups).status == "ok"

            self.assertTrue(readable(source / "include" / "attn" / "api.hpp"))
            self.assertTrue(readable(build / "pch" / "cmake_pch.hxx"))
            self.assertFalse(readable(source / "solutions" / "01.cpp"))
            self.assertFalse(readable(source / "reference_data" / "MANIFEST.json"))
            self.assertFalse(readable(build / "libex01_solutions.a"))
            self.assertTrue(readable(build / "libex01_solutions.a", groups=(LINK_GID,)))
            self.assertFalse(readable(source / "solutions" / "01.cpp", groups=(LINK_GID,)))


if __name__ == "__main__":
    unittest.main()

"""tests/kit/cli_testing.py — shared by the tests of tools/kit (test_cli_*.py).

Imports the package tools/kitcli, and builds throwaway kits in temporary folders: an
exercises.json listing the exercises of the recorded ctest lab (fixtures/ctest-3.25/,
see its record.sh), their stubs, and a build/ folder holding the lab's real JUnit file and
verdict streams, so the CLI's readings are tested against what ctest 3.25 and the kit's
verdict writer really write, with no build.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from kitcli import reports, stubs  # noqa: E402  (after the path is set)
from kitcli.catalogue import Kit  # noqa: E402

CTEST_LAB = Path(__file__).resolve().parent / "fixtures" / "ctest-3.25"
LAB_TIMEOUT_S = 3  # the TIMEOUT record.sh gives every test: the lab's wall-clock backstop
LAB_CPU_S = 1  # its CPU limit: the backstop is 3 times that
LAB_NOTEBOOK = "https://example.org/lab.ipynb"  # the notebook every lab exercise cites
# What the test program of each of the lab's exercises does (record.sh).
LAB_EXERCISES = {"01": "passes", "02": "fails", "03": "segfaults", "04": "aborts",
                 "05": "times_out", "06": "is_not_built", "07": "only_skips",
                 "08": "only_validates", "09": "exits_early", "10": "skips_one"}


def stub_text(path: str) -> str:
    return (f"// {path} — replace the throw with your code.\n"
            f'void f() {{ throw attn::not_implemented("{path}", "f()"); }}\n')


class ThrowawayKitTest(unittest.TestCase):
    """A test with `self.kit`: the lab's exercises in a temporary folder, every stub as
    shipped (pristine) and a build/ folder with the lab's JUnit file and verdict streams."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory(prefix="kit-test-")
        self.addCleanup(folder.cleanup)
        root = Path(folder.name)
        exercises = []
        for ex_id, name in LAB_EXERCISES.items():
            stub = f"exercises/{ex_id}_{name}.cpp"
            (root / "exercises").mkdir(exist_ok=True)
            (root / stub).write_text(stub_text(stub), encoding="utf-8")
            exercises.append({"id": ex_id, "name": name, "title": f"The lab's {name} exercise",
                              "source": "ctest lab", "stub": stub,
                              "stub_blob": stubs.git_blob_id(stub_text(stub).encode()),
                              "hints": ["gentle", "stronger", "nearly the answer"],
                              "notebook": [{"function": "f", "url": LAB_NOTEBOOK,
                                            "cell": "In [1]", "call": "f()"}]})
        settings = {"test_timeout_s": LAB_CPU_S, "test_wall_factor": LAB_TIMEOUT_S // LAB_CPU_S,
                    "packages": {"build": ["g++", "cmake"], "recorder": ["python3-torch"],
                                 "grader": ["bubblewrap"], "optional": ["lld"]}}
        (root / "exercises.json").write_text(json.dumps(
            {"format_version": 1, "about": "a throwaway kit", "settings": settings,
             "exercises": exercises},
            indent=2) + "\n", encoding="utf-8")
        shutil.copytree(CTEST_LAB / "reports", root / "build" / "reports")
        (root / "build" / "bin").mkdir()
        (root / "build" / "build.ninja").touch()  # configured: no "First build" notice
        self.kit = Kit.load(root)
        self.ctest_results = reports.read_junit(CTEST_LAB / "junit.xml")

    def ex(self, ex_id: str) -> dict:
        return self.kit.exercise(ex_id)

    def start_work(self, ex_id: str, text: str = "// my first line of code\n") -> None:
        """The student edits the exercise's file: it is no longer the stub."""
        with (self.kit.root / self.ex(ex_id)["stub"]).open("a", encoding="utf-8") as file:
            file.write(text)

    def start_every_exercise(self) -> None:
        for ex_id in LAB_EXERCISES:
            self.start_work(ex_id)

    def fake_test_program(self, ex_id: str, shell_line: str) -> None:
        """build/bin/test_exNN_exercises as a shell script running `shell_line`."""
        program = self.kit.root / "build" / "bin" / f"test_ex{ex_id}_exercises"
        program.write_text(f"#!/bin/sh\n{shell_line}\n", encoding="utf-8")
        program.chmod(0o755)

    def git(self, *arguments: str) -> str:
        environment = dict(os.environ, GIT_AUTHOR_NAME="Student", GIT_AUTHOR_EMAIL="s@example.org",
                           GIT_COMMITTER_NAME="Student", GIT_COMMITTER_EMAIL="s@example.org")
        return subprocess.run(["git", *arguments], cwd=self.kit.root, env=environment,
                              check=True, stdout=subprocess.PIPE, text=True).stdout

    def commit_the_kit(self) -> None:
        """The kit as a git repository with its pristine stubs committed (as shipped)."""
        self.git("init", "-q")
        self.git("add", "exercises", "exercises.json")
        self.git("commit", "-q", "-m", "the kit as shipped")


def run_every_test_module() -> bool:
    """Runs the test_cli_*.py files beside this one; True if every test passed."""
    tests = unittest.defaultTestLoader.discover(str(Path(__file__).resolve().parent),
                                                pattern="test_cli_*.py")
    return unittest.TextTestRunner(verbosity=1).run(tests).wasSuccessful()

#!/usr/bin/env python3
"""tests/kit/test_cli_selftest.py — what CI's speed and its summary rest on in `tools/kit test`:
the pristine kit's three builds sharing their compiles through ccache (shared_compiles), and
the lines .ci/run's summary repeats (the stages' times, the hidden stage's steps)."""

import io
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import cli_testing  # noqa: F401  (puts tools/ on the path)
from kitcli import selftest

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ("CMAKE_CXX_COMPILER_LAUNCHER", "CCACHE_DIR", "CCACHE_BASEDIR", "CCACHE_NOHASHDIR",
            "CCACHE_SLOPPINESS", "CCACHE_MAXSIZE", "CCACHE_UMASK", "CCACHE_INODECACHE",
            selftest.KEPT_CACHE)


class SharedCompilesTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.root = Path(folder.name)
        self.kit = SimpleNamespace(root=self.root)
        saved = {name: os.environ.pop(name, None) for name in SETTINGS}
        self.addCleanup(self.restore, saved)

    @staticmethod
    def restore(saved):
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value

    def test_without_ccache_nothing_changes(self):
        with mock.patch.object(selftest.shutil, "which", return_value=None):
            with selftest.shared_compiles(self.kit, self.root) as shared:
                self.assertFalse(shared)
                self.assertFalse([name for name in SETTINGS if name in os.environ])

    def test_settings_inside_and_restored_after(self):
        os.environ["CCACHE_BASEDIR"] = "/before"
        (self.root / "real").mkdir()
        (self.root / "link").symlink_to(self.root / "real")
        with mock.patch.object(selftest.shutil, "which", return_value="/usr/bin/ccache"):
            with self.assertRaises(RuntimeError):
                with selftest.shared_compiles(self.kit, self.root / "link") as shared:
                    self.assertTrue(shared)
                    self.assertEqual(os.environ["CMAKE_CXX_COMPILER_LAUNCHER"], "ccache")
                    self.assertEqual(os.environ["CCACHE_DIR"],
                                     str(self.root / "build-selftest" / "ccache"))
                    self.assertEqual(os.environ["CCACHE_UMASK"], "077")  # solutions' objects
                    # The path the build's commands use: resolved, as tools/grade resolves it.
                    self.assertEqual(os.environ["CCACHE_BASEDIR"],
                                     str((self.root / "real").resolve()))
                    raise RuntimeError("the build failed")
        self.assertEqual(os.environ["CCACHE_BASEDIR"], "/before")
        self.assertNotIn("CMAKE_CXX_COMPILER_LAUNCHER", os.environ)
        self.assertNotIn("CCACHE_DIR", os.environ)

    def test_a_kept_cache_is_used_and_left_alone(self):
        """CI's cache, kept between runs (ATTN_CCACHE_DIR), takes the place of
        build-selftest/ccache; the caller's setting stays as it was."""
        kept = self.root / "kept"
        os.environ[selftest.KEPT_CACHE] = str(kept)
        with mock.patch.object(selftest.shutil, "which", return_value="/usr/bin/ccache"):
            with selftest.shared_compiles(self.kit, self.root) as shared:
                self.assertTrue(shared)
                self.assertEqual(os.environ["CCACHE_DIR"], str(kept))
        self.assertNotIn("CCACHE_DIR", os.environ)
        self.assertEqual(os.environ[selftest.KEPT_CACHE], str(kept))

    @unittest.skipUnless(shutil.which("ccache") and shutil.which("g++"), "needs ccache and g++")
    def test_a_second_folder_of_the_same_layout_hits(self):
        """The same source compiled, with -g, in two folders of the pristine kit's layout
        (.kit-src beside .kit-build), each its own CCACHE_BASEDIR: the second is a hit."""
        outcomes = []
        for name in ("grading-kit", "gradescope-grade"):
            folder = self.root / name
            (folder / ".kit-src" / "include").mkdir(parents=True)
            (folder / ".kit-build").mkdir()
            (folder / ".kit-src" / "include" / "k.hpp").write_text(
                "inline int k() { return 4; }\n")
            (folder / ".kit-src" / "k.cpp").write_text(
                '#include "k.hpp"\nint f() { return k(); }\n')
            with selftest.shared_compiles(self.kit, folder):
                compiled = subprocess.run(
                    ["ccache", "g++", "-g", f"-I{folder / '.kit-src' / 'include'}", "-c",
                     str(folder / ".kit-src" / "k.cpp"), "-o", "k.o"],
                    cwd=folder / ".kit-build", capture_output=True, text=True)
                self.assertEqual(compiled.returncode, 0, compiled.stderr)
                stats = subprocess.run(["ccache", "--print-stats"], capture_output=True,
                                       text=True, check=True).stdout
            counts = dict(line.split("\t") for line in stats.splitlines() if "\t" in line)
            outcomes.append(int(counts.get("direct_cache_hit", 0))
                            + int(counts.get("preprocessed_cache_hit", 0)))
        self.assertEqual(outcomes, [0, 1])


class SummaryLinesTest(unittest.TestCase):
    """.ci/run's summary greps the lines that tools/kit test and hidden_set_check.sh print."""

    def test_ci_summary_finds_the_stage_times(self):
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        found = re.search(r"grep -E '([^']+)' \"\$log\"", ci)
        self.assertIsNotNone(found, ".ci/run no longer greps its summary lines from the log")
        pattern = re.compile(found.group(1))
        stages = selftest.Stages()
        with redirect_stdout(io.StringIO()):
            for name in ("build", "hidden"):
                with stages.stage(name, name):
                    pass
        self.assertRegex(stages.summary(), r"^kit test: \d+ s, \d+ s of CPU \(wall/CPU: "
                                           r"build \d+ s/\d+ s, hidden \d+ s/\d+ s\)$")
        self.assertTrue(pattern.search(stages.summary()))
        hidden = (ROOT / "tests" / "grading" / "hidden_set_check.sh").read_text(encoding="utf-8")
        line = re.search(r'echo "(hidden: steps [^"]*)"', hidden)
        self.assertIsNotNone(line, "hidden_set_check.sh no longer prints its steps' line")
        self.assertTrue(pattern.search(line.group(1)))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""tests/kit/test_cli_selftest.py — what CI's speed and its summary rest on in `tools/kit test`:
the pristine kit's three builds sharing their compiles through ccache (shared_compiles), no
stale precompiled header through that cache (kitlib/precompiled.py), and the lines
.ci/run's summary repeats (the stages' times, the hidden stage's steps)."""

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
from kitlib import precompiled

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ("CMAKE_CXX_COMPILER_LAUNCHER", "CCACHE_DIR", "CCACHE_BASEDIR", "CCACHE_NOHASHDIR",
            "CCACHE_SLOPPINESS", "CCACHE_MAXSIZE", "CCACHE_UMASK", "CCACHE_INODECACHE",
            selftest.KEPT_CACHE)


class CompilesInATemporaryFolder(unittest.TestCase):
    """A temporary kit root, and no ccache setting of the caller's while a test runs."""

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


class SharedCompilesTest(CompilesInATemporaryFolder):
    """The settings shared_compiles gives the builds inside it."""

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


# A precompiled header as CMake's Ninja generator builds and uses one, through ccache.
PCH_BUILD = """rule pch
  command = ccache g++ -std=c++17 -x c++-header -include $pch -MD -MF $out.d -o $out -c $in
  depfile = $out.d
  deps = gcc
rule cxx
  command = ccache g++ -std=c++17 -Winvalid-pch -include $pch -c $in -o $out
build CMakeFiles/t.dir/cmake_pch.hxx.gch: pch CMakeFiles/t.dir/cmake_pch.hxx.cxx
  pch = CMakeFiles/t.dir/cmake_pch.hxx
build uses.o: cxx uses.cpp | CMakeFiles/t.dir/cmake_pch.hxx.gch
  pch = CMakeFiles/t.dir/cmake_pch.hxx
"""


@unittest.skipUnless(shutil.which("ccache") and shutil.which("g++") and shutil.which("ninja"),
                     "needs ccache, g++ and ninja")
class StalePrecompiledHeaderTest(CompilesInATemporaryFolder):
    """Two folders of one layout share a ccache, as the pristine kit's builds do: a header of
    the precompiled header changes in one, another change reaches the other. ccache keys a
    .gch's new build on the stale .gch beside its header (kitlib/precompiled.py), and handed
    the second folder the first one's .gch, made of other headers; removed first, it is not."""

    def build(self, folder: Path, version: int) -> subprocess.CompletedProcess:
        header = folder / "h.hpp"
        if not header.exists():
            (folder / "CMakeFiles" / "t.dir").mkdir(parents=True)
            (folder / "CMakeCache.txt").write_text("CMAKE_CXX_COMPILER_LAUNCHER:STRING=ccache\n")
            (folder / "build.ninja").write_text(PCH_BUILD)
            (folder / "CMakeFiles" / "t.dir" / "cmake_pch.hxx").write_text(
                f'#pragma GCC system_header\n#include "{header}"\n')
            (folder / "CMakeFiles" / "t.dir" / "cmake_pch.hxx.cxx").write_text("/* pch */\n")
            (folder / "uses.cpp").write_text(
                f'#include "{header}"\nint f() {{ return A{{}}.v; }}\n')
        header.write_text(f"#pragma once\nstruct A {{ int v = {version}; }};\n")
        with selftest.shared_compiles(self.kit, folder):
            precompiled.remove_stale_for_ccache(folder)
            return subprocess.run(["ninja"], cwd=folder, capture_output=True, text=True)

    def test_a_header_changed_in_another_folder_is_compiled_afresh(self):
        first, second = self.root / "grading-kit", self.root / "gradescope-grade"
        for folder, version in ((first, 1), (second, 1), (first, 2), (second, 3)):
            built = self.build(folder, version)
            self.assertEqual(built.returncode, 0, built.stdout)
        self.assertEqual(precompiled.remove_stale_for_ccache(second), [])

    def test_only_a_build_with_ccache_and_only_a_stale_header(self):
        folder = self.root / "build"
        self.assertEqual(self.build(folder, 1).returncode, 0)
        self.assertEqual(precompiled.remove_stale_for_ccache(folder), [])  # up to date
        (folder / "h.hpp").write_text("#pragma once\nstruct A { int v = 2; };\n")
        (folder / "CMakeCache.txt").write_text("CMAKE_CXX_COMPILER_LAUNCHER:STRING=\n")
        self.assertEqual(precompiled.remove_stale_for_ccache(folder), [])  # no ccache
        (folder / "CMakeCache.txt").write_text("CMAKE_CXX_COMPILER_LAUNCHER:STRING=ccache\n")
        self.assertEqual(precompiled.remove_stale_for_ccache(folder),
                         [folder / "CMakeFiles" / "t.dir" / "cmake_pch.hxx.gch"])


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

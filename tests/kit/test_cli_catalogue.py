#!/usr/bin/env python3
"""tests/kit/test_cli_catalogue.py — `tools/kit dev catalogue` and its --check: the stub_blob
values in exercises.json, and the README's catalogue table and dependency sentence; the
catalogue's format_version, checked by every reader through tools/kitlib, the package kitcli
and grader share instead of importing each other."""

import ast
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

from cli_testing import ThrowawayKitTest
from kitcli import generated
from kitcli.catalogue import Kit, KitError
from kitlib import catalogue as catalogue_file

KIT = Path(__file__).resolve().parents[2]

README = """# A throwaway kit

<!-- catalogue:begin -->
<!-- catalogue:end -->

<!-- packages:begin -->
<!-- packages:end -->
"""


def manifest(format_version=2):
    """Two cases of exercise 01 with two named mistakes in three files, one case of 02."""
    self_dot, added = {"name": "dotted itself"}, {"name": "added"}
    files = {"01_passes/a/scores.npy": {"role": "expected", "exercise": "01"},
             "01_passes/a/mistakes/scores.self_dot.npy": {"role": "mistake", "exercise": "01",
                                                          **self_dot},
             "01_passes/a/mistakes/scores.added.npy": {"role": "mistake", "exercise": "01",
                                                       **added},
             "01_passes/b/mistakes/scores.added.npy": {"role": "mistake", "exercise": "01",
                                                       **added},
             "02_fails/a/weights.npy": {"role": "expected", "exercise": "02"},
             "kit/printing/sample_00.npy": {"role": "print_sample", "exercise": "kit"}}
    cases = {"01_passes/a": {"exercise": "01"}, "01_passes/b": {"exercise": "01"},
             "02_fails/a": {"exercise": "02"}}
    return {"format_version": format_version, "cases": cases, "files": files}


class CatalogueTest(ThrowawayKitTest):
    def setUp(self):
        super().setUp()
        self.kit.readme_path.write_text(README, encoding="utf-8")
        self.kit.manifest_path.parent.mkdir()
        self.write_manifest(manifest())

    def write_manifest(self, content):
        self.kit.manifest_path.write_text(json.dumps(content), encoding="utf-8")

    def catalogue(self, check, readme_only=False):
        output = io.StringIO()
        with redirect_stdout(output):
            code = generated.catalogue(Kit.load(self.kit.root), check=check,
                                       readme_only=readme_only)
        return code, output.getvalue()

    def test_writes_the_table_and_the_dependencies_then_checks_clean(self):
        self.assertEqual(self.catalogue(check=True)[0], 1)
        self.assertEqual(self.catalogue(check=False)[0], 0)
        self.assertEqual(self.catalogue(check=True), (0, (
            "README.md's generated blocks and exercises.json's stub_blob values are "
            "current\n")))
        readme = self.kit.readme_path.read_text(encoding="utf-8")
        cells = "[lab.ipynb](https://example.org/lab.ipynb) In [1]"
        self.assertIn(f"| 01 | The lab's passes exercise | {cells} | `exercises/01_passes.cpp` "
                      "| ready: 2 cases, 2 named mistakes |", readme)
        self.assertIn(f"| 02 | The lab's fails exercise | {cells} | `exercises/02_fails.cpp` "
                      "| ready: 1 case, 0 named mistakes |", readme)
        self.assertIn("<!-- packages:begin -->\nDependencies (Debian 12 and 13 packages, "
                      "installed by `tools/kit setup`): g++, cmake (and,\nwhere it can, lld, "
                      "which builds faster); python3-torch to record goldens (`tools/kit setup\n"
                      "--recorder`); and bubblewrap to grade a class (`tools/kit setup --grader`, "
                      "which\n`tools/grade` runs itself).\n"
                      "<!-- packages:end -->", readme)

    def test_check_catches_a_stale_stub_blob(self):
        self.catalogue(check=False)
        self.start_work("03", "// a maintainer's change to the stub\n")
        code, output = self.catalogue(check=True)
        self.assertEqual(code, 1)
        self.assertIn("the stub_blob of exercises/03_segfaults.cpp is not its content", output)

    def test_readme_only_check_leaves_a_students_edited_stub_alone(self):
        self.catalogue(check=False)
        self.start_work("03", "// a student's work\n")
        self.assertEqual(self.catalogue(check=True, readme_only=True),
                         (0, "README.md's generated blocks are current\n"))

    def test_rewrites_stub_blobs_in_place_keeping_the_layout(self):
        self.start_work("03", "// a maintainer's change to the stub\n")
        before = self.kit.catalogue_path.read_text(encoding="utf-8").splitlines()
        self.catalogue(check=False)
        after = self.kit.catalogue_path.read_text(encoding="utf-8").splitlines()
        changed = [(old, new) for old, new in zip(before, after) if old != new]
        self.assertEqual(len(before), len(after))
        self.assertEqual(len(changed), 1)
        self.assertIn('"stub_blob": ', changed[0][1])

    def test_adds_the_stub_blob_of_a_new_exercise_after_its_stub(self):
        text = self.kit.catalogue_path.read_text(encoding="utf-8")
        blob_line = f'      "stub_blob": "{self.ex("05")["stub_blob"]}",\n'
        self.kit.catalogue_path.write_text(text.replace(blob_line, ""), encoding="utf-8")
        self.catalogue(check=False)
        self.assertEqual(self.kit.catalogue_path.read_text(encoding="utf-8"), text)

    def test_check_refuses_a_manifest_of_the_old_format(self):
        self.write_manifest(manifest(format_version=1))
        code, output = self.catalogue(check=True)
        self.assertEqual(code, 1)
        self.assertIn("MANIFEST.json is format 1, the catalogue table needs format 2", output)

    def test_writes_nothing_when_the_manifest_cannot_be_read(self):
        self.start_work("03")
        self.write_manifest(manifest(format_version=1))
        catalogue_before = self.kit.catalogue_path.read_text(encoding="utf-8")
        with self.assertRaises(KitError):
            self.catalogue(check=False)
        self.assertEqual(self.kit.catalogue_path.read_text(encoding="utf-8"), catalogue_before)
        self.assertEqual(self.kit.readme_path.read_text(encoding="utf-8"), README)


class FormatVersionTest(ThrowawayKitTest):
    """exercises.json's format_version, checked by every reader through kitlib.catalogue."""

    def write_catalogue(self, change):
        catalogue = json.loads(self.kit.catalogue_path.read_text(encoding="utf-8"))
        change(catalogue)
        self.kit.catalogue_path.write_text(json.dumps(catalogue, indent=2), encoding="utf-8")

    def test_the_kits_own_catalogue_is_of_the_version_the_tools_read(self):
        self.assertEqual(catalogue_file.load(KIT)["format_version"], catalogue_file.FORMAT_VERSION)

    def test_an_unknown_version_says_what_was_expected_and_found(self):
        for version, found in ((2, "found format_version 2"), ("1", "found format_version '1'"),
                               (True, "found format_version True")):
            self.write_catalogue(lambda catalogue: catalogue.update(format_version=version))
            with self.assertRaises(KitError) as raised:
                Kit.load(self.kit.root)
            self.assertIn("exercises.json: expected format_version 1, " + found,
                          str(raised.exception))

    def test_a_catalogue_without_a_version_is_refused_not_a_key_error(self):
        self.write_catalogue(lambda catalogue: catalogue.pop("format_version"))
        with self.assertRaises(KitError) as raised:
            Kit.load(self.kit.root)
        self.assertIn("expected format_version 1, found no format_version", str(raised.exception))
        self.write_catalogue(lambda catalogue: catalogue.update(format_version=1) or
                             catalogue.pop("settings"))
        with self.assertRaises(KitError) as raised:
            Kit.load(self.kit.root)
        self.assertIn("'settings'", str(raised.exception))

    def test_the_catalogue_rewrite_keeps_the_version(self):
        self.kit.readme_path.write_text(README, encoding="utf-8")
        self.kit.manifest_path.parent.mkdir()
        self.kit.manifest_path.write_text(json.dumps(manifest()), encoding="utf-8")
        with redirect_stdout(io.StringIO()):
            self.assertEqual(generated.catalogue(self.kit, check=False), 0)
        rewritten = json.loads(self.kit.catalogue_path.read_text(encoding="utf-8"))
        self.assertEqual(rewritten["format_version"], 1)
        self.assertEqual(Kit.load(self.kit.root).exercises, self.kit.exercises)


class EveryReaderChecksTheVersionTest(unittest.TestCase):
    """tools/kit, tools/grade, the report and the recorder, each started on a kit whose
    exercises.json is of another format_version: each says so in one line, no traceback."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        root = Path(cls.folder.name)
        shutil.copytree(KIT / "tools", root / "tools",
                        ignore=shutil.ignore_patterns("__pycache__"))
        catalogue = json.loads((KIT / "exercises.json").read_text(encoding="utf-8"))
        catalogue["format_version"] = 99
        (root / "exercises.json").write_text(json.dumps(catalogue), encoding="utf-8")
        (root / "out").mkdir()
        (root / "out" / "records.json").write_text('{"records": [], "meta": {}, "notes": []}',
                                                   encoding="utf-8")
        cls.root = root

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def says_the_versions(self, argv, tool):
        done = subprocess.run(argv, cwd=self.root, capture_output=True, text=True, timeout=120)
        output = done.stdout + done.stderr
        self.assertNotEqual(done.returncode, 0, output)
        self.assertIn(f"{tool}: ", output)
        self.assertIn("exercises.json: expected format_version 1, found format_version 99",
                      output)
        self.assertNotIn("Traceback", output)

    def test_tools_kit(self):
        self.says_the_versions([sys.executable, "tools/kit", "hint", "01"], "kit")

    def test_tools_grade(self):
        self.says_the_versions([sys.executable, "tools/grade", "prepare-kit", "out"], "grade")

    def test_the_report(self):
        self.says_the_versions([sys.executable, "-m", "tools.grader.html_report", "out"],
                               "html_report")

    def test_the_recorder(self):
        if shutil.which("/usr/bin/python3") is None or subprocess.run(
                ["/usr/bin/python3", "-c", "import torch, numpy"],
                capture_output=True).returncode != 0:
            self.skipTest("no PyTorch here: the recorder cannot start")
        self.says_the_versions(["/usr/bin/python3", "tools/record"], "tools/record")


class SharedPackageTest(unittest.TestCase):
    """tools/kit and tools/grade share tools/kitlib, never each other: no import of grader in
    kitcli or of kitcli in grader, kitlib on the standard library alone, and exercises.json
    named in code by kitlib.catalogue alone (every reader goes through its loader)."""

    @staticmethod
    def parsed(folder):
        for path in sorted((KIT / "tools" / folder).glob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"))

    @staticmethod
    def imported(tree) -> set:
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split(".")[0])
        return names

    def test_neither_imports_the_other_and_kitlib_is_standard_library_only(self):
        for package, forbidden in (("kitcli", "grader"), ("grader", "kitcli")):
            for path, tree in self.parsed(package):
                self.assertNotIn(forbidden, self.imported(tree), path)
        for path, tree in self.parsed("kitlib"):
            outside = {name for name in self.imported(tree)
                       if name not in sys.stdlib_module_names and name != "kitlib"}
            self.assertEqual(outside, set(), path)

    def test_only_the_shared_loader_names_the_catalogue_file(self):
        naming = [path.relative_to(KIT).as_posix()
                  for folder in ("kitcli", "grader", "kitlib", "recorder")
                  for path, tree in self.parsed(folder)
                  if any(isinstance(node, ast.Constant) and node.value == "exercises.json"
                         for node in ast.walk(tree))]
        self.assertEqual(naming, ["tools/kitlib/catalogue.py"])


class ExerciseLookupTest(ThrowawayKitTest):
    def test_takes_a_number_with_or_without_its_zero(self):
        self.assertEqual(self.kit.exercise("3")["name"], "segfaults")
        self.assertEqual(self.kit.exercise("03")["name"], "segfaults")

    def test_lists_the_exercises_for_an_unknown_number(self):
        with self.assertRaises(KitError) as raised:
            self.kit.exercise("42")
        self.assertEqual(str(raised.exception), "no exercise '42'; the exercises are "
                                                "01, 02, 03, 04, 05, 06, 07, 08, 09, 10")


class PublicCitationsTest(unittest.TestCase):
    """The student has the public notebooks, not the seed documents the kit was written
    from: what the kit shows a student cites the public cells only."""

    def test_every_case_source_and_notebook_entry_is_public(self):
        kit = Kit.load()
        seed = re.compile(r"\b00\d\b|§")  # "001 §3.3.1, In [2]"
        cases = json.loads(kit.manifest_path.read_text(encoding="utf-8"))["cases"]
        for path, case in cases.items():
            self.assertNotRegex(case["source"], seed, path)
            self.assertRegex(case["source"], r"\.ipynb\b", path)
        for ex in kit.exercises:
            self.assertTrue(ex["notebook"], ex["id"])
            for entry in ex["notebook"]:
                self.assertRegex(entry["url"], r"^https://github\.com/.+\.ipynb$", ex["id"])


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

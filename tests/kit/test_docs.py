#!/usr/bin/env python3
"""tests/kit/test_docs.py — the docs state facts the code keeps: every repository path the
README and docs/*.md quote in backticks exists, every `tools/kit COMMAND` they quote is a
command, and docs/maintaining.md's Layout lists every top-level entry of the repository and
every folder of kit/ and tools/, each of which exists; no student-facing file (README, stubs,
headers, hints) names the seed documents or ../shared, which students do not have.

    tests/kit/test_docs.py            (ctest: kit.docs_match_the_code)
"""

import json
import re
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from kitcli import cli  # noqa: E402

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A quoted repository path: a top-level entry, then more of a path, no spaces or wildcards.
TOP = sorted(p.name for p in ROOT.iterdir() if not p.name.startswith(("build", ".git")))
PATH = re.compile(r"`((?:" + "|".join(re.escape(t) for t in TOP) + r")(?:/[\w.+-]+)*/?)`")


def tracked() -> set:
    listing = subprocess.run(["git", "ls-files"], cwd=ROOT, text=True, capture_output=True)
    return set(listing.stdout.split())


def quoted_paths(text: str) -> set:
    return {match.group(1) for match in PATH.finditer(text)}


def as_included(path: str) -> bool:
    """`kit/laws.hpp` as an #include names it: kit/core/include/kit/laws.hpp (or another kit
    library's include/ folder)."""
    return path.startswith("kit/") and any((folder / path).is_file()
                                           for folder in (ROOT / "kit").glob("*/include"))


def api_headers_the_stubs_reach() -> set:
    """The headers of include/attn/ that the exercises' stubs include, directly or through
    another header of include/attn/."""
    include = re.compile(r'#include "(attn/[^"]+)"')
    stubs = [p for p in (ROOT / "exercises").iterdir() if p.suffix in (".cpp", ".cu")]
    waiting = [h for stub in stubs for h in include.findall(stub.read_text(encoding="utf-8"))]
    reached = set()
    while waiting:
        header = waiting.pop()
        if header not in reached:
            reached.add(header)
            waiting += include.findall((ROOT / "include" / header).read_text(encoding="utf-8"))
    return reached


def as_pattern(path: str, files: set) -> bool:
    """`exercises/NN_name.cpp`, a pattern: NN two digits, name any name, at least one file."""
    if "NN" not in path:
        return False
    pattern = re.compile(re.escape(path).replace("NN", r"\d\d").replace("name", r"[a-z0-9_]+"))
    return any(pattern.fullmatch(f) for f in files)


def layout_entries() -> list:
    text = (ROOT / "docs" / "maintaining.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    return [line.split()[0] for line in block.splitlines() if line and not line[0].isspace()]


# What a student has: the README, the stubs, the exercise API's headers and the hints. None of
# it may point at the course's seed documents, which stay with the kit's maintainers.
STUDENT_FILES = [ROOT / "README.md", ROOT / "exercises.json",
                 *sorted((ROOT / "exercises").iterdir()), *sorted((ROOT / "include").rglob("*"))]
SEED_REFERENCE = re.compile(r"\.\./shared|\bseeds/|\b00\d_[0-9a-f]{16}\.txt")


# A duration stated as prose ("about 15 s", "1.2 s"): the student's pages state none, they
# point to docs/timings.md, which a script measured.
DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:s|seconds?|min|minutes?)\b")


class DocsTest(unittest.TestCase):
    def test_timings_are_the_last_measured_run(self):
        from kitcli import timings
        record = timings.latest(ROOT)
        self.assertIsNotNone(record, "no benchmarks/results/timings-*.json: run "
                                     "`tools/kit dev timings`")
        rendered = timings.render(json.loads(record.read_text(encoding="utf-8")))
        self.assertEqual((ROOT / timings.DOC).read_text(encoding="utf-8"), rendered,
                         f"docs/timings.md is not {record.name} rendered: run "
                         "`tools/kit dev timings`")

    def test_the_student_pages_state_no_duration_of_their_own(self):
        for page in (ROOT / "README.md", ROOT / "docs" / "working.md"):
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
                self.assertIsNone(DURATION.search(line),
                                  f"{page.relative_to(ROOT)}:{number} states a duration; "
                                  f"point to docs/timings.md instead: {line.strip()}")

    def test_no_student_file_points_at_the_seed_documents(self):
        for path in STUDENT_FILES:
            if not path.is_file():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                self.assertIsNone(SEED_REFERENCE.search(line),
                                  f"{path.relative_to(ROOT)}:{number} names a file students do "
                                  f"not have: {line.strip()}")

    def test_every_case_a_student_file_names_exists(self):
        cases = json.loads((ROOT / "reference_data" / "MANIFEST.json").read_text())["cases"]
        exercise_folders = {name.split("_")[0]: name.split("/")[0] for name in cases}
        for path in STUDENT_FILES:
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            for number, case in re.findall(r"`tools/kit show (\d\d) (\w+)`", text):
                with self.subTest(file=path.name, case=case):
                    self.assertTrue(f"{exercise_folders.get(number)}/{case}" in cases,
                                    f"{path.relative_to(ROOT)} names case {case} of exercise "
                                    f"{number}, which the case set does not have")

    def test_include_attn_holds_only_what_a_students_file_includes(self):
        """The kit's own headers live in its libraries' folders (kit/*/include), not among the
        exercise API a student reads."""
        headers = {str(p.relative_to(ROOT / "include"))
                   for p in (ROOT / "include" / "attn").rglob("*.hpp")}
        self.assertEqual(sorted(headers - api_headers_the_stubs_reach()), [],
                         "include/attn/ holds headers no exercise's stub includes: move them "
                         "to the kit library that implements them (kit/*/include)")

    def test_every_quoted_path_exists(self):
        files = tracked()
        folders = {str(Path(f).parent) + "/" for f in files} | {
            "/".join(f.split("/")[:i]) + "/" for f in files for i in range(1, f.count("/") + 1)}
        for doc in DOCS:
            for path in quoted_paths(doc.read_text(encoding="utf-8")):
                with self.subTest(doc=doc.name, path=path):
                    self.assertTrue(path in files or path.rstrip("/") + "/" in folders
                                    or (ROOT / path).exists() or as_included(path)
                                    or as_pattern(path, files),
                                    f"{doc.relative_to(ROOT)} quotes `{path}`, which is not in "
                                    "the repository")

    def test_every_quoted_command_exists(self):
        commands = set(cli.parser()._subparsers._group_actions[0].choices)
        for doc in DOCS:
            for command in re.findall(r"`tools/kit ([a-z]+)", doc.read_text(encoding="utf-8")):
                with self.subTest(doc=doc.name, command=command):
                    self.assertIn(command, commands,
                                  f"{doc.relative_to(ROOT)} quotes `tools/kit {command}`")

    def test_the_layout_lists_every_folder(self):
        listed = {entry.rstrip("/") for entry in layout_entries()}
        for entry in layout_entries():
            self.assertTrue((ROOT / entry).exists(), f"Layout lists {entry}, which is gone")
        top = {f.split("/")[0] for f in tracked() if not f.startswith(".")}
        inner = {str(p.relative_to(ROOT)) for parent in ("kit", "tools") for p in
                 (ROOT / parent).iterdir() if p.is_dir() and p.name != "__pycache__"}
        for entry in sorted(top | inner | {".ci/run"}):
            with self.subTest(entry=entry):
                covered = entry in listed or any(e.startswith(entry + "/") for e in listed)
                self.assertTrue(covered, f"docs/maintaining.md's Layout does not list {entry}")


if __name__ == "__main__":
    unittest.main()

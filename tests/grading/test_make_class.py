#!/usr/bin/env python3
"""tests/grading/test_make_class.py — make_class.py and its C++ fragments in students/, without
writing or grading the class (seconds). ctest runs it as kit.grade_class_fragments.

  - every student's files, generated in memory: each fragment of students/ is used by some
    student, and no MAKE_CLASS_ token is left in any file;
  - students/README.md's table lists exactly the tokens the fragments have;
  - cxx(): the description dropped, a token replaced inside a line and as a whole line, a token
    not given or given but absent stops the script with the file's name.

Standard library only: python3 tests/grading/test_make_class.py
"""

import re
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_class  # noqa: E402  (this folder, on the path just now)

TOKEN = re.compile(r"MAKE_CLASS_[A-Z0-9]+(?:_[A-Z0-9]+)*")


class FragmentsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        kit = make_class.Kit(make_class.ROOT, Path("/class-of-the-test"))
        cls.read, cls.files = set(), {}
        real = make_class.cxx

        def recording(name, **tokens):
            cls.read.add(name)
            return real(name, **tokens)
        with mock.patch.object(make_class, "cxx", recording):
            for student, (_, files, _) in make_class.STUDENTS.items():
                cls.files[student] = files(kit)

    def test_every_fragment_is_used(self):
        on_disk = {p.name for p in (HERE / "students").iterdir() if p.suffix in (".cpp", ".hpp")}
        self.assertEqual(set(), on_disk - self.read, "fragments no student uses")
        self.assertEqual(set(), self.read - on_disk)

    def test_no_token_left(self):
        for student, files in self.files.items():
            for name, text in files.items():
                self.assertNotIn("MAKE_CLASS_", text, f"{student}/{name}")
        self.assertIn('"/class-of-the-test"', self.files["steals_goldens"]["04_context_vector.cpp"])
        self.assertIn(f'"{make_class.ROOT}"', self.files["daemon"]["01_dot_scores.cpp"])

    def test_readme_lists_every_token(self):
        used = set()
        for path in (HERE / "students").iterdir():
            if path.suffix in (".cpp", ".hpp"):
                used.update(TOKEN.findall(path.read_text(encoding="utf-8")))
        readme = (HERE / "students" / "README.md").read_text(encoding="utf-8")
        listed = set(re.findall(r"^\| `(MAKE_CLASS_\w+)` \|", readme, re.MULTILINE))
        self.assertEqual(used, listed)


class CxxTest(unittest.TestCase):
    def fragment(self, text):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        (Path(folder.name) / "attack.cpp").write_text(text, encoding="utf-8")
        patch = mock.patch.object(make_class, "FRAGMENTS", Path(folder.name))
        patch.start()
        self.addCleanup(patch.stop)

    def test_tokens_replaced(self):
        self.fragment("// what it tries\n// in two lines\n\nnamespace hostile_MAKE_CLASS_EX_a {\n"
                      "int x[] = {MAKE_CLASS_VALUES};\n    MAKE_CLASS_LINES\n}\n")
        self.assertEqual(make_class.cxx("attack.cpp", EX="03", VALUES="1, 2",
                                        LINES="#if 1\nint y;\n#endif"),
                         "namespace hostile_03_a {\nint x[] = {1, 2};\n#if 1\nint y;\n#endif\n}\n")

    def test_token_not_given(self):
        self.fragment("// what it tries\n\nint x = MAKE_CLASS_VALUE;\n")
        with self.assertRaisesRegex(SystemExit, "students/attack.cpp has MAKE_CLASS_VALUE"):
            make_class.cxx("attack.cpp")

    def test_token_given_but_absent(self):
        self.fragment("// what it tries\n\nint x = MAKE_CLASS_VALUE;\n")
        with self.assertRaisesRegex(SystemExit, "students/attack.cpp has no MAKE_CLASS_OTHER"):
            make_class.cxx("attack.cpp", VALUE="1", OTHER="2")

    def test_description_required(self):
        self.fragment("int x = 1;\n\nint y = 2;\n")
        with self.assertRaisesRegex(SystemExit, "does not start with its description"):
            make_class.cxx("attack.cpp")


if __name__ == "__main__":
    unittest.main()

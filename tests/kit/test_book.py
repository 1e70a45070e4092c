#!/usr/bin/env python3
"""tests/kit/test_book.py — attn_book (kit/book/) rejects and names what does not match the
book: run on doctored copies of reference_data/book/printed.json, it must fail on a changed
digit, on a value one digit apart that is not on a rounding boundary, on a print no port
reproduces, and on a missing file; on the real file it passes.

    tests/kit/test_book.py BUILD/bin/attn_book     (ctest: kit.book_rejects_wrong_prints)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = None  # set from the command line


class BookTest(unittest.TestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp(prefix="attn-book-"))
        (self.folder / "book").mkdir()
        self.quotes = json.loads((ROOT / "reference_data" / "book" / "printed.json")
                                 .read_text(encoding="utf-8"))

    def tearDown(self):
        shutil.rmtree(self.folder)

    def run_book(self, *arguments):
        (self.folder / "book" / "printed.json").write_text(json.dumps(self.quotes),
                                                           encoding="utf-8")
        return subprocess.run([PROGRAM, *arguments], capture_output=True, text=True,
                              env=dict(os.environ, ATTN_REFERENCE_DATA=str(self.folder)))

    def quote(self, print_id):
        return next(q for q in self.quotes["printed"] if q["id"] == print_id)

    def test_the_documents_as_quoted_pass(self):
        result = self.run_book()
        self.assertEqual(result.returncode, 0, result.stdout[-2000:])
        self.assertNotIn("MISMATCH", result.stdout)

    def test_a_changed_digit_is_a_mismatch_named_by_its_cell(self):
        quote = self.quote("001 In [2] #1")
        quote["printed"] = quote["printed"].replace("0.9544", "0.9545")
        result = self.run_book()
        self.assertEqual(result.returncode, 1)
        # named as students read it: the public notebook's cell
        self.assertRegex(result.stdout, r"MISMATCH +ch03\.ipynb In \[3\] #1")

    def test_a_cell_is_asked_for_by_its_public_name_or_the_course_copy_s(self):
        by_public = self.run_book("ch03.ipynb In [3]").stdout
        self.assertIn("ch03.ipynb In [3] #1 (the course's copy: 001 In [2])", by_public)
        # 001 In [6] merges In [3], In [7] and In [8]: it is asked for too
        self.assertIn("ch03.ipynb In [3], In [7], In [8] #1 (the course's copy: 001 In [6])",
                      by_public)
        self.assertIn("ch03.ipynb In [3] #1 (the course's copy: 001 In [2])",
                      self.run_book("001 In [2]").stdout)

    def test_one_digit_apart_off_a_rounding_boundary_is_a_mismatch(self):
        # 003 In [38] may round -1.64215004 either way, and nothing else.
        quote = self.quote("003 In [38] #1")
        quote["printed"] = quote["printed"].replace("0.2117", "0.2118")
        result = self.run_book("003 In [38]")
        self.assertEqual(result.returncode, 1)
        self.assertIn("MISMATCH", result.stdout)

    def test_a_print_no_port_reproduces_fails(self):
        unported = dict(self.quote("001 In [2] #1"), id="001 In [99] #1", cell="In [99]")
        unported.pop("public")
        self.quotes["printed"].append(unported)
        result = self.run_book()
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stdout, r"NOT PORTED +001 In \[99\] #1")

    def test_a_print_called_wrong_that_matches_fails(self):
        quote = self.quote("001 In [35] #1")
        full = self.run_book("001 In [35]").stdout
        cpp = full.split("C++: ")[1].split("\n", 1)[1].split("  the document printed:")[0]
        quote["printed"] = cpp.strip()
        result = self.run_book()
        self.assertEqual(result.returncode, 1)
        self.assertIn("said to be wrong in the book, yet C++ prints the same",
                      self.run_book("001 In [35]").stdout)

    def test_no_printed_json_says_what_writes_it(self):
        result = subprocess.run([PROGRAM], capture_output=True, text=True,
                                env=dict(os.environ, ATTN_REFERENCE_DATA=str(self.folder)))
        self.assertEqual(result.returncode, 2)
        self.assertIn("tools/record writes it", result.stderr)


if __name__ == "__main__":
    PROGRAM = sys.argv.pop(1)
    unittest.main()

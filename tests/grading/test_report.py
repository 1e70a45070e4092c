#!/usr/bin/env python3
"""tests/grading/test_report.py — tools/grade's report.html (tools/grader/html_report.py) on a
tiny fabricated class, and check_report.py's DOM check, with no build, no grading run and no
browser. ctest runs it as kit.grade_report; CI renders a real class's report in chromium
(check_report.py).

  - the page: one bar and one column per exercise, one row per student sorted by id, pass
    rates and full-points counts, mistakes counted per student (not per case) with their
    hints, builds / timeouts / crashes counted apart; every untrusted text escaped (a student
    id `<script>...`); mode 0600;
  - write_class writes it, and `python3 -m tools.grader.html_report OUT` rebuilds the same page
    from records.json;
  - check_dom accepts the page, and names what is missing in a page without its chart, a bar,
    a student's row or the mistakes section.

Standard library only: python3 tests/grading/test_report.py
"""

import contextlib
import io
import json
import re
import stat
import sys
import tempfile
import unittest
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_report import check_dom  # noqa: E402  (after the path is set)
from grader import html_report, reports  # noqa: E402
from grader.rubric import Rubric  # noqa: E402

EXERCISES = [{"id": "01", "name": "dot_scores", "title": "Dot-product scores",
              "stub": "exercises/01_dot_scores.cpp"},
             {"id": "02", "name": "softmax", "title": "Softmax along rows",
              "stub": "exercises/02_softmax.cpp"}]
HOSTILE = "<script>alert('x')</script>"
AXIS = "softmax over the wrong axis (dim=1 instead of dim=0)"
AXIS_HINT = "dim=-1 makes every ROW sum to 1; dim=0 every COLUMN."  # a hint may hold "; "
META = {"kit_head": "0123456789abcdef", "sets": ["public"], "sandboxed": True}


def failure(case, mistake="", hint=""):
    return {"case": case, "reason": "values differ", "mistake": mistake, "hint": hint}


def exercise(points, passed, cases, failures=(), status="graded", note=""):
    return {"status": status, "points": points, "max": 10, "note": note, "timing": {},
            "sets": {"public": {"cases": cases, "passed": passed, "failures": list(failures),
                                "passed_cases": []}}}


# The hostile student: 01 full marks; 02 one wrong-axis mistake in three cases (two of them
# with both outputs wrong, so grade.py joined the mistakes and hints with "; ").
# "bob": 01 did not build; 02 wrong axis in one case, one case with no named mistake.
RECORDS = [
    {"id": "bob", "status": "build-failed", "seconds": 1.0, "total": 2.5, "max": 20,
     "exercises": {
         "01": exercise(0.0, 0, 2, [failure("01/a"), failure("01/b")], "build-failed",
                        "does not compile:\n<b>error</b>: expected ';'"),
         "02": exercise(2.5, 1, 4, [failure("02/a", AXIS, AXIS_HINT), failure("02/b"),
                                    failure("02/c")])}},
    {"id": HOSTILE, "status": "graded", "seconds": 1.0, "total": 12.5, "max": 20,
     "exercises": {
         "01": exercise(10.0, 2, 2),
         "02": exercise(2.5, 1, 4, [failure("02/a", f"{AXIS}; {AXIS}", f"{AXIS_HINT}; {AXIS_HINT}"),
                                    failure("02/b", f"{AXIS}; {AXIS}", f"{AXIS_HINT}; {AXIS_HINT}"),
                                    failure("02/c", AXIS, AXIS_HINT)])}},
]
RUBRIC = Rubric({"01": 10, "02": 10}, True)
IDS = [ex["id"] for ex in EXERCISES]


def render(records=RECORDS):
    with tempfile.TemporaryDirectory() as out:
        html_report.write_report(Path(out), records, EXERCISES, RUBRIC, ["not root: <i>x</i>"],
                                 META)
        path = Path(out) / "report.html"
        return path.read_text(encoding="utf-8"), stat.S_IMODE(path.stat().st_mode)


class FeedbackTest(unittest.TestCase):
    """feedback.txt, results.json and junit.xml of one student (reports.write_student)."""

    def write(self, record):
        with tempfile.TemporaryDirectory() as folder:
            reports.write_student(Path(folder), record, EXERCISES, RUBRIC)
            return {name: (Path(folder) / name).read_text(encoding="utf-8")
                    for name in ("feedback.txt", "results.json", "junit.xml")}

    def test_one_block_per_exercise_the_first_failure_in_full_each_hint_once(self):
        text = self.write(RECORDS[0])["feedback.txt"]
        block = text.split("02 softmax")[1]
        self.assertIn("FAILED public 02/a: values differ\n    looks like: " + AXIS, block)
        self.assertIn("and 2 more failing case(s):\n    2 values differ (02/b, 02/c)", block)
        self.assertEqual(text.count(AXIS_HINT), 1)
        self.assertIn("<b>error</b>: expected ';'", text.split("02 softmax")[0])

    def test_the_same_failure_everywhere_is_one_line(self):
        stub = "exercises/01_dot_scores.cpp: attn::dot_scores is not implemented yet"
        record = {"id": "s", "status": "graded", "seconds": 2.4, "total": 0.0, "max": 20,
                  "exercises": {ex_id: exercise(0.0, 0, 5, [
                      {"case": f"{ex_id}/{i}", "reason": stub, "mistake": "", "hint": ""}
                      for i in range(5)]) for ex_id in IDS}}
        text = self.write(record)["feedback.txt"]
        self.assertEqual(text.count(f"every failing case (5): {stub}"), 2)
        self.assertLess(len(text.splitlines()), 12)

    def test_files_not_found_not_taken_and_found_instead(self):
        record = dict(RECORDS[1], status="files missing", files={
            "missing": ["02"], "not_taken": {"01": "a symbolic link: the grader follows no link"},
            "found_instead": ["02_softmax-1.cpp"]})
        written = self.write(record)
        for text in (written["feedback.txt"], json.loads(written["results.json"])["output"]):
            self.assertIn("Not found: 02_softmax.cpp", text)
            self.assertIn("Not taken: 01_dot_scores.cpp: a symbolic link", text)
            self.assertIn("Found instead: 02_softmax-1.cpp", text)

    def test_gradescope_results_have_time_and_output_and_tests_add_up(self):
        results = json.loads(self.write(RECORDS[0])["results.json"])
        self.assertEqual(results["execution_time"], 1)
        self.assertIn("status: build-failed", results["output"])
        self.assertAlmostEqual(sum(t["score"] for t in results["tests"]), results["score"])

    def test_junit_is_well_formed_whatever_the_text(self):
        record = dict(RECORDS[1], exercises=dict(RECORDS[1]["exercises"], **{"01": exercise(
            0.0, 0, 1, [{"case": "01/a", "reason": "bad\x1b[2J\x00 text", "mistake": "",
                         "hint": ""}])}))
        import xml.dom.minidom  # noqa: PLC0415
        xml.dom.minidom.parseString(self.write(record)["junit.xml"])


class ReportPageTest(unittest.TestCase):
    html, mode = render()

    def test_private_like_the_other_outputs(self):
        self.assertEqual(self.mode, 0o600)

    def test_untrusted_text_is_escaped(self):
        self.assertNotIn("<script>", self.html)
        self.assertNotIn("<i>x</i>", self.html)
        self.assertNotIn("<b>error</b>", self.html)
        self.assertIn("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;", self.html)
        self.assertIn("not root: &lt;i&gt;x&lt;/i&gt;", self.html)

    def test_no_script_and_nothing_from_the_network(self):
        self.assertNotRegex(self.html, r"<script|src=|https?://(?!www\.w3\.org/2000/svg)")

    def test_the_check_accepts_it(self):
        self.assertEqual(check_dom(self.html, ["bob", HOSTILE], IDS)[0], [])

    def test_rows_sorted_by_id(self):
        self.assertLess(self.html.index(">&lt;script"), self.html.index(">bob<"))

    def test_bars_are_the_share_of_cases_passed(self):
        rates = re.findall(r'class="bar" data-exercise="(\d+)" data-rate="([\d.]+)"', self.html)
        self.assertEqual(rates, [("01", "0.5000"), ("02", "0.2500")])
        self.assertIn("1/2 full", self.html)
        self.assertIn("0/2 full", self.html)

    def test_mistakes_counted_once_per_student_with_the_hint(self):
        section = self.html[self.html.index('id="mistakes"'):self.html.index('id="students"')]
        self.assertIn(f"2 students</span> (100 %): {AXIS}", section.replace("&#x27;", "'"))
        self.assertIn("Hint: dim=-1 makes every ROW sum to 1; dim=0 every COLUMN.</div>", section)
        self.assertIn("1 student did not build", section)
        self.assertIn("1 student failed cases without a named mistake", section)

    def test_a_problem_exercise_is_flagged_in_its_cell(self):
        self.assertRegex(self.html, r'<td class="zero" title="does not compile:">0'
                                    r'<span class="flag">no build</span></td>')

    def test_a_grader_error_record_without_exercises(self):
        broken = {"id": "eve", "status": "crashed", "total": 0.0, "max": 20, "exercises": {},
                  "seconds": 0.0, "error": "grader error: KeyError('x')"}
        html, _ = render(RECORDS + [broken])
        self.assertEqual(check_dom(html, ["bob", HOSTILE, "eve"], IDS)[0], [])
        self.assertIn("grader error: KeyError(&#x27;x&#x27;)", html)


class BrokenReportTest(unittest.TestCase):
    """The DOM check rejects a page with a part missing, and says which."""

    html, _ = render()

    def problems(self, html, students=("bob", HOSTILE)):
        return "\n".join(check_dom(html, list(students), IDS)[0])

    def test_no_chart(self):
        html = re.sub(r"<svg.*?</svg>", "", self.html, flags=re.S)
        self.assertIn('no chart: <svg id="pass-rate-chart">', self.problems(html))

    def test_a_bar_missing(self):
        html = re.sub(r'<rect class="bar" data-exercise="02"[^>]*/>', "", self.html)
        self.assertIn("the chart's bars are for ['01'], not one per exercise", self.problems(html))

    def test_a_student_row_missing(self):
        html = re.sub(r"<tr><td class=\"id\"><a href=\"students/bob/feedback.txt\">.*?</tr>", "",
                      self.html, flags=re.S)
        self.assertIn("the students table has no row for ['bob']", self.problems(html))

    def test_a_student_not_in_the_gradebook(self):
        self.assertIn("unexpected or repeated rows ['bob']", self.problems(self.html, [HOSTILE]))

    def test_no_mistakes_section(self):
        html = self.html.replace('id="mistakes"', 'id="other"')
        self.assertIn('no mistakes section: <section id="mistakes">', self.problems(html))


class WrittenByGradeTest(unittest.TestCase):
    def test_write_class_writes_it_and_the_module_rebuilds_it_from_records_json(self):
        exercises = json.loads((KIT / "exercises.json").read_text(encoding="utf-8"))["exercises"]
        for rubric in (RUBRIC, Rubric(RUBRIC.points, False)):
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder)
                reports.write_class(out, RECORDS, exercises, rubric, [], META)
                first = (out / "report.html").read_text(encoding="utf-8")
                (out / "report.html").unlink()
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(html_report.main([str(out)]), 0)
                self.assertEqual((out / "report.html").read_text(encoding="utf-8"), first)
            self.assertIn("partial credit" if rubric.partial else "all-or-nothing", first)
            self.assertEqual(check_dom(first, ["bob", HOSTILE],
                                       [ex["id"] for ex in exercises])[0], [])

    def test_named_mistakes_of_a_case_with_two_outputs(self):
        self.assertEqual(html_report.named_mistakes(failure("c", "a; a", "h; x; h; x")),
                         {"a": "h; x"})
        self.assertEqual(html_report.named_mistakes(failure("c", "a; b", "h; i")),
                         {"a": "", "b": ""})
        self.assertEqual(html_report.named_mistakes(failure("c")), {})


if __name__ == "__main__":
    unittest.main()

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
    a student's row or the mistakes section; check_layout names a page wider than 1280 px
    or a Status column off it;
  - the chart's labels never overlap, at 2 to 40 exercises and 1 to 130 students (a label
    wider than its bar's slot stands upright), each bar's tooltip names its exercise, and
    nothing is set wider than 1400 px (the table scrolls inside its own box);
  - what to teach again counts students (one student's mistake in 4 cases: 1, one item per
    mistake), a timed-out or crashed case its students; "files missing" a status like the
    others (a tile, flagged cells); each row links to students/<id>/feedback.txt, quoted;
  - a student's feedback.txt: one block per exercise (the first failure in full, the others
    counted by the mistake they look like, each hint once, a crash said per case), 15 untouched
    stubs in under 40 lines, files not found / not taken / found instead on top, no hidden
    case's details anywhere; results.json's execution_time, output and per-test output;
    junit.xml well-formed and every output free of control characters whatever the text.

Standard library only: python3 tests/grading/test_report.py
"""

import contextlib
import io
import json
import os
import re
import stat
import sys
import tempfile
import unittest
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_report import check_dom, check_layout  # noqa: E402  (after the path is set)
from grader import grade, html_report, reports  # noqa: E402
from grader.rubric import Rubric  # noqa: E402

EXERCISES = [{"id": "01", "name": "dot_scores", "title": "Dot-product scores",
              "stub": "exercises/01_dot_scores.cpp"},
             {"id": "02", "name": "softmax", "title": "Softmax along rows",
              "stub": "exercises/02_softmax.cpp"}]
HOSTILE = "<script>alert('x')</script>"
AXIS = "softmax over the wrong axis (dim=1 instead of dim=0)"
AXIS_HINT = "dim=-1 makes every ROW sum to 1; dim=0 every COLUMN."  # a hint may hold "; "
META = {"kit_head": "0123456789abcdef", "sets": ["public"], "sandboxed": True}


def failure(case, *mistakes):
    """A failed case naming `mistakes`, each (name, hint), as grade.py lists them."""
    return {"case": case, "reason": "values differ",
            "mistakes": [{"name": name, "hint": hint} for name, hint in mistakes]}


def crash(why):
    return {"kind": "timed-out" if why.startswith("stopped after") else "crashed", "why": why}


def exercise(points, passed, cases, failures=(), status="graded", note=""):
    return {"status": status, "points": points, "max": 10, "note": note, "timing": {},
            "sets": {"public": {"cases": cases, "passed": passed, "failures": list(failures),
                                "passed_cases": []}}}


# The hostile student: 01 full marks; 02 one wrong-axis mistake in three cases (two of them
# with both outputs wrong: grade.py lists the mistake once).
# "bob": 01 did not build; 02 wrong axis in one case, one case with no named mistake.
RECORDS = [
    {"id": "bob", "status": "build-failed", "seconds": 1.0, "total": 2.5, "max": 20,
     "exercises": {
         "01": exercise(0.0, 0, 2, [failure("01/a"), failure("01/b")], "build-failed",
                        "does not compile:\n<b>error</b>: expected ';'"),
         "02": exercise(2.5, 1, 4, [failure("02/a", (AXIS, AXIS_HINT)), failure("02/b"),
                                    failure("02/c")])}},
    {"id": HOSTILE, "status": "graded", "seconds": 1.0, "total": 12.5, "max": 20,
     "exercises": {
         "01": exercise(10.0, 2, 2),
         "02": exercise(2.5, 1, 4, [failure("02/a", (AXIS, AXIS_HINT)),
                                    failure("02/b", (AXIS, AXIS_HINT)),
                                    failure("02/c", (AXIS, AXIS_HINT))])}},
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

    def test_a_grader_error_still_leaves_a_feedback_the_report_links_to(self):
        with tempfile.TemporaryDirectory() as folder:
            target = Path(folder) / "students" / "eve"
            reports.write_grader_error(target, {"id": "eve", "error": "grader error: OSError()"})
            text = (target / "feedback.txt").read_text(encoding="utf-8")
            self.assertIn("not graded: grader error: OSError()", text)
            self.assertEqual(stat.S_IMODE((target / "feedback.txt").stat().st_mode), 0o600)

    def write(self, record, exercises=EXERCISES, rubric=RUBRIC):
        with tempfile.TemporaryDirectory() as folder:
            reports.write_student(Path(folder), record, exercises, rubric)
            return {name: (Path(folder) / name).read_text(encoding="utf-8")
                    for name in ("feedback.txt", "results.json", "junit.xml")}

    def test_one_block_per_exercise_the_first_failure_in_full_each_hint_once(self):
        text = self.write(RECORDS[0])["feedback.txt"]
        block = text.split("02 softmax")[1]
        self.assertIn("FAILED public case 02/a: values differ\n    looks like: " + AXIS, block)
        self.assertIn("and 2 more failing cases:\n    2 cases: values differ (02/b, 02/c)", block)
        self.assertEqual(text.count(AXIS_HINT), 1)
        self.assertIn("<b>error</b>: expected ';'", text.split("02 softmax")[0])

    def test_the_other_failures_counted_by_the_mistake_they_look_like(self):
        text = self.write(RECORDS[1])["feedback.txt"]
        block = text.split("02 softmax")[1]
        self.assertIn(f"looks like: {AXIS}\n", block)  # two outputs alike: said once
        self.assertIn(f"2 cases look like: {AXIS} (02/b, 02/c)", block)
        self.assertEqual(text.count("hint: "), 1)  # "h; h" of a case's two outputs: once

    def test_an_untouched_stub_is_short(self):
        """Every exercise a stub (every case "not implemented", several functions per
        exercise): a line for the total, two per exercise, one blank between them."""
        exercises = json.loads((KIT / "exercises.json").read_text(encoding="utf-8"))["exercises"]
        record = {"id": "stub", "status": "graded", "seconds": 9.0, "total": 0.0,
                  "max": 10.0 * len(exercises), "files": {"missing": [], "not_taken": {},
                                                          "found_instead": []},
                  "exercises": {}}
        for ex in exercises:
            failures = [{"case": f"{ex['id']}_{ex['name']}/case{i}", "function": f"f{i % 3}",
                         "mistakes": [], "not_implemented": True,
                         "reason": f"weights: exercises/{ex['id']}_{ex['name']}.cpp: "
                                   f"attn::f{i % 3}(x) is not implemented yet (replace the "
                                   f"throw with your code); weights_sum: exercises/"
                                   f"{ex['id']}_{ex['name']}.cpp: attn::f{i % 3}(x) is not "
                                   f"implemented yet (replace the throw with your code)"}
                        for i in range(20)]
            record["exercises"][ex["id"]] = exercise(0.0, 0, 20, failures)
        rubric = Rubric({ex["id"]: 10 for ex in exercises}, True)
        text = self.write(record, exercises, rubric)["feedback.txt"]
        self.assertLessEqual(len(text.splitlines()), 2 + 2 * len(exercises), text)
        self.assertIn("not implemented yet (every case): f0, f1, f2", text)
        self.assertNotIn("replace the throw", text)

    def test_not_implemented_is_the_judges_field_never_the_text(self):
        """A student's own exception that says "is not implemented yet" is an ordinary
        failure; the judge's not_implemented marks a stub whatever its reason says."""
        says_it = {"case": "01/a", "function": "dot_scores", "mistakes": [],
                   "not_implemented": False,
                   "reason": "scores: dot_scores(inputs, query) threw std::runtime_error: "
                             "\"exercises/01_dot_scores.cpp: attn::dot_scores(inputs, query) is "
                             "not implemented yet (replace the throw with your code)\""}
        stub = {"case": "02/a", "function": "softmax", "mistakes": [],
                "not_implemented": True, "reason": "weights: any words at all"}
        record = {"id": "s", "status": "graded", "seconds": 1.0, "total": 0.0, "max": 20,
                  "exercises": {"01": exercise(0.0, 0, 1, [says_it]),
                                "02": exercise(0.0, 0, 1, [stub])}}
        text = self.write(record)["feedback.txt"]
        first, second = text.split("02 softmax")
        self.assertIn("FAILED public case 01/a [dot_scores]: scores: dot_scores(inputs, query) "
                      "threw", first)
        self.assertNotIn("\n  not implemented yet", first)
        self.assertIn("not implemented yet (its case): softmax", second)
        self.assertEqual(html_report.problems_of(record, "01"), set())
        self.assertEqual(html_report.problems_of(record, "02"), {"not implemented"})
        page, _ = render([record])
        self.assertIn("1 student left functions of it not implemented", page)
        self.assertEqual(page.count("left functions of it not implemented"), 1)

    def test_a_missing_file_and_a_build_failure_say_it_once(self):
        record = {"id": "s", "status": "files missing", "seconds": 2.0, "total": 0.0, "max": 20,
                  "files": {"missing": ["01"], "not_taken": {}, "found_instead": []},
                  "exercises": {
                      "01": exercise(0.0, 0, 3, [failure(f"01/{i}") for i in range(3)],
                                     note="no file 01_dot_scores.cpp in the submission"),
                      "02": exercise(0.0, 0, 3, [dict(failure(f"02/{i}"),
                                                      reason="the file does not build")
                                                 for i in range(3)], "build-failed",
                                     "does not compile:\n02_softmax.cpp:3: error: x")}}
        for f in record["exercises"]["01"]["sets"]["public"]["failures"]:
            f["reason"] = "no file 01_dot_scores.cpp in the submission"
        text = self.write(record)["feedback.txt"]
        self.assertEqual(text.count("no file 01_dot_scores.cpp"), 1, text)
        self.assertEqual(text.count("02_softmax.cpp:3: error: x"), 1)
        self.assertIn("no case ran: the file does not build", text)

    def test_a_crash_is_said_per_case_not_again_in_the_note(self):
        segfault = "crashed: SIGSEGV (segmentation fault)"
        no_result = "context: no result: the program stopped before it produced context"
        failures = [dict(failure(f"02_softmax/c{i}"), reason=no_result, crash=crash(segfault),
                         function="softmax", no_result=True) for i in range(4)]
        result = exercise(0.0, 0, 4, failures, "crashed")
        result["stopped"] = [{"case": f"02_softmax/c{i}", "kind": "crashed", "why": segfault}
                             for i in range(4)]
        record = dict(RECORDS[1], status="crashed", exercises=dict(
            RECORDS[1]["exercises"], **{"02": result}))
        block = self.write(record)["feedback.txt"].split("02 softmax")[1]
        self.assertIn(f"FAILED public case 02_softmax/c0 [softmax]: {segfault}\n"
                      f"  and 3 more failing cases:\n    3 cases: {segfault} (c1, c2, c3)", block)
        self.assertEqual(block.count(segfault), 2, block)

    def test_a_run_stopped_before_any_case_says_so(self):
        why = "the test program never started its cases: the program exited with status 1"
        result = exercise(0.0, 0, 1, [dict(failure("02_softmax/c0"), no_result=True)], "crashed")
        result["stopped"] = [{"case": "", "kind": "crashed", "why": why}]
        record = dict(RECORDS[1], status="crashed", exercises=dict(
            RECORDS[1]["exercises"], **{"02": result}))
        block = self.write(record)["feedback.txt"].split("02 softmax")[1]
        self.assertIn(f"  before any case: {why}\n", block)

    def test_a_hidden_case_shows_no_details(self):
        secret = "expected [[0.25, 0.75]]"
        hidden = dict(failure("02/h", (AXIS, AXIS_HINT)), details=secret, function="softmax")
        result = exercise(5.0, 1, 2)
        result["sets"]["hidden"] = {"cases": 1, "passed": 0, "failures": [hidden],
                                    "passed_cases": []}
        record = dict(RECORDS[1], exercises=dict(RECORDS[1]["exercises"], **{"02": result}))
        written = self.write(record)
        self.assertIn("FAILED hidden case 02/h [softmax]", written["feedback.txt"])
        for name, text in written.items():
            self.assertNotIn("0.25", text, name)

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
        self.assertIn("0 of 2 exercises full points, 1 partial, 1 zero (01)", results["output"])
        self.assertAlmostEqual(sum(t["score"] for t in results["tests"]), results["score"])
        softmax = results["tests"][1]
        self.assertEqual(softmax["name"], "02 softmax (public cases)")
        self.assertIn("FAILED public case 02/a", softmax["output"])
        self.assertEqual(softmax["status"], "failed")

    def test_junit_and_json_are_clean_whatever_the_text(self):
        hostile = "bad\x1b[2J\x00 \ufffe\uffff\ud800 text ]]> <x/> &amp;"
        record = dict(RECORDS[1], exercises=dict(RECORDS[1]["exercises"], **{"01": exercise(
            0.0, 0, 1, [{"case": "01/a\x07", "reason": hostile,
                         "mistakes": [{"name": hostile, "hint": hostile}]}], note=hostile)}))
        written = self.write(record)
        import xml.dom.minidom  # noqa: PLC0415
        xml.dom.minidom.parseString(written["junit.xml"].encode("utf-8"))
        for name, text in written.items():
            for bad in ("\x1b", "\x00", "\x07", "\ud800"):
                self.assertNotIn(bad, text, name)
        for bad in ("\ufffe", "\uffff"):  # not characters XML 1.0 allows
            self.assertNotIn(bad, written["junit.xml"])
        json.loads(written["results.json"])


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


class CountsAndStatusesTest(unittest.TestCase):
    """What to teach again counts students; files missing shows like the other statuses;
    each row links to its feedback."""

    def test_one_students_mistake_in_four_cases_counts_one(self):
        records = [{"id": "ann", "status": "graded", "seconds": 1.0, "total": 10.0, "max": 20,
                    "exercises": {"01": exercise(10.0, 2, 2), "02": exercise(
                        0.0, 0, 4, [failure(f"02/{c}", (AXIS, AXIS_HINT)) for c in "abcd"])}}]
        html, _ = render(records)
        section = html[html.index('id="mistakes"'):html.index('id="students"')]
        self.assertEqual(section.count("<li>"), 1)
        self.assertIn("1 student</span> (100 %)", section)

    def test_a_slip_of_one_family_in_other_dims_counts_once(self):
        # The wrong axis on dim=0 and on dim=1 is one slip (its family, docs/verdicts.md).
        other_dim = AXIS.replace("dim=1 instead of dim=0", "dim=0 instead of dim=1")

        def axis(case, name):
            named = failure(case, (name, AXIS_HINT))
            named["mistakes"][0].update(id="wrong_axis", family="wrong_axis")
            return named
        records = [{"id": student, "status": "graded", "seconds": 1.0, "total": 0.0, "max": 20,
                    "exercises": {"02": exercise(0.0, 0, 2, [axis("02/a", name),
                                                             axis("02/b", name)])}}
                   for student, name in (("ann", AXIS), ("bob", other_dim))]
        html, _ = render(records)
        section = html[html.index('id="mistakes"'):html.index('id="students"')]
        self.assertEqual(section.count("<li>"), 1, section)
        self.assertIn("2 students</span> (100 %)", section)

    def test_a_timed_out_and_a_crashed_case_count_their_students(self):
        def stopped(case, why):
            return dict(failure(case), reason="x: no result: the program stopped",
                        crash=crash(why), function="softmax", no_result=True)
        records = [{"id": name, "status": "timed-out", "seconds": 1.0, "total": 10.0,
                    "max": 20, "exercises": {"01": exercise(10.0, 2, 2), "02": exercise(
                        0.0, 0, 3, [stopped("02/a", "stopped after 20 s (wall clock)"),
                                    stopped("02/b", "stopped after 20 s (wall clock)"),
                                    stopped("02/c", "crashed: SIGSEGV (invalid memory access)")],
                        "timed-out")}} for name in ("ann", "ben")]
        html, _ = render(records)
        card = html[html.index('data-exercise="02"><h3>'):]
        card = card[:card.index("</article>")]
        self.assertIn("2 students timed out in a case", card)
        self.assertIn("2 students crashed in a case", card)
        self.assertNotIn("without a named mistake", card)

    def test_files_missing_is_a_status_like_the_others(self):
        record = dict(RECORDS[1], id="cat", status="files missing",
                      files={"missing": ["02"], "not_taken": {"01": "a link"},
                             "found_instead": ["02_softmax-1.cpp"]})
        html, _ = render(RECORDS + [record])
        self.assertIn('<li class="tile"><b>1</b><span>files missing</span></li>', html)
        self.assertIn('<td class="status bad">files missing</td>', html)
        self.assertIn('<span class="flag">not taken</span>', html)
        self.assertIn('<span class="flag">no file</span>', html)
        self.assertIn("1 student handed in no file", html)

    def test_each_row_links_to_its_feedback_quoted(self):
        record = dict(RECORDS[1], id='a b?#"<x>')
        html, _ = render([record])
        self.assertIn('<a href="students/a%20b%3F%23%22%3Cx%3E/feedback.txt">'
                      'a b?#&quot;&lt;x&gt;</a>', html)


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


class LayoutCheckTest(unittest.TestCase):
    """check_layout, on what check_report.py's probe measures in a 1280 px window."""

    FITS = {"scrollWidth": 1280, "innerWidth": 1280, "table": [32, 1248],
            "columns": [["Student", 33, 150], ["Total", 150, 230], ["Status", 230, 330]]}

    def test_a_page_that_fits(self):
        self.assertEqual(check_layout(self.FITS), [])

    def test_wider_than_the_window(self):
        problems = "\n".join(check_layout(dict(self.FITS, scrollWidth=1432, table=[32, 1432])))
        self.assertIn("the page is 1432 px wide", problems)
        self.assertIn("the students table ends at 1432 px", problems)

    def test_the_status_column_off_screen(self):
        columns = self.FITS["columns"][:2] + [["Status", 1300, 1400]]
        self.assertIn("the Status column ends at 1400 px, off a 1280 px window",
                      check_layout(dict(self.FITS, columns=columns)))

    def test_no_measure(self):
        self.assertEqual(check_layout(None),
                         ["no layout measured (the probe script did not run)"])

    def test_the_probe_is_not_in_the_report(self):
        self.assertNotIn("<script", render()[0])


LABEL = re.compile(r'<text (?P<attributes>[^>]*)>(?P<text>[^<]*)</text>')


def label_box(attributes: str, text: str) -> tuple:
    """(left, top, right, bottom) that a chart label's glyphs stay inside, px: horizontal
    (anchored at x), or upright (rotate -90) with its glyphs left of x, hanging down from y
    (text-anchor end) or rising from it (start)."""
    value = dict(re.findall(r'([\w-]+)="([^"]*)"', attributes))
    x, y, size = float(value["x"]), float(value["y"]), int(value["font-size"])
    width = html_report.text_width(text, size, value.get("font-weight") == "bold")
    if "rotate(-90" not in value.get("transform", ""):
        left = x - {"start": 0, "middle": width / 2, "end": width}[value["text-anchor"]]
        return left, y - size, left + width, y + size * 0.25
    if value["text-anchor"] == "end":
        return x - size, y, x + size * 0.25, y + width
    return x - size, y - width, x + size * 0.25, y


class ChartLayoutTest(unittest.TestCase):
    """The chart's labels at any number of exercises and class size: none overlaps another
    (a label wider than its bar's slot is turned upright), and nothing on the page is set
    wider than a 1400 px window."""

    def labels(self, count: int, students: int) -> list:
        exercises = [{"id": f"{n:02d}", "name": f"exercise_name_{n}", "title": "t"}
                     for n in range(1, count + 1)]
        stats = {ex["id"]: {"rate": 1.0 if n % 2 else 0.995, "full": students,
                            "students": students} for n, ex in enumerate(exercises)}
        svg = html_report.chart_svg(exercises, stats)
        self.assertEqual(len(re.findall(r'class="bar"', svg)), count)
        return [(m["text"], label_box(m["attributes"], m["text"])) for m in LABEL.finditer(svg)]

    def assert_apart(self, labels: list) -> None:
        for i, (text, (left, top, right, bottom)) in enumerate(labels):
            for other, (left2, top2, right2, bottom2) in labels[i + 1:]:
                self.assertFalse(left < right2 and left2 < right and top < bottom2
                                 and top2 < bottom, f"{text!r} and {other!r} overlap")

    def test_no_two_labels_overlap(self):
        for count in (2, 7, 23, 40):
            for students in (1, 29, 130):
                with self.subTest(exercises=count, students=students):
                    self.assert_apart(self.labels(count, students))

    def test_23_exercises_turn_the_counts_upright_and_keep_the_ids(self):
        boxes = dict(self.labels(23, 130))
        left, top, right, bottom = boxes["130/130"]
        self.assertGreater(bottom - top, right - left)  # upright
        left, top, right, bottom = boxes["23"]
        self.assertLess(bottom - top, right - left)

    def test_a_bars_tooltip_names_its_exercise(self):
        html = render()[0]
        self.assertIn("<title>01 dot_scores: 50 % of the cases passed; 1 of 2 students got "
                      "full points</title>", html)
        self.assertIn('<th class="exercise" title="02 softmax">02</th>', html)

    def test_nothing_is_set_wider_than_1400_px(self):
        html = render()[0]
        widths = [int(w) for w in re.findall(r'(\d+)px', html)
                  + re.findall(r'width="(\d+)"', html)]
        self.assertTrue(widths)
        self.assertLessEqual(max(widths), 1400, widths)
        # A table wider than the window scrolls in its own box, not the page.
        self.assertIn('<div class="scroll" id="students-box"><table id="students">', html)
        self.assertIn(".scroll { max-width: 100%; overflow-x: auto; }", html)


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
        # Each with its own hint, kept whole ("; " in a hint is only text).
        self.assertEqual(html_report.named_mistakes(failure("c", ("a", "h; x"), ("b", "i"))),
                         {"a": "h; x", "b": "i"})
        self.assertEqual(html_report.named_mistakes(failure("c")), {})


class CompactReasonTest(unittest.TestCase):
    """Outputs that failed alike are said once, from the list grade.py keeps, never by
    splitting the reason's text (a student's own message may hold "; x: y")."""

    def test_outputs_that_failed_alike_are_said_once(self):
        failure = {"reason": "weights: too far; weights_sum: too far",
                   "outputs": [{"name": "weights", "reason": "too far"},
                               {"name": "weights_sum", "reason": "too far"}]}
        self.assertEqual(reports.compact_reason(failure), "weights, weights_sum: too far")

    def test_a_students_words_are_not_split(self):
        words = 'threw "a: b; c: b"'
        failure = {"reason": f"context: {words}", "outputs": [{"name": "context",
                                                               "reason": words}]}
        self.assertEqual(reports.compact_reason(failure), f"context: {words}")


class JudgeVerdictsTest(unittest.TestCase):
    """grade.py's judge_set on a verdict file (a stand-in judge writes it): a case is not
    implemented where the judge says so, whatever its reason's words."""

    OWN_WORDS = ('dot_scores(inputs, query) threw std::runtime_error: "exercises/01_dot_scores'
                 '.cpp: attn::dot_scores(inputs, query) is not implemented yet"')

    def test_the_judges_not_implemented_field_alone_marks_a_stub(self):
        verdicts = {"schema": "attn-kit/judge-verdicts", "version": 1, "case_set": "public",
                    "passed": 0, "failed": 2, "cases": [
                        {"case": "01/a", "exercise": "01", "kind": "dot_scores",
                         "passed": False, "not_implemented": True,
                         "outputs": [{"name": "scores", "passed": False, "reason": "any words",
                                      "mistakes": []}]},
                        {"case": "01/b", "exercise": "01", "kind": "dot_scores",
                         "passed": False, "not_implemented": False,
                         "outputs": [{"name": "scores", "passed": False,
                                      "reason": self.OWN_WORDS, "mistakes": []}]}]}
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            judge = folder / "judge"
            judge.write_text(f"#!{sys.executable}\nimport sys\n"
                             "out = sys.argv[sys.argv.index('--out') + 1]\n"
                             f"open(out, 'w').write({json.dumps(json.dumps(verdicts))})\n",
                             encoding="utf-8")
            judge.chmod(0o755)
            grader = grade.Grader.__new__(grade.Grader)
            grader.judge, grader.sets = judge, {"public": folder}
            result = {"note": "", "timing": {}}
            data = grader.judge_set("01", "public", folder, folder, result, ["01/a", "01/b"], {},
                                    os.getuid())
        self.assertEqual(result["note"], "")
        self.assertEqual([(f["case"], f["not_implemented"]) for f in data["failures"]],
                         [("01/a", True), ("01/b", False)])
        record = {"id": "s", "status": "graded", "seconds": 1.0, "total": 0.0, "max": 10,
                  "exercises": {"01": {"status": "graded", "points": 0.0, "max": 10,
                                       "note": "", "timing": {}, "sets": {"public": data}}}}
        block = "\n".join(reports.exercise_block(EXERCISES[0], record["exercises"]["01"]))
        self.assertIn("FAILED public case 01/b [dot_scores]: scores: " + self.OWN_WORDS, block)
        self.assertIn("1 case: not implemented yet: dot_scores (01/a)", block)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""tests/kit/test_cli_reports.py — tools/kit's reading of ctest's JUnit file and of
GoogleTest's JSON reports, on the real samples in fixtures/ctest-3.25/ (record.sh)."""

import sys
import tempfile
import unittest
from pathlib import Path

from cli_testing import CTEST_LAB, LAB_TIMEOUT_S
from kitcli import reports


def report(*failure_texts):
    """A GoogleTest JSON report with one failed test per failure text."""
    return {"testsuites": [{"name": "softmax_matrix", "testsuite": [
        {"name": f"case{i}", "status": "RUN", "result": "COMPLETED",
         "failures": [{"failure": text}]} for i, text in enumerate(failure_texts)]}]}


class JunitTest(unittest.TestCase):
    """What ctest 3.25 writes for each situation, as tools/kit reads it."""

    results = reports.read_junit(CTEST_LAB / "junit.xml")

    def test_a_passing_program_is_run(self):
        self.assertTrue(self.results["ex01.exercises"].passed)

    def test_a_failure_a_crash_and_a_timeout_all_read_fail_with_no_message(self):
        for name in ("ex02.exercises", "ex03.exercises", "ex04.exercises", "ex05.exercises"):
            self.assertEqual((self.results[name].status, self.results[name].message),
                             ("fail", ""), name)

    def test_only_the_time_tells_a_timeout(self):
        self.assertGreaterEqual(self.results["ex05.exercises"].time_s, 0.9 * LAB_TIMEOUT_S)
        self.assertLess(self.results["ex03.exercises"].time_s, 0.9 * LAB_TIMEOUT_S)

    def test_a_missing_program_is_notrun_with_its_reason(self):
        result = self.results["ex06.exercises"]
        self.assertEqual((result.status, result.message),
                         ("notrun", "Unable to find executable"))

    def test_skips_and_early_exits_pass_under_ctest(self):
        for name in ("ex07.exercises", "ex09.exercises", "ex10.exercises"):
            self.assertTrue(self.results[name].passed, name)

    def test_a_test_that_exits_77_is_skipped_not_passed(self):
        # What ctest 3.25 writes for a test with SKIP_RETURN_CODE 77 that exited 77.
        with tempfile.TemporaryDirectory() as folder:
            junit = Path(folder) / "junit.xml"
            junit.write_text(
                '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="(empty)" tests="1" '
                'failures="0" disabled="0" skipped="1">\n<testcase name="kit.grade_sandbox_'
                'namespaces" classname="kit.grade_sandbox_namespaces" time="0.002" '
                'status="notrun">\n<skipped message="SKIP_RETURN_CODE=77"/>\n<system-out>no '
                'namespaces\n</system-out>\n</testcase>\n</testsuite>\n', encoding="utf-8")
            result = reports.read_junit(junit)["kit.grade_sandbox_namespaces"]
        self.assertEqual((result.passed, result.skipped), (False, True))
        self.assertFalse(self.results["ex06.exercises"].skipped)  # a missing program fails

    def test_no_junit_file_means_no_results(self):
        self.assertEqual(reports.read_junit(Path(tempfile.gettempdir()) / "no-such.xml"), {})


class GtestReportTest(unittest.TestCase):
    def cases(self, ex_id):
        return reports.read_gtest_report(CTEST_LAB / "reports" / f"ex{ex_id}.exercises.json")

    def test_value_cases_carry_their_attn_case(self):
        by_name = {case.name: case for case in self.cases("01")}
        self.assertEqual(by_name["softmax_matrix.rows_notebook"].value_case,
                         "03_softmax/rows_notebook")
        self.assertIsNone(by_name["softmax.RejectsAnEmptyMatrix"].value_case)
        self.assertEqual({case.outcome for case in by_name.values()}, {"passed"})

    def test_a_skipped_test_is_skipped_not_passed(self):
        self.assertEqual([(case.name, case.outcome) for case in self.cases("07")],
                         [("fused_attention_gpu.notebook", "skipped")])

    def test_a_failure_keeps_its_first_meaningful_line(self):
        failed = [case for case in self.cases("02") if case.outcome == "failed"]
        self.assertEqual([case.failure for case in failed], [
            "exercises/03_softmax.cpp: attn::softmax(scores, dim) is not implemented yet "
            "(replace the throw with your code)",
            "softmax(scores, -1) differs from the golden 03_softmax/odd_rows/weights.npy "
            "at [0, 1]"])

    def test_a_program_that_crashed_or_exited_early_has_no_report(self):
        for ex_id in ("03", "04", "05", "06", "09"):
            self.assertIsNone(self.cases(ex_id), ex_id)


class FailureMessageTest(unittest.TestCase):
    def test_skips_the_file_and_line(self):
        [case] = reports.gtest_cases(report(
            "/k/tests/test_02.cpp:19\nexercises/02_normalize_by_sum.cpp: "
            "attn::normalize_by_sum(scores) is not implemented yet"))
        self.assertEqual(case.failure, "exercises/02_normalize_by_sum.cpp: "
                                       "attn::normalize_by_sum(scores) is not implemented yet")

    def test_skips_the_failed_line_of_add_failure(self):
        [case] = reports.gtest_cases(report("/k/tests/test_03.cpp:30\nFailed\n"
                                            "softmax_naive(x) should be"))
        self.assertEqual(case.failure, "softmax_naive(x) should be")

    def test_unwraps_an_uncaught_exception(self):
        [case] = reports.gtest_cases(report('unknown file\nC++ exception with description '
                                            '"boom" thrown in the test body.'))
        self.assertEqual(case.failure, "boom")

    def test_decodes_utf8_that_googletest_escaped_byte_by_byte(self):
        # What gtest 1.12 writes for "(3.34e+03× the tolerance) — looks like: ..."
        [case] = reports.gtest_cases(report(
            "/k/t.cpp:1\n(3.34e+03\u00c3\u0097 the tolerance) \u00e2\u0080\u0094 looks like"))
        self.assertEqual(case.failure, "(3.34e+03× the tolerance) — looks like")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

#!/usr/bin/env python3
"""tests/kit/test_cli_reports.py — tools/kit's reading of ctest's JUnit file and of the test
programs' verdict streams, on the real samples in fixtures/ctest-3.25/ (record.sh)."""

import json
import sys
import tempfile
import unittest
from pathlib import Path

from cli_testing import CTEST_LAB, LAB_TIMEOUT_S
from kitcli import reports


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


class VerdictStreamTest(unittest.TestCase):
    def stream(self, ex_id):
        return reports.read_verdicts(CTEST_LAB / "reports" / f"ex{ex_id}.exercises.verdicts")

    def test_value_cases_carry_their_case(self):
        by_name = {case.name: case for case in self.stream("01").tests}
        self.assertEqual(by_name["softmax_matrix.rows_notebook"].value_case,
                         "03_softmax/rows_notebook")
        self.assertIsNone(by_name["softmax.RejectsAnEmptyMatrix"].value_case)
        self.assertEqual({case.outcome for case in by_name.values()}, {"passed"})
        self.assertTrue(self.stream("01").finished)

    def test_a_skipped_test_is_skipped_not_passed(self):
        self.assertEqual([(case.name, case.outcome) for case in self.stream("07").tests],
                         [("fused_attention_gpu.notebook", "skipped")])

    def test_a_failure_states_its_kind_and_a_mismatch_its_mistake(self):
        failed = [case for case in self.stream("02").tests if case.outcome == "failed"]
        self.assertEqual([(case.not_implemented, case.mistake) for case in failed], [
            (True, ""), (False, "softmax over the wrong axis (dim=0 instead of dim=-1)")])
        self.assertEqual(failed[0].failure, "exercises/03_softmax.cpp: attn::softmax(scores, "
                                            "dim) is not implemented yet (replace the throw "
                                            "with your code)")
        [mismatch] = failed[1].failures
        self.assertEqual(mismatch.worst, {"index": [0, 1], "got": "nan", "expected": 0.25,
                                          "times_tolerance": "inf"})
        self.assertIn("\n  hint: dim=-1 normalises each row", failed[1].explanation)
        # The call in the student's words and the case's description, each a field of its own.
        self.assertEqual((mismatch.call, mismatch.description),
                         ("softmax(scores, -1)", "odd rows (lab)"))
        self.assertTrue(failed[1].failure.startswith("softmax(scores, -1): 4 of 6 values"))

    def test_a_crash_names_its_test_and_signal(self):
        for ex_id, signal in (("03", "SIGSEGV"), ("04", "SIGABRT")):
            stream = self.stream(ex_id)
            self.assertFalse(stream.finished)
            self.assertEqual((stream.running, stream.signal),
                             ("softmax_matrix.rows_notebook", signal))

    def test_a_hang_or_an_exit_names_the_test_it_stopped_in(self):
        for ex_id in ("05", "09"):
            stream = self.stream(ex_id)
            self.assertFalse(stream.finished)
            self.assertEqual((stream.running, stream.signal),
                             ("softmax_matrix.rows_notebook", None))

    def test_a_program_that_never_ran_has_no_stream(self):
        self.assertIsNone(self.stream("06"))

    def test_a_line_cut_short_by_a_kill_is_ignored(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "cut.verdicts"
            whole = (CTEST_LAB / "reports" / "ex01.exercises.verdicts").read_text()
            path.write_text(whole[:whole.rindex('{"event":"end"') + 5])
            stream = reports.read_verdicts(path)
        self.assertEqual(len(stream.tests), 3)
        self.assertFalse(stream.finished)

    def test_another_schema_version_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "old.verdicts"
            path.write_text('{"event":"program","schema":"attn-kit/test-verdicts","version":0}\n')
            with self.assertRaisesRegex(ValueError, "version 0, not attn-kit/test-verdicts "
                                                    "version 1: rebuild"):
                reports.read_verdicts(path)


class RevisedTestTest(unittest.TestCase):
    """The test program decides names across its tests at its end (kit/verdicts.hpp): a test
    written again, "revised", replaces its first verdict where it stood; Python decides
    nothing of it."""

    def test_a_revised_test_replaces_the_first_in_its_place(self):
        def test(name, mistake, revised=False):
            said = f"looks like: {mistake}" if mistake else "only [1, 0] is wrong"
            line = f"call(x): 2 of 4 values differ — {said}"
            event = {"event": "test", "test": name, "case": f"NN_x/{name}", "status": "failed",
                     "failures": [{"kind": "mismatch", "message": line, "text": line,
                                   "comparison": {"mistake": mistake}}], "ruled_out": []}
            return json.dumps({**event, "revised": True} if revised else event)

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "stream"
            path.write_text("\n".join([
                '{"event":"program","schema":"attn-kit/test-verdicts","version":1}',
                test("kernel.two_tokens", "no rescale"),
                test("kernel.three_heads", "wrong axis"),
                test("kernel.two_tokens", "", revised=True),
                '{"event":"end","tests":2,"failed":2}']) + "\n")
            stream = reports.read_verdicts(path)
        self.assertEqual([test.name for test in stream.tests],
                         ["kernel.two_tokens", "kernel.three_heads"])
        self.assertEqual([test.mistake for test in stream.tests], ["", "wrong axis"])
        self.assertEqual(stream.tests[0].failure, "call(x): 2 of 4 values differ — only [1, 0] is "
                                                  "wrong")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

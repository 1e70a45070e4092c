#!/usr/bin/env python3
"""tests/kit/test_cli.py — how tools/kit reads build output and test reports.

The student's view depends on these readings: a compile error must win over a stale test
program, a crash or a timeout must be named, and a failure's reason must be its first
meaningful line. Run by ctest as kit.cli (standard library unittest only).
"""

import importlib.machinery
import importlib.util
import sys
import unittest
from pathlib import Path

KIT_PATH = Path(__file__).resolve().parents[2] / "tools" / "kit"
loader = importlib.machinery.SourceFileLoader("kit_cli", str(KIT_PATH))
spec = importlib.util.spec_from_loader("kit_cli", loader)
kit = importlib.util.module_from_spec(spec)
loader.exec_module(kit)

EX02 = next(ex for ex in kit.EXERCISES if ex["id"] == "02")


def report(*failure_texts):
    """A GoogleTest JSON report with one test per failure text."""
    return {"tests": len(failure_texts), "testsuites": [{"name": "NormalizeBySumTest",
            "testsuite": [{"name": f"Case{i}", "failures": [{"failure": text}]}
                          for i, text in enumerate(failure_texts)]}]}


class FailureReasonTest(unittest.TestCase):
    def test_skips_the_file_and_line(self):
        found = kit.failures(report("/k/tests/test_02.cpp:19\nexercises/02_normalize_by_sum.cpp:"
                                    " attn::normalize_by_sum(scores) is not implemented yet"))
        self.assertEqual(found[0][1], "exercises/02_normalize_by_sum.cpp: "
                                      "attn::normalize_by_sum(scores) is not implemented yet")

    def test_skips_the_failed_line_of_add_failure(self):
        found = kit.failures(report("/k/tests/test_03.cpp:30\nFailed\nsoftmax_naive(x) should be"))
        self.assertEqual(found[0][1], "softmax_naive(x) should be")

    def test_unwraps_an_uncaught_exception(self):
        found = kit.failures(report('unknown file\nC++ exception with description "boom" '
                                    'thrown in the test body.'))
        self.assertEqual(found[0][1], "boom")


class CompileErrorTest(unittest.TestCase):
    BUILD = ("[3/40] Building CXX object ...\n"
             "FAILED: CMakeFiles/ex02_exercises.dir/exercises/02_normalize_by_sum.cpp.o \n"
             "/usr/bin/c++ -Werror=return-type -c /k/exercises/02_normalize_by_sum.cpp\n"
             "/usr/include/xtensor/xmath.hpp:10:1: error: no match for 'operator/'\n"
             "/k/exercises/02_normalize_by_sum.cpp:22:36: error: expected ';' before 'throw'\n")

    def test_prefers_the_error_in_the_students_file(self):
        self.assertEqual(kit.compile_error(EX02, self.BUILD),
                         "exercises/02_normalize_by_sum.cpp:22:36: error: expected ';' before "
                         "'throw'")

    def test_reports_a_link_error(self):
        build = ("FAILED: bin/test_ex02_exercises \n"
                 "/usr/bin/ld: test_02.cpp.o: undefined reference to `attn::normalize_by_sum'\n")
        self.assertIn("undefined reference", kit.compile_error(EX02, build))

    def test_reports_a_function_defined_twice(self):
        build = ("FAILED: bin/test_ex02_exercises \n"
                 "/usr/bin/ld: libex02.a(02.cpp.o): multiple definition of `attn::softmax'\n")
        self.assertIn("multiple definition", kit.compile_error(EX02, build))

    def test_ignores_other_exercises_failures(self):
        self.assertIsNone(kit.compile_error(EX02, self.BUILD.replace("ex02_", "ex03_")))

    def test_wins_over_a_stale_test_report(self):
        state, reason = kit.exercise_state(EX02, "no-such-preset", self.BUILD, "")
        self.assertEqual(state, "failing")
        self.assertTrue(reason.startswith("does not compile: exercises/02_normalize_by_sum.cpp"))


class CrashReasonTest(unittest.TestCase):
    def test_names_a_timeout(self):
        output = "1/5 Test #4: ex02.exercises ...........***Timeout  20.01 sec\n"
        self.assertIn("timed out", kit.crash_reason(output, EX02))

    def test_names_a_segmentation_fault(self):
        output = "1/5 Test #4: ex02.exercises .....***Exception: SegFault  0.12 sec\n"
        self.assertIn("segmentation fault", kit.crash_reason(output, EX02))


class ProgressBarTest(unittest.TestCase):
    def test_shows_the_count_and_a_proportional_bar(self):
        self.assertEqual(kit.progress_bar(0, 5, width=10), "[----------] 0/5")
        self.assertEqual(kit.progress_bar(2, 5, width=10), "[####>-----] 2/5")
        self.assertEqual(kit.progress_bar(5, 5, width=10), "[##########] 5/5")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

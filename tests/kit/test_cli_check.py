#!/usr/bin/env python3
"""tests/kit/test_cli_check.py — what `tools/kit check` says after the build, and the
command line around it: one report per distinct failure, a line per function, the test
that hung, what the code printed, the Next exercise, reset's way back, cut lines."""

import io
import json
import os
import sys
import unittest
from dataclasses import replace
from contextlib import redirect_stdout
from unittest import mock

from cli_testing import ThrowawayKitTest
from kitcli import build, cli, progress, reports, student
from kitcli.terminal import from_here, shorten

NOT_YET = ("exercises/02_fails.cpp: attn::softmax(x) is not implemented yet (replace the "
           "throw with your code)")


def failure(text: str) -> dict:
    """A failure as the verdict stream writes it; its kind, mistake and family, and its
    "alike" key as the kit would say (kit/testing/src/verdicts.cpp): here a mistake's family
    is its name before any parenthesis, what threw is alike whatever it was called with."""
    first = text.split("\n")[0]
    kind = ("not_implemented" if "not implemented yet" in text else
            "threw" if " threw " in first else "mismatch")
    entry = {"kind": kind, "message": first, "text": text, "alike": f"{kind}:{text}",
             "file": "/k/tests/test_02.cpp", "line": 33}
    if kind == "not_implemented":
        entry["alike"] = "not_implemented"
    elif kind == "threw":
        entry["alike"] = "threw:" + first.split(" — called with ")[0]
    elif " — looks like: " in first:
        mistake = first.split(" — looks like: ")[1]
        family = mistake.split(" (")[0]
        entry["comparison"] = {"mistake": mistake, "family": family}
        entry["alike"] = "mistake:" + family
    return entry


def stream(tests: dict, checks: dict = None, groups: list = None) -> str:
    """A finished verdict stream: {"suite.name": [failure texts]}, value cases all, then the
    argument checks `checks` (same form, no case); `groups`, the order of the failures to show
    as the program decided it, or none decided."""
    lines = [{"event": "program", "schema": "attn-kit/test-verdicts", "version": 1}]
    for name, messages in (checks or {}).items():
        lines.append({"event": "test", "test": name, "case": None,
                      "status": "failed" if messages else "passed",
                      "failures": [dict(failure(m), kind="check") for m in messages]})
    for name, messages in tests.items():
        lines.append({"event": "test", "test": name, "case": f"02_x/{name.split('.')[1]}",
                      "status": "failed" if messages else "passed",
                      "failures": [failure(message) for message in messages]})
    lines.append({"event": "end", "tests": len(lines) - 1, "failed": 0, "groups": groups or []})
    return "".join(json.dumps(line) + "\n" for line in lines)


class CheckTest(ThrowawayKitTest):
    def setUp(self):
        super().setUp()
        self.start_work("02")

    def fake_program(self, tests: dict, printed: str = "", checks: dict = None,
                     groups: list = None) -> None:
        """A test program that prints `printed`, then writes `tests` as its verdict stream."""
        data = self.kit.root / "stream.verdicts"
        data.write_text(stream(tests, checks, groups), encoding="utf-8")
        self.fake_test_program("02", f'printf "%b" "{printed}"\n'
                                     f'cp "{data}" "${{2#--attn-verdicts=}}"\nexit 1')

    def check(self, *arguments):
        output = io.StringIO()
        with mock.patch("kitcli.setup.install", return_value=True), \
                mock.patch("kitcli.build.configure_and_build", return_value=(True, True, "")), \
                redirect_stdout(output):
            code = student.check(self.kit, *arguments)
        return code, output.getvalue().splitlines()

    def test_identical_failures_are_reported_once_with_also_for(self):
        wrong_axis = ("softmax(scores, dim): 30 of 36 values differ — looks like: softmax over "
                      "the wrong axis (dim=1 instead of dim={1})\n  case {0}: a matrix (ch03)\n"
                      "  golden: 03_softmax/{0}/weights.npy")
        self.fake_program({"softmax_matrix.cols_notebook": [wrong_axis.format("cols_notebook", 0)],
                           "softmax_matrix.cols_dim_minus2": [wrong_axis.format("cols_dim_minus2",
                                                                                -2)],
                           "softmax_matrix.rows_notebook": [],
                           "softmax.one_logit": [NOT_YET], "softmax.odd_length": [NOT_YET]})
        code, lines = self.check("02")
        self.assertEqual(code, 1)
        self.assertEqual(lines[1:3], ["  ✗ softmax_matrix  2 of 3 cases fail",
                                      "  ✗ softmax         2 of 2 cases fail"])
        # The first failure in full, the mistake named once; the other kind in one line.
        self.assertEqual([line for line in lines if line.startswith("✗ softmax")],
                         ["✗ softmax_matrix.cols_notebook"])
        self.assertEqual(sum("looks like: softmax over the wrong axis" in line
                             for line in lines[:-1]), 1, lines)
        self.assertIn("  also for: softmax_matrix.cols_dim_minus2", lines)
        self.assertIn("1 other failure (`check --all` shows it in full):", lines)
        self.assertIn(f"  ✗ softmax.one_logit: {NOT_YET}", lines)
        self.assertIn("    also for: softmax.odd_length", lines)
        _, everything = self.check("02", None, False, True)
        self.assertEqual([line for line in everything if line.startswith("✗ softmax")],
                         ["✗ softmax_matrix.cols_notebook", "✗ softmax.one_logit"])

    def test_a_filter_does_not_change_the_names(self):
        # Run alone, one_token names the wrong axis; with its sibling, which rules that out,
        # the program takes the name back. `check 02 one_token` says what the whole run says.
        named = ("softmax(scores, dim): 1 of 1 values differ — looks like: softmax over the "
                 "wrong axis (dim=1 instead of dim=0)\n  case one_token: one token")
        unnamed = "softmax(scores, dim): 1 of 1 values differ\n  case one_token: one token"
        alone = self.kit.root / "alone.verdicts"
        alone.write_text(stream({"softmax_matrix.one_token": [named]}), encoding="utf-8")
        whole = self.kit.root / "whole.verdicts"
        whole.write_text(stream({"softmax_matrix.one_token": [unnamed],
                                 "softmax_matrix.notebook": []}), encoding="utf-8")
        self.fake_test_program("02", f'case "$*" in *--gtest_filter=*) data="{alone}";; '
                                     f'*) data="{whole}";; esac\n'
                                     'cp "$data" "${2#--attn-verdicts=}"\nexit 1')
        code, lines = self.check("02", "one_token")
        self.assertEqual(code, 1)
        self.assertFalse([line for line in lines if "looks like" in line], lines)
        self.assertIn("softmax(scores, dim): 1 of 1 values differ", lines)

    def test_the_first_failure_is_cut_to_fit_a_screen(self):
        long = ("softmax(x): 1 of 90 values differ\n  case a: x\n  golden: 02_x/a/w.npy"
                + "\n  row" * 78)
        self.fake_program({"softmax.a": [long]})
        code, lines = self.check("02")
        self.assertLessEqual(len(lines), 40, lines)
        cut = 81 - student.FIRST_FAILURE_LINES  # 81 lines: the headline, case, golden, 78 rows
        self.assertIn(f"  … ({cut} more lines: `check --all`)", lines)

    def test_value_cases_come_before_argument_checks(self):
        self.fake_program({"softmax.one_logit": ["softmax(x): 1 of 3 values differ"]},
                          checks={"SoftmaxTest.RejectsEmptyInput": [
                              "attn::softmax must reject an empty input"]})
        code, lines = self.check("02")
        headers = [line for line in lines if line.startswith("✗ ")]
        self.assertEqual(headers[0], "✗ softmax.one_logit", lines)
        self.assertIn("  ✗ SoftmaxTest.RejectsEmptyInput: attn::softmax must reject an empty "
                      "input", lines)

    def test_the_same_throw_on_other_shapes_is_one_failure(self):
        threw = ('context_vector(inputs, weights) threw std::runtime_error: "Dot: shape '
                 'mismatch." — called with inputs ({}), weights ({},)')
        self.fake_program({"context_vector.notebook": [threw.format("6, 3", 6)],
                           "context_vector.one_token": [threw.format("1, 4", 1)]})
        code, lines = self.check("02")
        self.assertEqual(sum(line.startswith("✗ context_vector.") for line in lines), 1)
        self.assertIn("  also for: context_vector.one_token", lines)

    def test_a_failure_in_one_line_is_its_whole_first_line(self):
        # The case's description, with parentheses of its own, is on a line of its own: the
        # one-line form is the first line whole, the call as the student wrote it.
        count = ("parameter_count(module): got {0}, expected 2,362,368 (must be equal; {1} "
                 "than expected, ×{2})\n  case {3}: GPT-2's attention (ch03.ipynb In [40]): "
                 "qkv_bias=False (the book's count)\n  golden: 22_x/{3}/count.npy")
        self.fake_program({"count.notebook": [count.format("2,360,064", "2,304 fewer", "0.999",
                                                           "notebook")],
                           "count.qkv_bias": [count.format("4,724,736", "2,362,368 more", "2",
                                                           "qkv_bias")]})
        code, lines = self.check("02")
        self.assertIn("  ✗ count.qkv_bias: parameter_count(module): got 4,724,736, expected "
                      "2,362,368 (must be equal; 2,362,368 more than expected, ×2)", lines)
        self.assertIn("  case notebook: GPT-2's attention (ch03.ipynb In [40]): qkv_bias=False "
                      "(the book's count)", lines)

    def test_the_first_group_in_full_then_one_line_per_group(self):
        # Exercise 17: the notebook's parameters do not fit a wrong d_out (a throw), while the
        # hashed cases name the mistake: the program puts the name first (failure_groups).
        threw = ('mha.forward(x) threw attn::shape_error: "W_query has shape (3, 1), the '
                 'module asks for (3, 2)"')
        whole = ("mha.forward(x): 12 of 12 values differ — looks like: whole output_width\n"
                 "  case {0}: x\n  golden: 02_x/{0}/context.npy")
        hashed = [f"output_width_hashed.{name}"
                  for name in ("two_heads", "three_heads", "wide_heads")]
        self.fake_program({"output_width.notebook": [threw],
                           "output_width.recorded_three_heads": [threw],
                           **{name: [whole.format(name.split(".")[1])] for name in hashed}},
                          groups=[hashed, ["output_width.notebook",
                                           "output_width.recorded_three_heads"]])
        code, lines = self.check("02")
        headers = [line for line in lines if line.startswith("✗ output_width")]
        self.assertEqual(headers, ["✗ output_width_hashed.two_heads"], lines)
        self.assertIn("  also for: output_width_hashed.three_heads, "
                      "output_width_hashed.wide_heads", lines)
        self.assertIn(f"  ✗ output_width.notebook: {threw}", lines)
        self.assertIn("    also for: output_width.recorded_three_heads", lines)

    def test_the_group_and_its_case_shown_are_the_programs(self):
        # kit/verdicts.hpp, failure_groups: a group's notebook case is the one shown
        mistake = ("softmax(scores, dim): 3 of 36 values differ — looks like: softmax over the "
                   "wrong axis (dim=1 instead of dim=0)\n  case {0}: x\n"
                   "  golden: 02_x/{0}/weights.npy")
        self.fake_program({f"softmax_matrix.{name}": [mistake.format(name)]
                           for name in ("odd_rows", "rows_notebook_shape", "rows_notebook")},
                          groups=[[f"softmax_matrix.{name}" for name in (
                              "rows_notebook", "odd_rows", "rows_notebook_shape")]])
        code, lines = self.check("02")
        self.assertEqual([line for line in lines if line.startswith("✗ softmax")],
                         ["✗ softmax_matrix.rows_notebook"], lines)
        self.assertIn("  also for: softmax_matrix.odd_rows, softmax_matrix.rows_notebook_shape",
                      lines)

    def test_asan_runs_the_sanitizer_whatever_the_result(self):
        self.fake_program({"softmax.one_logit": []})
        for asked, runs in ((False, 0), (True, 1)):
            with mock.patch("kitcli.student.sanitizer_verdict", return_value=None) as verdict:
                self.check("02", None, asked)
            self.assertEqual(verdict.call_count, runs)
        self.assertIn("--asan", verdict.call_args.args[-1])

    def test_one_function_has_no_summary(self):
        self.fake_program({"softmax.one_logit": [NOT_YET]})
        code, lines = self.check("02")
        self.assertNotIn("cases fail", "\n".join(lines))

    def test_what_the_code_printed_is_kept(self):
        arguments = self.kit.root / "arguments.txt"
        self.fake_program({"softmax.one_logit": [NOT_YET]}, printed="scores: 1 2 3\\n")
        program = self.kit.root / "build" / "bin" / "test_ex02_exercises"
        program.write_text(program.read_text().replace("#!/bin/sh\n",
                                                       f'#!/bin/sh\necho "$@" > "{arguments}"\n'))
        code, lines = self.check("02")
        self.assertIn("Your code printed:", lines)
        self.assertIn("  | scores: 1 2 3", lines)
        self.assertEqual(sum(NOT_YET in line for line in lines), 2)  # the failure, the verdict
        self.assertIn("--attn-quiet", arguments.read_text())  # GoogleTest says nothing

    def test_a_timeout_names_the_test_that_hung_and_keeps_what_was_printed(self):
        self.kit.settings.update(test_timeout_s=1, test_wall_factor=0.5)
        self.fake_test_program("02", 'echo \'{"event": "start", "test": "softmax.one_logit"}\' '
                                     '> "${2#--attn-verdicts=}"\necho "step 1"\nsleep 5')
        code, lines = self.check("02")
        self.assertEqual(code, 1)
        self.assertIn("  | step 1", lines)
        self.assertIn("did not finish in 0.5 s in softmax.one_logit, though within its 1 s of "
                      "CPU time: the machine is busy (try again), or the code waits for "
                      "something", lines[-1])

    def test_a_subset_runs_with_a_gtest_filter_and_says_so(self):
        arguments = self.kit.root / "arguments.txt"
        self.fake_program({"softmax.one_logit": []})
        program = self.kit.root / "build" / "bin" / "test_ex02_exercises"
        program.write_text(program.read_text().replace("#!/bin/sh\n",
                                                       f'#!/bin/sh\necho "$@" > "{arguments}"\n'))
        code, lines = self.check("02", "one_logit")
        self.assertIn("--gtest_filter=*one_logit*", arguments.read_text())
        self.assertIn("(only the tests matching *one_logit*: `tools/kit check 02` runs them all)",
                      lines)


class FunctionSummaryTest(unittest.TestCase):
    """One line per function, its counts in English: "the 1 case passes", not "all 1 cases"."""

    def summary(self, kinds: dict) -> list:
        """kinds: {kind: (cases that pass, cases that fail)}."""
        cases = [reports.TestVerdict(f"{kind}.c{i}", f"02_x/c{i}",
                                     "failed" if i < failing else "passed")
                 for kind, (passing, failing) in kinds.items()
                 for i in range(passing + failing)]
        return student.function_summary(cases)

    def test_one_case_is_singular(self):
        self.assertEqual(self.summary({"softmax": (1, 0), "softmax_matrix": (0, 1)}),
                         ["  ✓ softmax         the 1 case passes",
                          "  ✗ softmax_matrix  1 of 1 case fails"])

    def test_several_cases_are_plural(self):
        self.assertEqual(self.summary({"softmax": (3, 0), "softmax_matrix": (1, 2),
                                       "context_vector": (2, 1)}),
                         ["  ✓ softmax         all 3 cases pass",
                          "  ✗ softmax_matrix  2 of 3 cases fail",
                          "  ✗ context_vector  1 of 3 cases fails"])


class LawGroupingTest(unittest.TestCase):
    """Cases that break the same law are one failure, whatever numbers each one shows."""

    @staticmethod
    def broken(case: str, output: str, numbers: str):
        text = f"the output of token 0 changed ({numbers}): the future leaks in"
        return reports.TestVerdict(f"mha.{case}", f"19_x/{case}", "failed",
                                   (reports.Failure("law", text, text, output=output,
                                                    alike=f"law:{output}"),))

    def test_the_same_law_broken_on_several_cases_is_one_failure(self):
        failed = [self.broken("notebook", "law.causal.context", "0.26, then 0.29"),
                  self.broken("bias", "law.causal.context", "0.08, then -0.21"),
                  self.broken("heads", "law.batch.context", "0.1, then 0.3")]
        groups = student.group_failures(failed)
        self.assertEqual([(case.name, also) for case, also in groups],
                         [("mha.notebook", ["mha.bias"]), ("mha.heads", [])])


class RootCauseTest(unittest.TestCase):
    """A function that fails where one it calls fails too (the test program's "because"):
    the callee is shown first and is the status's reason; the caller's cases are one line."""

    def test_the_callee_comes_first_and_is_the_reason(self):
        heads = "split_heads(projected, num_heads): 12 of 12 values differ — the values misplaced"
        split = reports.TestVerdict("split_heads.notebook", "19_x/notebook", "failed", (
            reports.Failure("mismatch", heads, heads, alike="diagnosis:heads:values_misplaced"),))
        masked = "mha.forward(x): 20 of 24 values differ — looks like: no causal mask"
        because = {"function": "split_heads", "failed": 1, "cases": 1}
        # The program's order (kit/verdicts.hpp, failure_groups): the callee's group first.
        split = replace(split, shown=(0, 0))
        forward = [reports.TestVerdict(f"multi_head_attention.{name}", f"19_x/{name}", "failed",
                                       (reports.Failure("mismatch", masked, masked,
                                                        mistake="no causal mask",
                                                        family="no_causal_mask",
                                                        alike="mistake:no_causal_mask"),),
                                       because=because, shown=(1, place))
                   for place, name in enumerate(("notebook", "three_heads"))]
        with mock.patch.object(student, "screen_width", return_value=200):
            lines = student.failure_screen(forward + [split])
        self.assertEqual([line for line in lines if line.startswith("✗ ")],
                         ["✗ split_heads.notebook"], lines)
        self.assertIn("  ✗ multi_head_attention.notebook: multi_head_attention fails, and so "
                      "does your split_heads, which it calls (1 of 1 case fails): fix "
                      "split_heads first", lines)
        self.assertIn("    also for: multi_head_attention.three_heads", lines)
        state = progress.verdict({"id": "19"}, forward + [split], program_passed=False)
        self.assertEqual(state.reason, heads)


class MemoryErrorSignsTest(unittest.TestCase):
    """When check rebuilds with AddressSanitizer: a crash, or failures that change from run
    to run; not an arithmetic slip (nan or inf from an overflowing exp), a plain wrong answer
    or a hang."""

    def run_of(self, *failures, exit_code=1, timed_out=False):
        """failures: (text, worst), or (text, worst, the recorded mistake it names)."""
        cases = [reports.TestVerdict("softmax_matrix.c%d" % i, "03_softmax/c", "failed",
                                     (reports.Failure("mismatch", text, text, *named,
                                                      worst=worst),))
                 for i, (text, worst, *named) in enumerate(failures)]
        return student.TestRun(build.ProgramEnd(exit_code, timed_out=timed_out),
                               None if exit_code is None or exit_code < 0 else cases, None)

    def test_a_signal_is_a_sign(self):
        self.assertEqual(student.memory_error_signs(self.run_of(exit_code=-11), None),
                         "it crashed")

    def test_a_timeout_is_not(self):
        self.assertIsNone(student.memory_error_signs(self.run_of(exit_code=None,
                                                                 timed_out=True), None))

    def test_nan_where_the_answer_is_finite_is_not(self):
        # an overflowing softmax that no recorded mistake names: arithmetic, not memory
        run = self.run_of(("got nan, expected 0.25", {"got": "nan", "expected": 0.25}))
        self.assertIsNone(student.memory_error_signs(run, run))

    def test_inf_beside_a_named_mistake_is_not(self):
        # the overflowing softmax: inf on large logits, "no max subtracted" named on another
        run = self.run_of(("got inf, expected 0.5", {"got": "inf", "expected": 0.5}),
                          ("got 0.2, expected 0.25", {"got": 0.2, "expected": 0.25},
                           "no max subtracted"))
        self.assertIsNone(student.memory_error_signs(run, run))

    def test_nan_where_the_answer_is_nan_is_not(self):
        run = self.run_of(("got -inf, expected nan", {"got": "-inf", "expected": "nan"}))
        self.assertIsNone(student.memory_error_signs(run, run))

    def test_a_throw_the_program_says_points_to_garbage_is_a_sign(self):
        # C++ decides it (points_to_garbage, kit/student_code.hpp); the text is not read
        line = 'forward(x) threw std::length_error: "cannot create std::vector larger"'
        for garbage, sign in ((True, "it threw an error with sizes no input has, as code "
                                     "that read garbage does"), (False, None)):
            run = student.TestRun(build.ProgramEnd(1), [reports.TestVerdict(
                "forward.notebook", "16_x/notebook", "failed",
                (reports.Failure("threw", line, line, points_to_garbage=garbage),))], None)
            self.assertEqual(student.memory_error_signs(run, run), sign)

    def test_results_that_change_between_runs_are_a_sign(self):
        first = self.run_of(("got 0.1, expected 0.25", {"got": 0.1, "expected": 0.25}))
        again = self.run_of(("got -1e+15, expected 0.25", {"got": -1e15, "expected": 0.25}))
        self.assertEqual(student.memory_error_signs(first, again),
                         "two runs gave different results")
        self.assertIsNone(student.memory_error_signs(first, first))


class NextExerciseTest(ThrowawayKitTest):
    def test_without_a_number_the_first_exercise_not_known_done_is_chosen(self):
        self.start_work("01")  # the lab's report of 01 shows it done; written after the edit
        report = self.kit.root / "build" / "reports" / "ex01.exercises.verdicts"
        stub = self.kit.root / self.ex("01")["stub"]
        os.utime(report, (os.path.getmtime(stub) + 10,) * 2)
        output = io.StringIO()
        with redirect_stdout(output):
            ex = student.chosen(self.kit, None)
        self.assertEqual(ex["id"], "02")
        self.assertIn("exercise 02 is Next", output.getvalue())

    def test_a_file_saved_after_its_report_is_not_known_done(self):
        self.start_work("01")
        report = self.kit.root / "build" / "reports" / "ex01.exercises.verdicts"
        stub = self.kit.root / self.ex("01")["stub"]
        os.utime(report, (os.path.getmtime(stub) - 10,) * 2)
        with redirect_stdout(io.StringIO()):
            self.assertEqual(student.chosen(self.kit, None)["id"], "01")


class CommandLineTest(ThrowawayKitTest):
    def run_cli(self, *arguments):
        output = io.StringIO()
        with mock.patch("kitcli.cli.Kit.load", return_value=self.kit), redirect_stdout(output):
            code = cli.main(list(arguments))
        return code, output.getvalue()

    def test_the_kit_alone_prints_the_help(self):
        code, text = self.run_cli()
        self.assertEqual(code, 0)
        self.assertIn("usage: tools/kit", text)
        self.assertIn("check", text)

    def test_setup_says_everything_is_installed(self):
        with mock.patch("kitlib.packages.missing_packages", return_value=[]):
            code, text = self.run_cli("setup")
        self.assertEqual(code, 0)
        self.assertIn("everything is installed", text)

    def test_commands_are_printed_for_the_folder_the_student_is_in(self):
        here = os.getcwd()
        self.addCleanup(os.chdir, here)
        os.chdir(self.kit.root / "exercises")
        self.assertEqual(from_here(self.kit.root, "exercises/02_fails.cpp"), "02_fails.cpp")
        code, text = self.run_cli("hint", "02")
        self.assertIn("More: `../tools/kit hint 02 2`", text)

    @unittest.skipUnless(os.path.exists("/usr/bin/git"), "git is not installed")
    def test_reset_says_how_to_get_the_students_version_back(self):
        self.commit_the_kit()
        self.start_work("02")
        code, text = self.run_cli("reset", "02")
        [backup] = (self.kit.root / ".kit" / "backups").iterdir()
        self.assertIn(f"  to get it back: cp .kit/backups/{backup.name} exercises/02_fails.cpp",
                      text)


class ShortenTest(unittest.TestCase):
    def test_a_cut_line_keeps_the_named_mistake(self):
        line = ("  ✗ 03 softmax  failing: softmax(scores, dim): 30 of 36 values differ; worst "
                "at [4, 1]: got 0.25, expected 0.0625 (1.2e+06× the tolerance) — looks like: "
                "softmax over the wrong axis")
        cut = shorten(line, 80)
        self.assertEqual(len(cut), 80)
        self.assertTrue(cut.endswith("… looks like: softmax over the wrong axis"), cut)
        self.assertTrue(cut.startswith("  ✗ 03 softmax  failing: softmax("), cut)

    def test_a_cut_line_keeps_the_shape_of_the_error(self):
        line = ("  ✗ 13 causal_softmax  failing: causal_softmax(scores): 9 of 36 values differ; "
                "worst at [0, 1]: got 0.4, expected 0 — weights above the diagonal: the future "
                "leaks in")
        cut = shorten(line, 80)
        self.assertEqual(len(cut), 80)
        self.assertTrue(cut.endswith("… weights above the diagonal: the future leaks in"), cut)
        self.assertTrue(cut.startswith("  ✗ 13 causal_softmax  failing:"), cut)

    def test_other_lines_lose_their_end(self):
        self.assertEqual(shorten("x" * 100, 10), "x" * 9 + "…")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

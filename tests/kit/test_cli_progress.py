#!/usr/bin/env python3
"""tests/kit/test_cli_progress.py — an exercise's state as `tools/kit status` shows it.

Done means grading-ready: the ctest test passed, the report exists, at least one value
case ran and all passed, nothing was skipped. A compile error wins over a stale program;
a crash, a timeout or a missing program is named from ctest's JUnit file of that very
exercise, whatever happened to the others.
"""

import io
import os
import shutil
import subprocess
import sys
import time
import unittest
from contextlib import redirect_stdout
from unittest import mock

from cli_testing import CTEST_LAB, ThrowawayKitTest
from kitcli import build, heatmap, progress, reports, student
from kitcli.terminal import BuildProgress, progress_bar

NO_BUILD_OUTPUT = ""
COMPILE_ERROR = ("[3/40] Building CXX object ...\n"
                 "FAILED: CMakeFiles/ex02_exercises.dir/exercises/02_fails.cpp.o \n"
                 "/usr/bin/c++ -Werror=return-type -c /k/exercises/02_fails.cpp\n"
                 "/usr/include/xtensor/xmath.hpp:10:1: error: no match for 'operator/'\n"
                 "/k/exercises/02_fails.cpp:22:36: error: expected ';' before 'throw'\n")


class ExerciseStateTest(ThrowawayKitTest):
    def setUp(self):
        super().setUp()
        self.start_every_exercise()

    def state(self, ex_id, build_output=NO_BUILD_OUTPUT, ctest_results=None):
        return progress.exercise_state(
            self.kit, self.ex(ex_id), "default", build_output,
            self.ctest_results if ctest_results is None else ctest_results)

    def test_every_value_case_passed_is_done(self):
        self.assertEqual(self.state("01"), (progress.DONE, ""))

    def test_a_failure_names_the_students_own_mistake_first(self):
        self.assertEqual(self.state("02"), (
            progress.FAILING, "softmax(scores, -1): 4 of 6 values differ; worst at [0, 1]: "
                              "got nan, expected 0.25 (nan or inf is never within tolerance) — "
                              "looks like: softmax over the wrong axis (dim=0 instead of dim=-1)"))

    @unittest.skipUnless(shutil.which("cppcheck"), "cppcheck is not installed")
    def test_a_variable_read_before_it_is_set_is_named_by_its_line_first(self):
        self.start_work("02", "float total_of(const float* s, int n) {\n"
                              "    float total;\n"
                              "    for (int i = 0; i < n; ++i) total += s[i];\n"
                              "    return total;\n"
                              "}\n")
        name, reason = self.state("02")
        self.assertEqual(name, progress.FAILING)
        self.assertRegex(reason, r"^exercises/02_fails\.cpp:\d+: `total` is read before it is "
                                 r"set; softmax\(scores, -1\): ")

    def test_a_crash_names_its_test_and_signal_from_the_stream(self):
        self.assertEqual(self.state("03"), (
            progress.FAILING, "crashed in softmax_matrix.rows_notebook with a segmentation "
                              "fault (an index past the end of a tensor?)"))

    def test_an_abort_is_named(self):
        state = self.state("04")
        self.assertEqual(state.name, progress.FAILING)
        self.assertIn("aborted (SIGABRT", state.reason)

    def test_a_timeout_is_named_from_the_time_ctest_recorded(self):
        # ctest's TIMEOUT is the wall-clock backstop: the CPU limit would have sent SIGXCPU
        self.assertEqual(self.state("05"), (
            progress.FAILING, "did not finish in 3 s in softmax_matrix.rows_notebook, though "
                              "within its 1 s of CPU time: the machine is busy (try again), or "
                              "the code waits for something"))

    def test_the_cpu_limit_is_an_endless_loop(self):
        self.assertEqual(progress.crashed("SIGXCPU", "softmax.one_logit", self.kit),
                         "used up its 1 s of CPU time in softmax.one_logit (an endless loop?)")

    def test_its_own_missing_program_is_not_built(self):
        self.assertEqual(self.state("06"), (progress.FAILING, "its test program was not built"))

    def test_only_skipped_tests_is_not_done(self):
        state = self.state("07")
        self.assertEqual(state.name, progress.SKIPPED)
        self.assertEqual(state.reason, "fused_attention_gpu.notebook was skipped; "
                                       "a skipped test never counts as done")

    def test_passing_value_cases_beside_a_skipped_one_is_not_done(self):
        self.assertEqual(self.state("10").name, progress.SKIPPED)

    def test_passing_validation_tests_alone_is_not_done(self):
        self.assertEqual(self.state("08"), (
            progress.FAILING, "no value case ran: its tests only check argument validation"))

    def test_an_exit_before_the_report_is_named(self):
        state = self.state("09")
        self.assertEqual(state.name, progress.FAILING)
        self.assertEqual(state.reason, "its test program stopped in softmax_matrix.rows_notebook "
                                       "before its tests finished (does the code call exit()?)")

    def test_a_program_ctest_never_ran_did_not_run(self):
        self.assertEqual(self.state("06", ctest_results={}),
                         (progress.FAILING, "did not run (ctest has no test ex06.exercises)"))

    def test_a_failed_program_whose_tests_all_passed_is_not_done(self):
        cases = reports.read_verdicts(CTEST_LAB / "reports" / "ex01.exercises.verdicts").tests
        state = progress.verdict(self.ex("01"), cases, program_passed=False)
        self.assertEqual(state.name, progress.FAILING)
        self.assertIn("`tools/kit check 01`", state.reason)

    def test_a_gpu_exercise_where_the_build_has_no_gpu_track_is_skipped(self):
        (self.kit.root / "build" / "CMakeCache.txt").write_text(
            "ATTN_GPU_BACKEND:INTERNAL=OFF\n", encoding="utf-8")
        state = progress.exercise_state(self.kit, dict(self.ex("01"), gpu=True), "default",
                                        NO_BUILD_OUTPUT, self.ctest_results)
        self.assertEqual(state.name, progress.SKIPPED)
        self.assertIn("libthrust-dev", state.reason)
        self.assertEqual(self.state("01"), (progress.DONE, ""))  # not on the GPU track

    def test_a_gpu_exercise_done_on_the_cpu_with_host_only_device_code_is_not_done(self):
        gpu_exercise = dict(self.ex("01"), gpu=True)
        passing = progress.exercise_state(self.kit, gpu_exercise, "default", NO_BUILD_OUTPUT,
                                          self.ctest_results)
        self.assertEqual(passing, (progress.DONE, ""))
        (self.kit.root / gpu_exercise["stub"]).write_text(
            "#include <vector>\nstruct Row {\n"
            "    ATTN_HOST_DEVICE void operator()(long row) const {\n"
            "        std::vector<float> sums(8);\n    }\n};\n", encoding="utf-8")
        state = progress.exercise_state(self.kit, gpu_exercise, "default", NO_BUILD_OUTPUT,
                                        self.ctest_results)
        self.assertEqual(state.name, progress.FAILING)
        self.assertIn("device code nvcc would refuse, line 4", state.reason)
        self.assertIn("std::vector", state.reason)

    def test_the_cuda_builds_result_of_a_gpu_exercise_is_shown_where_one_ran(self):
        gpu_exercise = dict(self.ex("01"), gpu=True)
        self.assertEqual(progress.cuda_result(self.kit, gpu_exercise), "")  # never ran there
        shutil.copytree(self.kit.root / "build" / "reports",
                        self.kit.root / "build-cuda" / "reports")
        self.assertEqual(progress.cuda_result(self.kit, gpu_exercise),
                         "CUDA (build-cuda/): done")
        self.assertEqual(progress.cuda_result(self.kit, self.ex("01")), "")

    def test_a_cuda_run_without_a_device_is_shown_skipped(self):
        verdicts = build.verdicts_path(self.kit, "cuda", self.ex("01"))
        verdicts.parent.mkdir(parents=True)
        verdicts.write_text('{"event":"program","program":"test_ex01_exercises","schema":'
                            '"attn-kit/test-verdicts","version":1}\n'
                            '{"event":"end","failed":0,"tests":13}\n', encoding="utf-8")
        self.assertEqual(progress.cuda_result(self.kit, dict(self.ex("01"), gpu=True)),
                         "CUDA (build-cuda/): skipped, no CUDA device where it last ran")

    def test_a_compile_error_wins_over_a_stale_report(self):
        state = self.state("02", build_output=COMPILE_ERROR)
        self.assertEqual(state, (progress.FAILING, "does not compile: exercises/02_fails.cpp:"
                                                   "22:36: error: expected ';' before 'throw'"))


class NotStartedTest(ThrowawayKitTest):
    def test_the_stub_as_shipped_is_not_started(self):
        state = progress.exercise_state(self.kit, self.ex("02"), "default", NO_BUILD_OUTPUT,
                                        self.ctest_results)
        self.assertEqual(state, (progress.NOT_STARTED, ""))


class CompileErrorTest(ThrowawayKitTest):
    def test_prefers_the_error_in_the_students_file(self):
        self.assertEqual(build.compile_error(self.ex("02"), COMPILE_ERROR),
                         "exercises/02_fails.cpp:22:36: error: expected ';' before 'throw'")

    def test_reports_a_link_error(self):
        output = ("FAILED: bin/test_ex02_exercises \n"
                  "/usr/bin/ld: test_02.cpp.o: undefined reference to `attn::softmax'\n")
        self.assertIn("undefined reference", build.compile_error(self.ex("02"), output))

    def test_reports_a_function_defined_twice(self):
        output = ("FAILED: bin/test_ex02_exercises \n"
                  "/usr/bin/ld: libex02.a(02.cpp.o): multiple definition of `attn::softmax'\n")
        self.assertIn("multiple definition", build.compile_error(self.ex("02"), output))

    def test_ignores_other_exercises_failures(self):
        self.assertIsNone(build.compile_error(self.ex("02"),
                                              COMPILE_ERROR.replace("ex02_", "ex03_")))


class StatusOutputTest(ThrowawayKitTest):
    """`tools/kit status` end to end, with the build and ctest replaced by the lab's run."""

    def status_output(self):
        ctest = build.CtestRun(8, "", self.ctest_results)
        output = io.StringIO()
        with mock.patch("kitcli.setup.install", return_value=True), \
                mock.patch("kitcli.build.configure", return_value=(True, "")), \
                mock.patch("kitcli.build.configure_and_build",
                           return_value=(True, False, "")) as self.built, \
                mock.patch("kitcli.build.run_ctest", return_value=ctest) as self.ran, \
                redirect_stdout(output):
            self.assertEqual(student.status(self.kit), 0)
        return output.getvalue().splitlines()

    def test_untouched_stubs_are_not_started_without_a_build(self):
        lines = self.status_output()
        self.built.assert_not_called()
        self.ran.assert_not_called()
        self.assertIn("  · 01 passes          not started", lines)
        self.assertEqual(lines[-1], "0/10 exercises done")

    def test_only_the_touched_exercises_are_built_and_run(self):
        self.start_work("01")
        self.start_work("03")
        self.status_output()
        self.assertEqual(self.built.call_args.args[2:],
                         ("test_ex01_exercises", "test_ex03_exercises"))
        self.assertEqual(self.ran.call_args.args[-2:], ("-R", r"^ex(01|03)\.exercises$"))

    def test_one_line_each_the_progress_bar_and_next(self):
        for ex_id in ("01", "06", "07"):
            self.start_work(ex_id)
        lines = self.status_output()
        self.assertIn("  ✓ 01 passes          done", lines)
        self.assertIn("  · 02 fails           not started", lines)
        self.assertIn("  ✗ 06 is_not_built    failing: its test program was not built", lines)
        self.assertIn("  · 07 only_skips      skipped: fused_attention_gpu.notebook was skipped; "
                      "a skipped test never counts as done", lines)
        self.assertIn("  [##>-----------------] 1/10", lines)
        self.assertIn("Next: exercise 02, The lab's fails exercise (lab.ipynb In [1])", lines)
        self.assertIn("      edit exercises/02_fails.cpp; `tools/kit check 02` explains the "
                      "failures, `tools/kit hint 02` gives a hint.", lines)
        self.assertEqual(lines[-1], "1/10 exercises done")


class CheckOutputTest(ThrowawayKitTest):
    """`tools/kit check NN` runs the program itself and judges it by the same rules."""

    def check_output(self, ex_id):
        output = io.StringIO()
        with mock.patch("kitcli.setup.install", return_value=True), \
                mock.patch("kitcli.build.configure_and_build", return_value=(True, True, "")), \
                redirect_stdout(output):
            code = student.check(self.kit, ex_id)
        return code, output.getvalue().splitlines()

    def fake_program_writing_the_labs_report(self, ex_id, console_line):
        report = CTEST_LAB / "reports" / f"ex{ex_id}.exercises.verdicts"
        self.fake_test_program(ex_id, f'cp "{report}" "${{2#--attn-verdicts=}}"\n'
                                      f'echo "{console_line}"')

    def test_done_names_the_next_exercise(self):
        self.start_work("01")
        self.fake_program_writing_the_labs_report("01", "[  PASSED  ] 3 tests.")
        code, lines = self.check_output("01")
        self.assertEqual(code, 0)
        self.assertNotIn("[  PASSED  ] 3 tests.", lines)  # GoogleTest's words are not the kit's
        self.assertEqual(lines[-1], "✓ Exercise 01 done — next: `tools/kit check 02` "
                                    "(exercises/02_fails.cpp)")

    def test_done_names_the_first_exercise_not_done(self):
        # 02 done before 01 was started: next is 01, the first not done, not 03.
        self.start_work("02")
        self.fake_test_program("02", f'cp "{CTEST_LAB / "reports" / "ex01.exercises.verdicts"}" '
                                     '"${2#--attn-verdicts=}"')
        code, lines = self.check_output("02")
        self.assertEqual(code, 0)
        self.assertEqual(lines[-1], "✓ Exercise 02 done — next: `tools/kit check 01` "
                                    "(exercises/01_passes.cpp)")

    def test_only_skipped_tests_is_not_done(self):
        self.start_work("07")
        self.fake_program_writing_the_labs_report("07", "[  SKIPPED ] 1 test.")
        code, lines = self.check_output("07")
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "· Exercise 07 is not done yet (exercises/07_only_skips.cpp): "
                                    "fused_attention_gpu.notebook was skipped; a skipped test "
                                    "never counts as done. Stuck? `tools/kit hint 07`")

    def test_a_segmentation_fault_is_named(self):
        self.fake_test_program("03", "kill -SEGV $$")
        code, lines = self.check_output("03")
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "✗ exercises/03_segfaults.cpp: crashed with a segmentation "
                                    "fault (an index past the end of a tensor?). Stuck? "
                                    "`tools/kit hint 03`")


class ShowingOrderTest(unittest.TestCase):
    """The reason is the failure the program shows first (kit/verdicts.hpp, failure_groups,
    tested in tests/kit/test_verdicts_order.cpp), not the first the tests ran."""

    @staticmethod
    def named(name, case, shown):
        failure = reports.Failure("mismatch", f"{case}: got 1", f"{case}: got 1",
                                  mistake="softmax over the columns (dim=0)")
        return reports.TestVerdict(name, f"13_x/{case}", "failed", (failure,), shown=shown)

    def test_the_reason_is_the_failure_the_program_puts_first(self):
        cases = [self.named("w.odd_shape", "odd_shape", (0, 1)),
                 self.named("w.notebook_shape", "notebook_shape", (0, 2)),
                 self.named("w.notebook", "notebook", (0, 0))]
        state = progress.verdict({"id": "13"}, cases, program_passed=False)
        self.assertEqual(state, (progress.FAILING, "notebook: got 1"))

    def test_a_stream_cut_short_is_read_in_reading_order(self):
        cases = [self.named("w.odd_shape", "odd_shape", None),
                 self.named("w.notebook", "notebook", None)]
        state = progress.verdict({"id": "13"}, cases, program_passed=False)
        self.assertEqual(state, (progress.FAILING, "odd_shape: got 1"))


class FoldedThrowTest(unittest.TestCase):
    """One exception is one failure: the argument checks it kept from running are folded."""

    @staticmethod
    def case(name, value_case, kind, message="x threw std::runtime_error: \"bad\""):
        return reports.TestVerdict(name, value_case, "failed",
                                   (reports.Failure(kind, message, message),))

    def test_checks_whose_valid_call_threw_fold_into_the_value_cases_throw(self):
        threw = self.case("heads.notebook", "21/notebook", "threw")
        unreached = [self.case(f"heads_checks.{n}", None, "check_unreached") for n in "abc"]
        real = self.case("heads_checks.d", None, "check", "x returned, but it must throw")
        shown, folded = progress.fold_unreached_checks([threw, *unreached, real])
        self.assertEqual(shown, [threw, real])
        self.assertEqual(folded, unreached)

    def test_without_a_throwing_value_case_an_unreached_check_is_news(self):
        failed = [self.case("heads.notebook", "21/notebook", "mismatch"),
                  self.case("heads_checks.a", None, "check_unreached")]
        self.assertEqual(progress.fold_unreached_checks(failed), (failed, []))


class WatchTest(ThrowawayKitTest):
    """`tools/kit watch` redraws the screen for each check, its verdict on top."""

    def test_the_verdict_comes_first_and_the_screen_is_cleared_on_a_terminal(self):
        def check(kit, number):
            print(f"Exercise {number}: fails")
            print("✗ fails.notebook")
            print(f"✗ Exercise {number} is not done yet: got 2, expected 1")

        with mock.patch("kitcli.student.check", side_effect=check):
            lines = student.watched_check(self.kit, self.ex("02"))
        self.assertRegex(lines[0], r"^✗ Exercise 02 is not done yet: got 2, expected 1  "
                                   r"\[\d\d:\d\d:\d\d\]$")
        self.assertEqual(lines[2:], ["Exercise 02: fails", "✗ fails.notebook"])
        for terminal, first in ((True, "\033[H\033[2J\033[3J"), (False, "-" * 72)):
            output = io.StringIO()
            with mock.patch.object(output, "isatty", return_value=terminal), \
                    redirect_stdout(output):
                student.redraw(lines, "Watching: save to check again.")
            printed = output.getvalue().splitlines()
            self.assertEqual(printed[0], first)
            self.assertEqual(printed[1], lines[0])
            self.assertEqual(printed[-1], "Watching: save to check again.")

    def test_on_a_terminal_the_checks_pictures_keep_their_colour(self):
        def check(kit, number):
            print("in colour" if heatmap.colour_wanted() else "plain")
            print(f"✗ Exercise {number} is not done yet")

        for terminal, said in ((True, "in colour"), (False, "plain")):
            screen = io.StringIO()
            environment = {name: value for name, value in os.environ.items()
                           if name != "NO_COLOR"}
            with mock.patch.object(screen, "isatty", return_value=terminal), \
                    mock.patch.dict(os.environ, dict(environment, TERM="xterm"), clear=True), \
                    mock.patch("kitcli.student.check", side_effect=check), redirect_stdout(screen):
                lines = student.watched_check(self.kit, self.ex("02"))
            self.assertEqual(lines[2:], [said])


class BackgroundBuildTest(ThrowawayKitTest):
    """status's head start: the kit's own libraries and the first exercise's program built in
    the background at a terminal, waited for by the next build, never left behind by a
    script."""

    def pid_file(self):
        return build.build_dir(self.kit, "default") / build.BACKGROUND_PID

    def test_a_script_starts_no_background_build(self):
        with mock.patch.dict(os.environ, {"ATTN_BACKGROUND_BUILD": "0"}):
            self.assertFalse(build.start_kit_build(self.kit, self.ex("01")))
        self.assertFalse(self.pid_file().exists())

    def test_at_a_terminal_it_starts_detached_once(self):
        started = mock.Mock(pid=4242)
        with mock.patch.dict(os.environ, {"ATTN_BACKGROUND_BUILD": "1"}), \
                mock.patch.object(build.subprocess, "Popen", return_value=started) as popen:
            self.assertTrue(build.start_kit_build(self.kit, self.ex("01")))
            self.assertEqual(self.pid_file().read_text(encoding="utf-8"), "4242\n")
            self.assertTrue(popen.call_args.kwargs["start_new_session"])
            script = popen.call_args.args[0][-1]
            # The kit's part and the first exercise's program, the student's file as it is.
            self.assertRegex(script, r"--target kit_core .* test_ex01_exercises; times$")
            (build.build_dir(self.kit, "default") / "libkit_testing.a").touch()
            self.assertFalse(build.start_kit_build(self.kit, self.ex("01")))  # built already
        self.assertEqual(popen.call_count, 1)

    def test_the_next_build_waits_for_it(self):
        running = subprocess.Popen(["sh", "-c", "sleep 1; : cmake --build --preset default"])
        self.addCleanup(running.wait)
        self.pid_file().write_text(f"{running.pid}\n", encoding="utf-8")
        deadline = time.monotonic() + 10  # a loaded machine may take a while to exec sh
        while build.background_build_pid(self.kit) is None and time.monotonic() < deadline:
            self.pid_file().write_text(f"{running.pid}\n", encoding="utf-8")
            time.sleep(0.01)
        with redirect_stdout(io.StringIO()) as said:
            build.wait_for_kit_build(self.kit, "default")
        self.assertIsNotNone(running.poll(), "it returned while the build still ran")
        self.assertIn("Waiting for the kit's own build", said.getvalue())
        self.assertFalse(self.pid_file().exists())

    def test_a_pid_file_of_another_process_is_stale(self):
        self.pid_file().write_text(f"{os.getpid()}\n", encoding="utf-8")  # python, not cmake
        self.assertIsNone(build.background_build_pid(self.kit))
        self.assertFalse(self.pid_file().exists())


class BuildProgressTest(unittest.TestCase):
    def test_the_time_left_is_this_builds_own_pace(self):
        now = [100.0]
        shown = BuildProgress(clock=lambda: now[0])
        now[0] += 2
        self.assertEqual(shown.line(2, 40), "  building: [#>------------------] 2/40 steps, 2 s")
        now[0] += 8
        self.assertEqual(shown.line(10, 40),
                         "  building: [#####>--------------] 10/40 steps, 10 s, about 30 s left")
        self.assertEqual(shown.line(40, 40), "  building: [####################] 40/40 steps, 10 s")


class ProgressBarTest(unittest.TestCase):
    def test_shows_the_count_and_a_proportional_bar(self):
        self.assertEqual(progress_bar(0, 5, width=10), "[----------] 0/5")
        self.assertEqual(progress_bar(2, 5, width=10), "[####>-----] 2/5")
        self.assertEqual(progress_bar(5, 5, width=10), "[##########] 5/5")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

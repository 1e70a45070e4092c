#!/usr/bin/env python3
"""tests/kit/test_cli_diagnose.py — the student's first error, warnings and memory errors,
read from what g++ 12, ninja and AddressSanitizer really printed (fixtures/compiler/,
recorded by its record.sh from the files in fixtures/students/; fixtures/sanitizers/)."""

import sys
import unittest
from pathlib import Path
from types import SimpleNamespace

from cli_testing import ThrowawayKitTest
from kitcli import build, diagnose

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXERCISES = {"01": {"id": "01", "stub": "exercises/01_dot_scores.cpp",
                    "header": "include/attn/simple_attention.hpp"},
             "02": {"id": "02", "stub": "exercises/02_normalize_by_sum.cpp"},
             "03": {"id": "03", "stub": "exercises/03_softmax.cpp"},
             "16": {"id": "16", "stub": "exercises/16_multi_head_wrapper.cpp"},
             "22": {"id": "22", "stub": "exercises/22_gpt2_sizing.cpp"}}


def recorded(name: str) -> str:
    return (FIXTURES / "compiler" / f"{name}.log").read_text(encoding="utf-8")


def as_given(path: str) -> str:
    return path


class FirstErrorTest(unittest.TestCase):
    def first(self, name):
        return diagnose.first_error(EXERCISES[name[:2]], recorded(name))

    def rendered(self, name):
        return diagnose.render_error(None, EXERCISES[name[:2]], self.first(name), as_given)

    def test_printing_a_tensor_without_xio_says_which_header_to_add(self):
        lines = self.rendered("01_dot_scores.prints_a_tensor")
        self.assertEqual(lines[0], "exercises/01_dot_scores.cpp:18:28: error: no match for "
                                   "‘operator<<’ (operand types are ‘std::basic_ostream<char>’ "
                                   "and ‘const attn::Vector’)")
        self.assertEqual(lines[1], "   18 |     std::cout << \"query: \" << query << '\\n';")
        self.assertTrue(lines[2].strip().startswith("|"), lines[2])  # the caret line
        self.assertIn("  note: ‘attn::Vector’ is not derived from "
                      "‘std::basic_string_view<_CharT, _Traits>’", lines)
        self.assertIn("add `#include <xtensor/xio.hpp>`", lines[-1])
        self.assertLess(len(lines), 8)  # not g++'s forty candidates

    def test_the_one_line_of_status_says_it_too(self):
        line = diagnose.one_line(EXERCISES["01"], self.first("01_dot_scores.prints_a_tensor"))
        self.assertTrue(line.startswith("exercises/01_dot_scores.cpp:18:28: error: no match"))
        self.assertTrue(line.endswith("— add `#include <xtensor/xio.hpp>`"))

    def test_a_type_mismatch_names_xtensors_types_as_the_student_wrote_them(self):
        lines = self.rendered("01_dot_scores.type_mismatch")
        self.assertEqual(lines[0], "exercises/01_dot_scores.cpp:18:28: error: cannot convert "
                                   "‘xt::xview<const attn::Matrix&, const long int, "
                                   "xt::xall<long unsigned int> >’ to ‘float’ in initialization")
        self.assertIn("float row = xt::row(inputs, i);", lines[1])
        self.assertIn(diagnose.EXPRESSION_ADVICE, lines)  # the likely fix, after the error

    def test_a_long_expression_type_is_cut_to_its_kind(self):
        message = ("cannot convert ‘xt::xfunction<xt::detail::divides, const xt::xfunction<"
                   "xt::math::exp_fun, const attn::Matrix&>, xt::xreducer<xt::xreducer_functors<"
                   "xt::detail::plus, xt::const_value<float> >, const attn::Matrix&> >’ to "
                   "‘float’")
        self.assertEqual(diagnose.readable(message),
                         "cannot convert ‘xt::xfunction<…>’ to ‘float’")

    def test_a_missing_semicolon_points_before_the_error(self):
        lines = self.rendered("01_dot_scores.missing_semicolon")
        self.assertEqual(lines[0], "exercises/01_dot_scores.cpp:16:5: error: expected ‘,’ or "
                                   "‘;’ before ‘for’")
        self.assertIn("A `;` is missing", lines[-1])

    def test_an_undefined_reference_names_the_missing_function(self):
        lines = self.rendered("01_dot_scores.signature_differs")
        self.assertEqual(lines[0], "link error: undefined reference to attn::dot_scores("
                                   "attn::Matrix const&, attn::Vector const&)")
        self.assertIn("No file defines attn::dot_scores exactly as the header declares it",
                      lines[1])
        self.assertIn("include/attn/simple_attention.hpp", lines[1])

    def test_the_compiler_command_and_ninjas_lines_are_left_out(self):
        for name in ("01_dot_scores.prints_a_tensor", "01_dot_scores.signature_differs"):
            text = diagnose.failed_steps(recorded(name), EXERCISES["01"])
            self.assertNotIn("FAILED:", text)
            self.assertNotIn("/usr/bin/c++", text)
            self.assertNotIn("ninja:", text)

    def test_a_successful_build_has_no_error(self):
        self.assertIsNone(self.first("02_normalize_by_sum.sign_compare"))
        self.assertIsNone(build.compile_error(EXERCISES["02"],
                                              recorded("02_normalize_by_sum.sign_compare")))

    def test_an_error_in_a_header_caused_by_the_students_line_points_at_it(self):
        output = ("FAILED: CMakeFiles/ex03_exercises.dir/exercises/03_softmax.cpp.o \n"
                  "/usr/bin/c++ -c /k/exercises/03_softmax.cpp\n"
                  "In file included from /k/exercises/03_softmax.cpp:17:\n"
                  "/usr/include/xtensor/xmath.hpp: In instantiation of ‘auto xt::sum()’:\n"
                  "/k/exercises/03_softmax.cpp:25:20:   required from here\n"
                  "/usr/include/xtensor/xmath.hpp:10:1: error: no match for ‘operator/’\n")
        error = diagnose.first_error(EXERCISES["03"], output)
        self.assertEqual(error.required_from, ("/k/exercises/03_softmax.cpp", 25, 20))


class WarningsTest(ThrowawayKitTest):
    """Warnings are said by the build that compiled the file and remembered for the builds
    that had nothing to do, as long as the file is unchanged."""

    def setUp(self):
        super().setUp()
        self.ex02 = dict(self.ex("02"), stub=EXERCISES["02"]["stub"])
        (self.kit.root / self.ex02["stub"]).write_text("// the student's file\n")

    def test_the_warning_of_the_students_file_is_found(self):
        [warning] = diagnose.student_warnings(self.ex02,
                                              recorded("02_normalize_by_sum.sign_compare"))
        self.assertEqual(diagnose.render_warning(self.ex02, warning, as_given), [
            "exercises/02_normalize_by_sum.cpp:15:23: warning: comparison of integer expressions "
            "of different signedness: ‘int’ and ‘xt::xcontainer<attn::Vector >::size_type’ "
            "[-Wsign-compare]",
            "   15 |     for (int i = 0; i < scores.size(); ++i) {",
            "      |                     ~~^~~~~~~~~~~~~~~"])

    def test_a_no_op_build_shows_the_remembered_warnings(self):
        diagnose.remember_warnings(self.kit, self.ex02,
                                   recorded("02_normalize_by_sum.sign_compare"))
        self.assertEqual(len(diagnose.remember_warnings(self.kit, self.ex02,
                                                        "ninja: no work to do.")), 1)

    def test_a_changed_file_forgets_them(self):
        diagnose.remember_warnings(self.kit, self.ex02,
                                   recorded("02_normalize_by_sum.sign_compare"))
        (self.kit.root / self.ex02["stub"]).write_text("// fixed\n")
        self.assertEqual(diagnose.remember_warnings(self.kit, self.ex02,
                                                    "ninja: no work to do."), [])

    def test_a_clean_compile_forgets_them(self):
        diagnose.remember_warnings(self.kit, self.ex02,
                                   recorded("02_normalize_by_sum.sign_compare"))
        clean = "[1/2] Building CXX object CMakeFiles/ex02_exercises.dir/exercises/02_x.cpp.o\n"
        self.assertEqual(diagnose.remember_warnings(self.kit, self.ex02, clean), [])

    def test_the_background_builds_compile_says_them_until_a_check_kept_its_own(self):
        """status's background build compiled the file (build.start_kit_build), the first
        check had nothing to compile: that compile's warnings are the file's."""
        background = recorded("02_normalize_by_sum.sign_compare")
        self.assertEqual(len(diagnose.remember_warnings(self.kit, self.ex02,
                                                        "ninja: no work to do.", background)), 1)
        (self.kit.root / self.ex02["stub"]).write_text("// fixed\n")
        clean = "[1/2] Building CXX object CMakeFiles/ex02_exercises.dir/exercises/02_x.cpp.o\n"
        self.assertEqual(diagnose.remember_warnings(self.kit, self.ex02, clean, background), [])
        # Kept now: the background's compile, of an older file, is not read again.
        self.assertEqual(diagnose.remember_warnings(self.kit, self.ex02,
                                                    "ninja: no work to do.", background), [])

    def test_counts_are_words(self):
        self.assertEqual(diagnose.count(1, "compiler warning"), "1 compiler warning")
        self.assertEqual(diagnose.count(2, "compiler warning"), "2 compiler warnings")


class SanitizerTest(unittest.TestCase):
    report = (FIXTURES / "sanitizers" / "03_softmax.keep_dims_trap.asan.txt").read_text()

    def test_the_keep_dims_trap_is_found_at_the_students_line(self):
        found = diagnose.sanitizer_report(EXERCISES["03"], self.report)
        self.assertEqual(found, diagnose.SanitizerReport(
            "heap-buffer-overflow", "READ of size 4", student_line=31, in_reducer=True))

    def test_a_ubsan_report_in_the_students_file(self):
        found = diagnose.sanitizer_report(
            EXERCISES["03"], "/k/exercises/03_softmax.cpp:27:12: runtime error: index 6 out "
                             "of bounds for type 'float [6]'\n")
        self.assertEqual((found.student_line, found.in_reducer), (27, False))
        self.assertIn("index 6 out of bounds", found.kind)

    def test_no_report_is_none(self):
        self.assertIsNone(diagnose.sanitizer_report(EXERCISES["03"], "[  PASSED  ] 3 tests.\n"))

    def test_the_advice_matches_what_the_sanitizer_found(self):
        # UBSan's own report of an int division by zero (fixtures/sanitizers/, g++ 12)
        report = (FIXTURES / "sanitizers" / "22_gpt2_sizing.division_by_zero.ubsan.txt").read_text()
        found = diagnose.sanitizer_report(EXERCISES["22"], report)
        self.assertEqual(found.student_line, 4)
        nowhere = SimpleNamespace(root=Path("/nonexistent"))  # no source line to quote
        lines = diagnose.render_sanitizer(nowhere, EXERCISES["22"], found, "t.case", lambda p: p)
        self.assertIn("divides an integer by zero", lines[-1])
        self.assertNotIn("outside a tensor", lines[-1])
        self.assertIn("past the end", diagnose.sanitizer_advice("heap-buffer-overflow"))
        self.assertIn("no longer exists", diagnose.sanitizer_advice("heap-use-after-free"))
        self.assertIn("std::int64_t", diagnose.sanitizer_advice(
            "undefined behaviour: signed integer overflow: 1073741824 * 4 cannot be represented"))

    def test_a_vector_index_past_the_end_is_found_at_the_students_call(self):
        # heads[h] past the end only computes an address in the student's code; the sanitized
        # build's checked operator[] aborts there (fixtures/sanitizers/, g++ 12)
        report = (FIXTURES / "sanitizers" / "16_multi_head_wrapper.vector_past_end.asan.txt"
                  ).read_text()
        found = diagnose.sanitizer_report(EXERCISES["16"], report)
        self.assertEqual((found.kind, found.student_line),
                         ("an index past the end of a std::vector", 25))
        self.assertIn("heads.size()", diagnose.sanitizer_advice(found.kind))


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

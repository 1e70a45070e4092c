#!/usr/bin/env python3
"""tests/kit/test_cli_device_lint.py — the lint of exercise 23's device code for a machine
without nvcc (tools/kitcli/device_lint.py): host-only and heap-allocating code inside a
function marked ATTN_HOST_DEVICE is named by its line; the kit's own files, comments, strings
and host code are not."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import cli_testing  # noqa: F401  (puts tools/ on the path)
from kitcli import device_lint

ROOT = Path(__file__).resolve().parents[2]


def functor(*body_lines: str, before: str = "") -> str:
    """A file with a functor whose operator() holds `body_lines` from line 6 on (after the
    lines of `before`)."""
    return (f"#include <thrust/for_each.h>\n{before}"
            "struct Row {\n"
            "    float* out;\n"
            "    ATTN_HOST_DEVICE void operator()(std::int64_t row) const {\n"
            "        float x = 0.0f;\n"
            + "".join(f"        {line}\n" for line in body_lines) +
            "        out[row] = x;\n"
            "    }\n"
            "};\n"
            "void launch(float* out, std::int64_t rows) {\n"
            "    std::vector<float> host_side(4);  // host code: fine\n"
            "    thrust::for_each(thrust::device, first, last, Row{out});\n"
            "}\n")


class KitFilesTest(unittest.TestCase):
    def test_the_solution_the_stub_and_the_kits_kernels_are_clean(self):
        # the stub as git holds it: exercises/ may hold a student's work
        catalogue = json.loads((ROOT / "exercises.json").read_text(encoding="utf-8"))
        blob = next(e["stub_blob"] for e in catalogue["exercises"] if e["id"] == "23")
        stub = subprocess.run(["git", "cat-file", "blob", blob], cwd=ROOT, check=True,
                              stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(device_lint.lint(stub), [])
        for path in ("solutions/23_fused_attention.cu", "kit/gpu/fast_attention.cu",
                     "kit/gpu/fast_attention_kernels.cuh", "kit/gpu/fused_module.cu",
                     "kit/gpu/backend.cu",
                     "include/attn/fused_attention.hpp", "tests/kit/slips/23_fused_attention.cu"):
            self.assertEqual(device_lint.lint_file(ROOT / path), [], path)


class RulesTest(unittest.TestCase):
    def found(self, text):
        return device_lint.lint(text)

    def assert_named(self, code_line, expected, before=""):
        findings = self.found(functor(code_line, before=before))
        self.assertEqual([line for line, _ in findings], [6 + before.count("\n")], findings)
        self.assertIn(expected, findings[0][1])

    def test_host_only_and_heap_allocating_code_is_named_by_its_line(self):
        cases = [
            ("std::vector<float> acc(8, 0.0f);", "std::vector in operator(): it allocates"),
            ('std::string name = "row";', "std::string in operator()"),
            ("std::map<int, float> seen;", "std::map in operator()"),
            ("std::cout << row;", "std::cout (iostream) in operator()"),
            ("if (row < 0) throw std::runtime_error(\"no\");", "throw (an exception)"),
            ('const char* e = std::getenv("X");', "std::getenv in operator()"),
            ("float* p = new float[8];", "new in operator(): the GPU's heap is small"),
            ("float* p = (float*)malloc(32);", "malloc in operator()"),
            ("x = std::max(x, 1.0f);", "std::max in operator(): a host function"),
            ("x = -std::numeric_limits<float>::infinity();", "use INFINITY"),
            ("static float buffer[8];", "a static variable in operator(): there is one"),
            ("std::array<float, 4> a{};", "std::array in operator()"),
            ("thrust::device_vector<float> v(4);", "thrust::device_vector in operator()"),
        ]
        for code_line, expected in cases:
            with self.subTest(code_line):
                self.assert_named(code_line, expected)

    def test_a_host_helper_called_from_the_functor(self):
        self.assert_named("x = twice(x);", "twice() called in operator(): it is a host function "
                          "(line 2)", before="float twice(float v) { return 2 * v; }\n")

    def test_a_helper_marked_for_the_device_may_be_called(self):
        text = functor("x = twice(x);",
                       before="ATTN_HOST_DEVICE float twice(float v) { return 2 * v; }\n")
        self.assertEqual(self.found(text), [])

    def test_device_helpers_are_linted_too(self):
        text = functor("x = helper(x);", before=(
            "ATTN_HOST_DEVICE float helper(float v) {\n"
            "    std::vector<float> copy(1, v);\n"
            "    return copy[0];\n"
            "}\n"))
        findings = self.found(text)
        self.assertEqual([line for line, _ in findings], [3], findings)
        self.assertIn("std::vector in helper()", findings[0][1])

    def test_an_operator_without_the_device_marker(self):
        text = functor().replace("ATTN_HOST_DEVICE void operator()", "void operator()")
        findings = self.found(text)
        self.assertEqual([line for line, _ in findings], [4], findings)
        self.assertIn("not marked ATTN_HOST_DEVICE", findings[0][1])

    def test_what_nvcc_compiles_for_the_device_is_clean(self):
        text = functor("const float m = fmaxf(x, -INFINITY);",
                       "x += expf(m) / sqrtf(2.0f);",
                       'printf("row %ld\\n", static_cast<long>(row));',
                       "static constexpr int kMax = 64;",
                       "float acc[kMax] = {};",
                       "const float new_max = m; x += new_max + acc[0];")
        self.assertEqual(self.found(text), [])

    def test_comments_strings_and_preprocessor_lines_are_ignored(self):
        text = functor("// a std::vector would not work here",
                       "/* nor new float[8] */",
                       'printf("std::string and throw\\n");',
                       before="#define NOTE std::vector<float>\n")
        self.assertEqual(self.found(text), [])

    def test_several_findings_in_line_order(self):
        text = functor("std::vector<float> a(2);", "x = 1.0f;", "throw 1;")
        self.assertEqual([line for line, _ in self.found(text)], [6, 8])

    def test_a_declaration_without_a_body_and_an_empty_file(self):
        self.assertEqual(self.found("ATTN_HOST_DEVICE float f(float v);\n"), [])
        self.assertEqual(self.found(""), [])

    def test_report_lines_are_compiler_style(self):
        self.assertEqual(device_lint.report("exercises/23.cu", [(7, "x in y: z")]),
                         "exercises/23.cu:7: x in y: z\n")


class ExerciseTest(unittest.TestCase):
    """What tools/kit check prints, and the status reason, for a GPU-track exercise."""

    def test_only_gpu_track_exercises_are_linted(self):
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "23.cu").write_text(functor("std::vector<float> a(2);"))
            gpu = {"id": "23", "stub": "23.cu", "gpu": True}
            self.assertEqual([line for line, _ in device_lint.exercise_findings(folder, gpu)],
                             [6])
            self.assertEqual(device_lint.exercise_findings(folder, dict(gpu, gpu=False)), [])
            self.assertEqual(device_lint.exercise_findings(folder, dict(gpu, stub="no.cu")), [])
            printed = device_lint.exercise_report(folder, gpu, "exercises/23.cu")
            self.assertTrue(printed[0].startswith("⚠ 1 problem in the device code of "
                                                  "exercises/23.cu"), printed)
            self.assertTrue(printed[1].startswith("  exercises/23.cu:6: std::vector in "
                                                  "operator(): "), printed)
            self.assertEqual(printed[-1], "")

    def test_the_status_reason_names_the_first_finding_and_counts_the_rest(self):
        self.assertEqual(device_lint.status_reason([]), "")
        self.assertEqual(device_lint.status_reason([(6, "a"), (9, "b")]),
                         "device code nvcc would refuse, line 6: a (and 1 more)")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

#!/usr/bin/env python3
"""tests/kit/test_cli_analyse.py — the analyser on the student's file (tools/kitcli/analyse.py,
cppcheck): each finding of the fixtures named by its line and variable, no finding on any
solution, stub or correct fixture, slips only where a slip is, `check` showing the finding
before the failures, and the kit without cppcheck.

tests/kit/fixtures/analyse/ holds student-style files: correct_* must get no finding; in the
others each line ending `// expect: VARIABLE CHECK` must get exactly one finding, of that
variable and kind (CHECK: uninitvar, arrayIndexOutOfBounds, zerodiv, returnReference).
"""

import io
import re
import sys
import unittest
from contextlib import redirect_stdout
from pathlib import Path
from unittest import mock

from cli_testing import ThrowawayKitTest
from kitcli import analyse, student

KIT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "analyse"
EXPECT = re.compile(r"//\s*expect:\s*(?P<variable>\w+)\s+(?P<check>\w+)\s*$")
SLIP_BRANCH = re.compile(r'^(?P<indent>\s*)if \(slip\("(?P<name>\w+)"\)\) \{')
KINDS = {"uninitvar": analyse.UNINITIALISED, "arrayIndexOutOfBounds": analyse.PAST_THE_END,
         "zerodiv": analyse.DIVISION_BY_ZERO, "returnReference": analyse.REFERENCE_TO_LOCAL}
HAS_CPPCHECK = analyse.available()

STUDENT_02 = """// exercises/02_fails.cpp as a student wrote it
#include "attn/simple_attention.hpp"

namespace attn {

Vector normalize_by_sum(const Vector& scores) {
    float total;
    for (std::size_t i = 0; i < scores.size(); ++i) total += scores(i);
    return scores / total;
}

}  // namespace attn
"""


def expected(path: Path) -> dict:
    """{line: (variable, check)} of the fixture's `// expect:` markers."""
    found = {}
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(text)
        if match:
            found[number] = (match["variable"], match["check"])
    return found


def slip_lines(path: Path) -> dict:
    """{line: slip name} of every line inside an `if (slip("NAME")) {` block."""
    inside, lines, indent = None, {}, ""
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = SLIP_BRANCH.match(text)
        if match:
            inside, indent = match["name"], match["indent"]
        elif inside and text == indent + "}":
            inside = None
        elif inside:
            lines[number] = inside
    return lines


def described(findings: list) -> list:
    return [f"{f.file}:{f.line}: {f.message} [{f.check}]" for f in findings]


@unittest.skipUnless(HAS_CPPCHECK, "cppcheck is not installed")
class FindingsTest(unittest.TestCase):
    def test_each_fixture_finding_is_named_by_its_line_and_variable(self):
        wrong = [path for path in sorted(FIXTURES.iterdir()) if not path.name.startswith("correct")]
        self.assertGreaterEqual(len(wrong), 4)
        kinds_seen = set()
        for path in wrong:
            with self.subTest(fixture=path.name):
                marks = expected(path)
                self.assertTrue(marks, f"{path.name} declares no `// expect:` line")
                found = analyse.findings(path, f"exercises/{path.name}")
                self.assertEqual(sorted(f.line for f in found), sorted(marks), described(found))
                for finding in found:
                    variable, check = marks[finding.line]
                    self.assertEqual(finding.variable, variable)
                    self.assertIn(finding.check, KINDS[check])
                    self.assertIn(f"`{variable}`", finding.message)
                    self.assertEqual(finding.file, f"exercises/{path.name}")
                    kinds_seen.add(check)
        self.assertEqual(kinds_seen, set(KINDS))

    def test_the_uninitialised_total_of_02_reads_as_the_student_needs(self):
        path = FIXTURES / "uninitialised_total.cpp"
        [finding] = analyse.findings(path, "exercises/02_normalize_by_sum.cpp")
        self.assertEqual(finding.headline(),
                         "exercises/02_normalize_by_sum.cpp:10: `total` is read before it is set")
        self.assertEqual(finding.fix, "start it at 0: `float total = 0.0f;`")
        self.assertEqual(analyse.render(finding)[1].split("|")[0].strip(), "10")
        self.assertIn("total += scores(i);", analyse.render(finding)[1])

    def test_status_puts_the_finding_before_the_reason(self):
        ex = {"stub": "tests/kit/fixtures/analyse/uninitialised_total.cpp"}
        self.assertEqual(analyse.with_finding(KIT, ex, "6 of 6 values differ"),
                         "tests/kit/fixtures/analyse/uninitialised_total.cpp:10: `total` is "
                         "read before it is set; 6 of 6 values differ")
        correct = {"stub": "solutions/02_normalize_by_sum.cpp"}
        self.assertEqual(analyse.with_finding(KIT, correct, "a reason"), "a reason")

    def test_a_running_maximum_starts_at_minus_infinity_and_a_running_sum_at_0(self):
        [largest] = analyse.findings(FIXTURES / "uninitialised_max.cpp")
        self.assertIn("`float largest = -INFINITY;`", largest.fix)
        [running] = analyse.findings(FIXTURES / "uninitialised_running_sum.cu")
        self.assertEqual(running.fix, "start it at 0: `float running_sum = 0.0f;`")

    def test_no_finding_on_correct_code(self):
        correct = [*sorted(FIXTURES.glob("correct_*")), *sorted((KIT / "solutions").rglob("*.c*")),
                   *sorted((KIT / "exercises").rglob("*.c*"))]
        self.assertGreaterEqual(len(correct), 3 + 2 * 23)
        for path in correct:
            with self.subTest(file=str(path.relative_to(KIT))):
                self.assertEqual(described(analyse.findings(path)), [])

    def test_slips_files_have_findings_only_in_their_slips(self):
        """Without ATTN_SLIP a slips file is the solution: a finding may only be inside a slip,
        and 02's uninitialised total is one it must find."""
        slips = sorted((KIT / "tests" / "kit" / "slips").glob("[0-9]*"))
        self.assertGreaterEqual(len(slips), 8)
        named = {}
        for path in slips:
            in_slip = slip_lines(path)
            for finding in analyse.findings(path):
                with self.subTest(finding=f"{path.name}:{finding.line}"):
                    self.assertIn(finding.line, in_slip, finding.headline())
                    named[(path.name, in_slip[finding.line])] = finding
        total = named.get(("02_normalize_by_sum.cpp", "uninitialised_total"))
        self.assertIsNotNone(total, named)
        self.assertEqual(total.variable, "total")
        self.assertIn("total += scores(i)", total.source)

    def test_a_cppcheck_that_hangs_finds_nothing(self):
        timeout = analyse.subprocess.TimeoutExpired("cppcheck", analyse.TIMEOUT_S)
        with mock.patch("kitcli.analyse.subprocess.run", side_effect=timeout):
            self.assertEqual(analyse.findings(FIXTURES / "uninitialised_total.cpp"), [])


class WithoutCppcheckTest(ThrowawayKitTest):
    def setUp(self):
        super().setUp()
        self.start_work("02", STUDENT_02)
        patcher = mock.patch("kitcli.analyse.shutil.which", return_value=None)
        patcher.start()
        self.addCleanup(patcher.stop)
        saying = mock.patch("kitcli.analyse._said_missing", False)
        saying.start()
        self.addCleanup(saying.stop)

    def test_it_is_said_once_and_nothing_fails(self):
        ex = self.ex("02")
        self.assertIsNone(analyse.exercise_findings(self.kit.root, ex))
        self.assertEqual(analyse.status_reason(self.kit.root, ex), "")
        self.assertEqual(analyse.check_report(self.kit.root, ex, failing=False), [])
        first = analyse.check_report(self.kit.root, ex, failing=True)
        self.assertIn("cppcheck is not installed", first[0])
        self.assertIn("apt-get install cppcheck", first[0])
        self.assertEqual(analyse.check_report(self.kit.root, ex, failing=True), [])


@unittest.skipUnless(HAS_CPPCHECK, "cppcheck is not installed")
class CheckShowsTheFindingTest(ThrowawayKitTest):
    """`tools/kit check` on the student's file: the finding first where the values fail, a
    warning where they pass."""

    def setUp(self):
        super().setUp()
        self.start_work("02", STUDENT_02)
        self.stub = self.ex("02")["stub"]
        text = (self.kit.root / self.stub).read_text(encoding="utf-8").splitlines()
        self.line = next(n for n, line in enumerate(text, start=1) if "total +=" in line)

    def check(self, verdicts: list) -> list:
        data = self.kit.root / "stream.verdicts"
        data.write_text("".join(line + "\n" for line in verdicts), encoding="utf-8")
        self.fake_test_program("02", f'echo "my debug print"\ncp "{data}" "${{2#--attn-verdicts=}}"'
                                     f"\nexit {1 if 'failed' in verdicts[1] else 0}")
        output = io.StringIO()
        with mock.patch("kitcli.setup.install", return_value=True), \
                mock.patch("kitcli.build.configure_and_build", return_value=(True, True, "")), \
                redirect_stdout(output):
            student.check(self.kit, "02")
        return output.getvalue().splitlines()

    def verdicts(self, failed: bool) -> list:
        failure = ('{"kind": "mismatch", "message": "attn::normalize_by_sum(scores): 6 of 6 '
                   'values differ", "text": "attn::normalize_by_sum(scores): 6 of 6 values '
                   'differ", "file": "/k/t.cpp", "line": 3}')
        return ['{"event": "program", "schema": "attn-kit/test-verdicts", "version": 1}',
                '{"event": "test", "test": "normalize_by_sum.notebook", "case": "02_x/notebook",'
                f' "status": "{"failed" if failed else "passed"}", "failures": '
                f'[{failure if failed else ""}]}}',
                '{"event": "end", "tests": 1, "failed": 0}']

    def test_the_finding_comes_first_when_the_values_fail(self):
        lines = self.check(self.verdicts(failed=True))
        headline = f"✗ {self.stub}:{self.line}: `total` is read before it is set"
        self.assertIn(headline, lines)
        at = lines.index(headline)
        self.assertIn("total += scores(i);", lines[at + 1])
        self.assertEqual(lines[at + 2], "  Fix: Start it at 0: `float total = 0.0f;`")
        self.assertLess(at, lines.index("✗ normalize_by_sum.notebook"))
        self.assertLess(at, next(i for i, line in enumerate(lines) if "my debug print" in line))

    def test_a_finding_where_the_values_pass_is_a_warning(self):
        lines = self.check(self.verdicts(failed=False))
        self.assertIn(f"⚠ {self.stub}:{self.line}: `total` is read before it is set", lines)
        self.assertFalse([line for line in lines if line.startswith("✗ ")], lines)


if __name__ == "__main__":
    sys.exit(unittest.main())

"""What the test runs wrote: ctest's JUnit file and GoogleTest's JSON reports.

ctest --output-junit FILE (ctest 3.25) writes one <testcase> per ctest test with
status="run" (passed), "fail", "notrun" or "disabled". A "notrun" carries ctest's reason,
<skipped message="Unable to find executable"/> when the program was never built. A "fail"
carries <failure message=""/> whatever the cause: a failed test, a segmentation fault, an
abort and a timeout read the same, apart from the time (a timeout lasts its TIMEOUT). The
samples in tests/kit/fixtures/ctest-3.25/ are real ones.

A GoogleTest JSON report (--gtest_output=json:FILE) lists every test the program ran, with
"result" COMPLETED or SKIPPED, its "failures", and the properties the test recorded: a
value case (inputs, one call, expected goldens) records "attn_case", the case's path such
as "03_softmax/rows_notebook". A program that crashes or exits early writes no report.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CtestResult:
    """How one ctest test ended, in ctest's own words."""
    name: str     # e.g. "ex03.exercises"
    status: str   # "run" (it passed), "fail", "notrun" or "disabled"
    message: str  # why it did not run, e.g. "Unable to find executable"; "" for a fail
    time_s: float

    @property
    def passed(self) -> bool:
        return self.status == "run"

    @property
    def skipped(self) -> bool:
        """It ran and said it could not test here (exit 77: SKIP_RETURN_CODE), e.g. no
        namespaces in a chroot: neither passed nor failed."""
        return self.status == "notrun" and "SKIP_RETURN_CODE" in self.message


def read_junit(path: Path) -> dict:
    """{ctest test name: CtestResult} from ctest's JUnit file; {} if it has none."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return {}
    results = {}
    for testcase in root.iter("testcase"):
        reason = testcase.find("failure")
        if reason is None:
            reason = testcase.find("skipped")
        name = testcase.get("name", "")
        results[name] = CtestResult(name=name, status=testcase.get("status", ""),
                                    message=reason.get("message", "") if reason is not None
                                    else "",
                                    time_s=float(testcase.get("time") or 0))
    return results


@dataclass(frozen=True)
class GtestCase:
    """One GoogleTest test of a report."""
    name: str               # "suite.test": for a value case "<kind>.<case>"
    value_case: str | None  # its "attn_case" property, or None for a validation test
    outcome: str            # "passed", "failed", "skipped" or "not run" (disabled)
    failure: str            # the first meaningful line of its first failure, or ""
    texts: tuple = ()       # each failure in full, decoded, as GoogleTest printed it

    @property
    def kind(self) -> str:
        """The suite: for a value case its ATTN_CASE kind, the function it calls."""
        return self.name.split(".")[0]

    @property
    def explanation(self) -> str:
        """Its first failure without GoogleTest's "file:line" and "Failed" lines."""
        return failure_body(self.texts[0]) if self.texts else ""


def read_gtest_report(path: Path) -> list | None:
    """The tests of one GoogleTest JSON report, or None if the program wrote none."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return gtest_cases(report)


def gtest_cases(report: dict) -> list:
    cases = []
    for suite in report.get("testsuites", []):
        for test in suite.get("testsuite", []):
            texts = tuple(utf8_text(failure.get("failure", ""))
                          for failure in test.get("failures", []))
            if test.get("status") == "NOTRUN":
                outcome = "not run"
            elif test.get("result") == "SKIPPED":
                outcome = "skipped"
            else:
                outcome = "failed" if texts else "passed"
            cases.append(GtestCase(name=f"{suite['name']}.{test['name']}",
                                   value_case=test.get("attn_case"), outcome=outcome,
                                   failure=failure_message(texts[0]) if texts else "",
                                   texts=texts))
    return cases


def utf8_text(text: str) -> str:
    """GoogleTest 1.12's JSON escapes each byte of UTF-8 text on its own ("Ã\u0097" for
    "×"); those code points below 256 are the original bytes, so decode them again."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # already decoded, or not UTF-8: leave it as it is


# xtensor's bounds check (XTENSOR_ENABLE_ASSERT) throws "<its header>:438: check
# failed\n\tindex 6 is out of bounds for axis 0 with size 6"; the student needs the second
# half only.
BOUNDS_CHECK = re.compile(r"\S*xtensor/\S+\.hpp:\d+: check failed\s+(index \d+ is out of "
                          r"bounds for axis \d+) with size (\d+)")


def readable_failure(text: str) -> str:
    return BOUNDS_CHECK.sub(r"\1 (size \2)", text)


def failure_body(text: str) -> str:
    """A failure's text without GoogleTest's "file:line" (or "unknown file") and "Failed"
    lines, an uncaught exception unwrapped."""
    lines = readable_failure(text).splitlines()
    if lines and re.match(r".*:\d+$|unknown file$", lines[0]):
        lines = lines[1:]
    if lines and lines[0] == "Failed":  # ADD_FAILURE(), ADD_FAILURE_AT() and FAIL() say so
        lines = lines[1:]
    body = "\n".join(lines)
    return re.sub(r'^C\+\+ exception with description "(.*)" thrown in the test body\.$',
                  r"\1", body, flags=re.DOTALL)


def failure_message(text: str) -> str:
    """The line of a GoogleTest failure that says what went wrong."""
    lines = failure_body(utf8_text(text)).splitlines()
    return lines[0] if lines else ""

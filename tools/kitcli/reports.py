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
            failures = [failure_message(failure.get("failure", ""))
                        for failure in test.get("failures", [])]
            if test.get("status") == "NOTRUN":
                outcome = "not run"
            elif test.get("result") == "SKIPPED":
                outcome = "skipped"
            else:
                outcome = "failed" if failures else "passed"
            cases.append(GtestCase(name=f"{suite['name']}.{test['name']}",
                                   value_case=test.get("attn_case"), outcome=outcome,
                                   failure=failures[0] if failures else ""))
    return cases


def utf8_text(text: str) -> str:
    """GoogleTest 1.12's JSON escapes each byte of UTF-8 text on its own ("Ã\u0097" for
    "×"); those code points below 256 are the original bytes, so decode them again."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # already decoded, or not UTF-8: leave it as it is


def failure_message(text: str) -> str:
    """The line of a GoogleTest failure that says what went wrong."""
    lines = utf8_text(text).splitlines()
    # GoogleTest puts "file:line" (or "unknown file") first; the message follows.
    if lines and re.match(r".*:\d+$|unknown file$", lines[0]):
        lines = lines[1:]
    if lines and lines[0] == "Failed":  # ADD_FAILURE(), ADD_FAILURE_AT() and FAIL() say so
        lines = lines[1:]
    message = lines[0] if lines else ""
    return re.sub(r'^C\+\+ exception with description "(.*)" thrown.*$', r"\1", message)

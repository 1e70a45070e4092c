"""What the test runs wrote: ctest's JUnit file and the test programs' verdict streams.

ctest --output-junit FILE (ctest 3.25) writes one <testcase> per ctest test with
status="run" (passed), "fail", "notrun" or "disabled". A "notrun" carries ctest's reason,
<skipped message="Unable to find executable"/> when the program was never built. A "fail"
carries <failure message=""/> whatever the cause: a failed test, a segmentation fault, an
abort and a timeout read the same, apart from the time (a timeout lasts its TIMEOUT). The
samples in tests/kit/fixtures/ctest-3.25/ are real ones.

A verdict stream (--attn-verdicts=FILE, written by the C++ side: kit/verdicts.hpp, the
schema in docs/verdicts.md) has one JSON line per event: each test as it starts and as it
ends, with its status and its failures (their kind, text, and for a mismatch the named
mistake), the signal a crash died of, and an "end" line once every test ran. Nothing here
parses GoogleTest's text.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, replace
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
class Failure:
    """One failure of a test, as the verdict stream states it."""
    # "mismatch", "law", "threw", "not_implemented", "check", "check_unreached" (the check's
    # valid call threw, so it was not tested), "kit" or "assertion"
    kind: str
    message: str  # its first line, in the kit's words
    text: str     # all of it
    mistake: str = ""  # a mismatch: the recorded mistake the result equals, or ""
    # its family ("wrong_axis", whatever the dim; docs/verdicts.md), or ""
    family: str = ""
    # a mismatch that is the same slip as another test names: that mistake, or ""
    same_slip: str = ""
    worst: dict | None = None  # a value mismatch: {"index", "got", "expected", ...}
    # a mismatch: the shape of its error as a fact and a likely cause ("every value is 2× the
    # expected: ..."), or ""
    diagnosis: str = ""
    # a mismatch of an attention matrix (docs/verdicts.md): {"shape", "got", "expected",
    # "beyond"}, for a picture of both (heatmap.py); None otherwise
    matrix: dict | None = None
    output: str = ""  # a mismatch or a law: the output's name ("weights")
    # a mismatch: the call in the student's words ("causal_attention(queries, keys, values)")
    # and the case's description (the notebook cell, or what the case tests), or ""
    call: str = ""
    description: str = ""
    # Failures of one program with the same key are one failure on several cases, as C++
    # decided (docs/verdicts.md): the same named slip, shape of error, law or throw.
    alike: str = ""
    # a throw of what a library throws when handed garbage, as C++ decided (docs/verdicts.md)
    points_to_garbage: bool = False


@dataclass(frozen=True)
class TestVerdict:
    """One test of a program's verdict stream."""
    name: str               # "suite.test": for a value case "<kind>.<case>"
    value_case: str | None  # the case's path for a value case, None for an argument check
    outcome: str            # "passed", "failed", "skipped" or "not run" (disabled)
    failures: tuple = ()    # of Failure
    ruled_out: tuple = ()   # recorded mistakes its results are not (all, where it passed)
    # Its function calls another of the exercise's whose cases failed too (the root cause,
    # docs/verdicts.md): {"function", "failed", "cases"}; None otherwise.
    because: dict | None = None
    # (group, place): where the program put this failed test among the failures to show
    # (docs/verdicts.md, "groups": failures alike in one group, the groups in the order to
    # show them); None for a test that passed, or in a stream cut short before its end.
    shown: tuple | None = None
    # How the code performs, where the test noted it (a kernel that reads more than it needs:
    # kit/verdicts.hpp, note_performance); a test that passed may have notes.
    notes: tuple = ()

    @property
    def kind(self) -> str:
        """The suite: for a value case its ATTN_CASE kind, the function it calls."""
        return self.name.split(".")[0]

    @property
    def failure(self) -> str:
        """The first line of its first failure, or ""."""
        return self.failures[0].message if self.failures else ""

    @property
    def explanation(self) -> str:
        """Its first failure in full."""
        return self.failures[0].text if self.failures else ""

    @property
    def texts(self) -> tuple:
        return tuple(failure.text for failure in self.failures)

    @property
    def mistake(self) -> str:
        """The recorded mistake its first failure names, or ""."""
        return self.failures[0].mistake if self.failures else ""

    @property
    def family(self) -> str:
        """The family of the mistake its first failure names ("wrong_axis"), or ""."""
        return self.failures[0].family if self.failures else ""

    @property
    def alike(self) -> str:
        """Its first failure's key: tests failing alike share it (Failure.alike)."""
        return self.failures[0].alike if self.failures else ""

    @property
    def not_implemented(self) -> bool:
        """It failed because the function is still the stub."""
        return any(failure.kind == "not_implemented" for failure in self.failures)

    @property
    def check_unreached(self) -> bool:
        """An argument check that was not tested: its valid call threw first."""
        return bool(self.failures) and all(failure.kind == "check_unreached"
                                           for failure in self.failures)


@dataclass(frozen=True)
class VerdictStream:
    """What a test program wrote with --attn-verdicts (docs/verdicts.md)."""
    tests: list            # of TestVerdict, in the order they ran
    finished: bool         # it wrote its "end" line: every test ran
    running: str | None    # the test it started and never finished (a hang, a crash, an exit)
    signal: str | None     # the signal it died of ("SIGSEGV"), when it crashed in a test


SCHEMA = "attn-kit/test-verdicts"
VERSION = 1


def read_verdicts(path: Path) -> VerdictStream | None:
    """The verdict stream at `path`, or None if the program wrote none (it was not built, or
    did not start). A line cut short by a kill is ignored; a stream of another schema
    version is an error: the kit and its build disagree."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    tests, finished, running, signal = [], False, None, None
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        what = event.get("event")
        if what == "program" and (event.get("schema"), event.get("version")) != (SCHEMA, VERSION):
            raise ValueError(f"{path}: a verdict stream of {event.get('schema')} version "
                             f"{event.get('version')}, not {SCHEMA} version {VERSION}: "
                             "rebuild (the build is older than the kit)")
        if what == "start":
            running = event["test"]
        elif what == "test":
            # A test written again at the end, "revised", with a name another test of its
            # kind rules out taken back (kit/verdicts.hpp): its last event is its verdict.
            verdict = test_verdict(event)
            tests = [verdict if test.name == verdict.name else test for test in tests] \
                if event.get("revised") else tests + [verdict]
            running = None
        elif what == "crash":
            running, signal = event["test"] or running, event["signal"]
        elif what == "end":
            finished = True
            places = {name: (group, place) for group, names in enumerate(event.get("groups", []))
                      for place, name in enumerate(names)}
            tests = [replace(test, shown=places.get(test.name)) for test in tests]
    if not lines:
        return None
    return VerdictStream(tests, finished, running, signal)


def test_verdict(event: dict) -> TestVerdict:
    failures = []
    for failure in event.get("failures", []):
        compared = failure.get("comparison", {})
        failures.append(Failure(kind=failure["kind"], message=failure["message"],
                                text=failure["text"], mistake=compared.get("mistake", ""),
                                family=compared.get("family", ""),
                                same_slip=compared.get("same_slip_as", {}).get("mistake", ""),
                                # a stream without keys (a test's): alike only to itself
                                alike=failure.get("alike", f"{failure['kind']}:{failure['text']}"),
                                points_to_garbage=failure.get("points_to_garbage", False),
                                worst=compared.get("worst"),
                                diagnosis=compared.get("diagnosis", ""),
                                matrix=failure.get("matrix"),
                                output=failure.get("output", ""),
                                call=failure.get("call", ""),
                                description=failure.get("description", "")))
    return TestVerdict(name=event["test"], value_case=event.get("case"),
                       outcome=event["status"], failures=tuple(failures),
                       ruled_out=tuple(event.get("ruled_out", ())), because=event.get("because"),
                       notes=tuple(event.get("notes", ())))

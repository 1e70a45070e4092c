"""A static analyser on the student's file: cppcheck (Debian's `cppcheck`), for the few bugs
it names by their line that the values alone cannot: a variable read before it is set, an
array indexed past its end, a division by zero, a reference to a local returned.

    findings(path, shown) -> [Finding]    e.g. Finding(file="exercises/02_normalize_by_sum.cpp",
                                          line=10, variable="total", check="uninitvar", ...)

GCC misses some uninitialised variables at -Og (a float updated in a loop, one updated through
xtensor's operators); the build's pattern value (-1.7e38) then shows in the results and the
comparison says so, but not where. cppcheck names the line. Only CHECKS are kept: each one is
a bug in these exercises, and none is reported on any solution, slips file or correct
student fixture (tests/kit/test_cli_analyse.py holds that). cppcheck runs without the kit's
include paths (it needs no types for these checks, and runs in ~30 ms on an exercise file);
where it is not installed, `check` says so once and goes on.

    python3 tools/kitcli/analyse.py FILE...   prints FILE:LINE: message; exit 1 if any
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 20
UNINITIALISED = {"uninitvar", "legacyUninitvar", "uninitdata"}
PAST_THE_END = {"arrayIndexOutOfBounds", "negativeIndex"}
DIVISION_BY_ZERO = {"zerodiv"}
REFERENCE_TO_LOCAL = {"returnReference", "returnTempReference", "returnDanglingLifetime"}
CHECKS = UNINITIALISED | PAST_THE_END | DIVISION_BY_ZERO | REFERENCE_TO_LOCAL
COMMAND = ["cppcheck", "--language=c++", "--std=c++17", "--enable=warning", "--quiet",
           "--xml", "--xml-version=2", "--max-configs=1", "--suppress=missingInclude",
           # The GPU track's marker of device functions (include/attn/gpu.hpp), unknown here.
           "-DATTN_HOST_DEVICE=", "-D__host__=", "-D__device__=", "-D__global__="]

_said_missing = False


@dataclass(frozen=True)
class Finding:
    file: str      # as shown to the student
    line: int
    column: int
    variable: str  # "" where cppcheck names none (a division by zero)
    check: str     # cppcheck's id, one of CHECKS
    message: str   # what is wrong, in the kit's words
    fix: str       # one sentence: what to write instead
    source: str    # the line itself

    def headline(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


def available() -> bool:
    return shutil.which(COMMAND[0]) is not None


def run_cppcheck(path: Path) -> list | None:
    """cppcheck's findings on `path` of the ids in CHECKS: [(id, line, column, symbol,
    message)] in the file's order, or None where cppcheck is missing. A run that did not
    finish or said nothing readable found nothing: the values still speak."""
    if not available():
        return None
    try:
        result = subprocess.run([*COMMAND, str(path)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, errors="replace",
                                timeout=TIMEOUT_S)
        errors = list(ElementTree.fromstring(result.stderr).iter("error"))
    except OSError:
        return None
    except (subprocess.TimeoutExpired, ElementTree.ParseError):
        return []
    found = []
    for error in errors:
        location = error.find("location")
        if error.get("id") not in CHECKS or location is None or error.get("inconclusive"):
            continue
        if Path(location.get("file", "")).name != path.name:  # a header's, not the student's
            continue
        symbol = error.findtext("symbol") or ""
        found.append((error.get("id"), int(location.get("line", 0)),
                      int(location.get("column", 0)), symbol, error.get("msg", "")))
    return sorted(found, key=lambda item: (item[1], item[2]))


def declaration(lines: list, before: int, variable: str) -> str:
    """The statement that declares `variable` without a value (`float total;`), searched
    upwards from line `before`, or ""."""
    pattern = re.compile(r"^\s*((?:const\s+)?[\w:<>]+)\s+" + re.escape(variable) + r"\s*;")
    for text in reversed(lines[:before]):
        match = pattern.match(text)
        if match:
            return match[1]
    return ""


def uninitialised_fix(source: str, variable: str, declared_type: str) -> str:
    """One sentence: the value it should start with, from how the line reads it."""
    name = re.escape(variable)
    typed = declared_type or "float"
    zero = {"float": "0.0f", "double": "0.0", "bool": "false"}.get(typed, "0")
    assigned = re.search(rf"\b{name}\s*=[^=](?P<value>.*)", source)
    if re.search(rf"\b{name}\s*(\+=|-=)", source) or (
            assigned and re.search(rf"\b{name}\b", assigned["value"])
            and re.search(r"[-+]", assigned["value"])):
        return f"start it at 0: `{typed} {variable} = {zero};`"
    if re.search(rf"\b{name}\s*\*=|\b{name}\s*=\s*{name}\s*\*", source):
        return f"start it at 1: `{typed} {variable} = 1;`"
    if re.search(r"\b(max|fmax|amax)\b|>", source):
        return (f"start it at the first value, or at minus infinity: `{typed} {variable} = "
                "-INFINITY;`")
    if re.search(r"\b(min|fmin|amin)\b|<", source):
        return f"start it at the first value, or at infinity: `{typed} {variable} = INFINITY;`"
    return f"give it its value where you declare it: `{typed} {variable} = ...;`"


def variable_named(check: str, message: str, source: str, column: int) -> str:
    """The variable a finding without cppcheck's <symbol> is about: the array its message
    names, the divisor after the `/` at `column`, the word at `column` (what is returned)."""
    if check in UNINITIALISED:
        return message.rsplit(":", 1)[-1].strip()
    if check in PAST_THE_END:
        array = re.search(r"Array '(\w+)", message)
        return array[1] if array else ""
    after = source[max(column - 1, 0):]
    if check in DIVISION_BY_ZERO:
        divisor = re.match(r"[/%]=?\s*(\w+)", after)
        return divisor[1] if divisor and not divisor[1][0].isdigit() else ""
    word = re.match(r"\w+", after)
    return word[0] if word else ""


def explained(check: str, variable: str, message: str, lines: list, line: int,
              source: str) -> tuple:
    """(what is wrong, the fix) of one cppcheck finding, in the kit's words."""
    named = f"`{variable}`" if variable else "a variable"
    if check in UNINITIALISED:
        return (f"{named} is read before it is set",
                uninitialised_fix(source, variable, declaration(lines, line, variable)))
    if check in PAST_THE_END:
        where = re.search(r"accessed at index (-?\d+)", message)
        index = f" (index {where[1]})" if where else ""
        return (f"{named} is indexed past its end{index}",
                "an array of N elements has the indices 0 to N - 1: loop with `i < N`, "
                "not `i <= N`.")
    if check in DIVISION_BY_ZERO:
        return ((f"this divides by {named}, which is 0 here" if variable
                 else "this divides by zero"),
                "the divisor is 0 on this line: divide by the count or sum you meant.")
    return (f"this returns a reference to {named}, a local variable that is gone when the "
            "caller reads it",
            "return it by value: drop the `&` from the function's return type.")


def findings(path: Path, shown: str | None = None) -> list | None:
    """The findings on the file at `path`, named `shown` (the student's path), one per
    variable and kind (its first line), or None where cppcheck is not installed."""
    found = run_cppcheck(path)
    if found is None:
        return None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    result, seen = [], set()
    for check, line, column, symbol, message in found:
        source = lines[line - 1] if 0 < line <= len(lines) else ""
        variable = symbol.split("\n")[0].strip() or variable_named(check, message, source,
                                                                   column)
        kind = "uninitialised" if check in UNINITIALISED else check
        if (kind, variable) in seen:  # cppcheck names a variable read twice twice
            continue
        seen.add((kind, variable))
        text, fix = explained(check, variable, message, lines, line, source)
        result.append(Finding(shown or str(path), line, column, variable, check, text, fix,
                              source))
    return result


def exercise_findings(root: Path, ex: dict) -> list | None:
    """The findings on the student's file of exercise `ex` (None: no cppcheck)."""
    return findings(Path(root) / ex["stub"], ex["stub"])


def render(finding: Finding, shown_path=str) -> list:
    """A finding as the student reads it: the line named, the code, the fix."""
    return [f"{shown_path(finding.file)}:{finding.line}: {finding.message}",
            f"{finding.line:>5} | {finding.source.rstrip()}",
            f"  Fix: {finding.fix[0].upper()}{finding.fix[1:]}"]


def check_report(root: Path, ex: dict, failing: bool, shown_path=str) -> list:
    """What `tools/kit check` shows of the analyser: where the values fail, its findings as
    the cause ("✗"), shown before the failures; where they pass, as warnings ("⚠"). Without
    cppcheck, one line, once a process."""
    global _said_missing
    found = exercise_findings(root, ex)
    if found is None:
        if _said_missing or not failing:
            return []
        _said_missing = True
        return ["(cppcheck is not installed, so `check` cannot name a variable read before "
                "it is set: `sudo apt-get install cppcheck`)", ""]
    lines = []
    for finding in found:
        rendered = render(finding, shown_path)
        lines += [f"{'✗' if failing else '⚠'} {rendered[0]}", *rendered[1:], ""]
    return lines


def status_reason(root: Path, ex: dict) -> str:
    """For `tools/kit status`'s line of a failing exercise: its first finding
    ("exercises/02_normalize_by_sum.cpp:10: `total` is read before it is set"), or ""."""
    found = exercise_findings(root, ex)
    return found[0].headline() if found else ""


def with_finding(root: Path, ex: dict, reason: str) -> str:
    """A failing exercise's status reason with its first finding in front, where it has one:
    "exercises/02_normalize_by_sum.cpp:10: `total` is read before it is set; <reason>"."""
    finding = status_reason(root, ex)
    return f"{finding}; {reason}" if finding and reason else (finding or reason)


def main(paths: list) -> int:
    if not available():
        print("cppcheck is not installed (Debian: apt-get install cppcheck)")
        return 0
    every = [finding for path in paths for finding in findings(Path(path), path) or []]
    for finding in every:
        print(f"{finding.headline()} [{finding.check}]")
    return 1 if every else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

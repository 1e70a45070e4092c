"""What the grader writes: gradebook.csv (its header row first), grading.json (what it was
graded with: kit commit, case sets, rubric, sandbox, notes), records.json, timings.json,
report.html (html_report.py), and per student feedback.txt, junit.xml, results.json (Gradescope's
autograder format).

records.json holds everything the class-wide outputs are made from (the records, the notes, the
run's meta), so `tools/grade merge` can rebuild them from shards without grading again."""

from __future__ import annotations

import csv
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from kitlib.text import printable

from . import html_report


def _private(path):
    os.chmod(path, 0o600)


def split(amount: float, weights: list) -> list:
    """`amount` shared out in proportion to `weights`, each part rounded to 0.01 and the last
    taking what rounding left, so the parts add up to `amount` exactly (Gradescope shows the
    sum of a submission's tests next to its score)."""
    total = sum(weights)
    if not weights:
        return []
    if total == 0:
        return [0.0] * (len(weights) - 1) + [round(amount, 2)]
    parts = [round(amount * weight / total, 2) for weight in weights[:-1]]
    return parts + [round(amount - sum(parts), 2)]


def _number(value) -> str:
    """Points as a student reads them: 10, 4, 3.33."""
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def _not_taken(files: dict) -> list:
    """[(exercise id or file name, why)] of records.json's "not_taken": a dict {id: why}, or a
    list of such pairs or of bare names."""
    not_taken = files.get("not_taken") or {}
    if isinstance(not_taken, dict):
        return sorted(not_taken.items())
    return [tuple(item) if isinstance(item, (list, tuple)) and len(item) == 2 else (item, "")
            for item in not_taken]


def files_lines(record, exercises) -> list:
    """What the grader did not find or did not take, and what it found instead, for the
    student's eyes: the expected file names (never the grader's paths)."""
    files = record.get("files") or {}
    stub = {ex["id"]: Path(ex["stub"]).name for ex in exercises}

    def name(ex_id) -> str:
        return printable(str(stub.get(ex_id, ex_id)), one_line=True, limit=120)

    lines = []
    if files.get("missing"):
        lines.append("Not found: " + ", ".join(name(ex_id) for ex_id in files["missing"]))
    for ex_id, why in _not_taken(files):
        lines.append(f"Not taken: {name(ex_id)}"
                     + (f": {printable(str(why), one_line=True, limit=300)}" if why else ""))
    if lines and files.get("found_instead"):
        lines.append("Found instead: " + ", ".join(printable(str(found), one_line=True, limit=120)
                                                   for found in files["found_instead"])
                     + " (rename each to the name expected, in your folder or its exercises/)")
    return lines


not_implemented = html_report.not_implemented


def compact_reason(failure: dict) -> str:
    """A case's reason with the outputs that failed alike said once: "weights, weights_sum: X"
    for "weights: X; weights_sum: X", from the failed outputs grade.py lists (a failure
    without that list keeps its reason as it is)."""
    outputs = failure.get("outputs") or []
    if len(outputs) < 2 or not all(o["name"] for o in outputs):
        return printable(failure["reason"])
    by_text = {}
    for output in outputs:
        by_text.setdefault(printable(output["reason"]), []).append(printable(output["name"]))
    return "; ".join(f"{', '.join(names)}: {text}" for text, names in by_text.items())


def _what(failure) -> str:
    """What went wrong with a case, in one phrase: its crash (a crash or time-out explains why
    the case has no result), else the judge's reason."""
    reason = compact_reason(failure)
    if failure.get("crash"):
        crash = printable(failure["crash"]["why"], one_line=True)
        if failure.get("no_result"):  # the crash is why there is no result
            return crash
        return f"{crash}; {reason}"
    return reason


def _stop_lines(result: dict, failures: list) -> list:
    """What stopped the exercise's runs (grade.py's "stopped"), but for the cases whose own
    failure shows it below: a run that stopped before any case, or in a case not failed."""
    shown = {(failure["case"], failure["crash"]["why"]) for _, failure in failures
             if failure.get("crash")}
    return list(dict.fromkeys(  # a stop each case set's run met alike, said once
        f"{printable(stop['case'] or 'before any case', one_line=True)}: "
        f"{printable(stop['why'], one_line=True)}" for stop in result.get("stopped", [])
        if (stop["case"], stop["why"]) not in shown))


def _mistake(failure) -> str:
    """The mistake a case looks like, each named once (two outputs wrong the same way)."""
    return printable("; ".join(html_report.named_mistakes(failure)), one_line=True)


def _hints(failures) -> list:
    """Each hint once, however many cases and outputs gave it."""
    hints = {}
    for _, failure in failures:
        for hint in html_report.named_mistakes(failure).values():
            if hint:
                hints.setdefault(printable(hint), None)
    return list(hints)


def _short_case(case: str, exercise) -> str:
    prefix = f"{exercise['id']}_{exercise['name']}/"
    return case[len(prefix):] if case.startswith(prefix) else case


def exercise_block(exercise, result, set_names=None) -> list:
    """One exercise as a student reads it: its verdict, its note (compiler errors, what
    stopped a run) once, the first failing case in full, the other failures counted by what
    they look like, and each hint once. An exercise still the kit's stub is two lines.
    `set_names`: only those case sets (Gradescope's one test per set). A hidden case shows no
    expected value: grade.py keeps a hidden failure's details out, the judge its reason's."""
    sets = {name: data for name, data in result["sets"].items()
            if set_names is None or name in set_names}
    passed = "; ".join(f"{name}: {data['passed']} of {data['cases']} cases passed"
                       for name, data in sets.items())
    status = f" [{result['status']}]" if result["status"] != "graded" else ""
    if set_names is None:
        head = (f"{exercise['id']} {exercise['name']}: {_number(result['points'])} of "
                f"{_number(result['max'])} points{status} ({passed})")
    else:  # a test of one set: its points are the test's own, beside it
        head = f"{exercise['id']} {exercise['name']}{status}: {passed}"
    lines = [head]
    failures = [(name, failure) for name, data in sets.items() for failure in data["failures"]]
    lines += ["  " + line for line in printable(result["note"].strip()).splitlines()]
    lines += ["  " + line for line in _stop_lines(result, failures)]
    if not failures:
        return lines
    cases = len(failures)
    stubbed = dict.fromkeys(failure.get("function") or "?" for _, failure in failures
                            if not_implemented(failure))
    real = [(name, f) for name, f in failures if not not_implemented(f)]
    if not real:  # the kit's stub as it came: nothing more to say
        passed_any = sum(data["passed"] for data in sets.values())
        which = (f"{cases} failing case{'s' if cases > 1 else ''}" if passed_any else
                 "every case" if cases > 1 else "its case")
        lines.append(f"  not implemented yet ({which}): "
                     f"{printable(', '.join(stubbed), one_line=True)}")
        return lines
    # Cases that never ran (no file, no build): the note or one line says why, once.
    reasons = {f["reason"] for _, f in real}
    if len(real) == cases and len(reasons) == 1 and not any(
            f.get("mistakes") or f.get("crash") or "function" in f for _, f in real):
        reason = real[0][1]["reason"]
        if reason.strip() != result["note"].strip():
            lines.append(f"  no case ran: {printable(reason, one_line=True, limit=300)}")
        return lines
    first_set, first = real[0]
    function = f" [{first['function']}]" if first.get("function") else ""
    lines.append(f"  FAILED {first_set} case {printable(first['case'], one_line=True)}"
                 f"{printable(function, one_line=True)}: {_what(first)}")
    if first.get("mistakes"):
        lines.append(f"    looks like: {_mistake(first)}")
    if first.get("details") and first_set == "public":  # shapes, worst elements, both tensors
        lines += ["    " + line for line in printable(first["details"]).strip("\n").splitlines()]
    groups = {}  # what the other failures look like -> their cases, in order
    for _, failure in failures:
        if failure is first:
            continue
        if not_implemented(failure):
            key = (": ", "not implemented yet: " + printable(failure.get("function") or "?",
                                                             one_line=True))
        elif failure.get("mistakes"):
            key = (" look like: ", _mistake(failure))
        else:
            key = (": ", printable(_what(failure), one_line=True))
        groups.setdefault((key[0], key[1][:240]), []).append(_short_case(failure["case"],
                                                                         exercise))
    if groups:
        lines.append(f"  and {cases - 1} more failing case{'s' if cases > 2 else ''}:")
        for (joint, text), names in groups.items():
            one = len(names) == 1
            joint = " looks like: " if one and joint == " look like: " else joint
            shown = ", ".join(names[:3]) + (f", +{len(names) - 3} more" if len(names) > 3 else "")
            lines.append(f"    {len(names)} case{'' if one else 's'}{joint}{text}"
                         f" ({printable(shown, one_line=True)})")
    lines += [f"  hint: {hint}" for hint in _hints(failures)]
    return lines


def feedback_text(record, exercises, set_names=None) -> list:
    """feedback.txt's lines: the total and status, the files not found or not taken, then a
    block per exercise (a blank line around each block of more than two lines)."""
    lines = [f"Feedback for {printable(record['id'], one_line=True)}: "
             f"{_number(record['total'])} of {_number(record['max'])} points "
             f"({record['status']})", *files_lines(record, exercises), ""]
    for exercise in exercises:
        result = record["exercises"].get(exercise["id"])
        if result is None:
            continue
        block = exercise_block(exercise, result, set_names)
        if len(block) > 2 and lines[-1] != "":
            lines.append("")
        lines += block
        if len(block) > 2:
            lines.append("")
    if record.get("error"):
        lines += ["", printable(record["error"], one_line=True)]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def summary_line(record, exercises) -> str:
    """The exercises in one line: how many full, partial, zero (and which are zero)."""
    results = [(ex, record["exercises"][ex["id"]]) for ex in exercises
               if ex["id"] in record["exercises"]]
    full = [ex for ex, r in results if r["max"] and r["points"] >= r["max"]]
    zero = [ex for ex, r in results if r["points"] <= 0 and r["max"]]
    partial = len(results) - len(full) - len(zero)
    text = f"{len(full)} of {len(exercises)} exercises full points"
    if partial:
        text += f", {partial} partial"
    if zero:
        text += f", {len(zero)} zero ({', '.join(ex['id'] for ex in zero)})"
    return text


_XML_FORBIDDEN = re.compile("[\ufffe\uffff]")


def xml_clean(text: str) -> str:
    """`text` as XML 1.0 allows it: no control characters but tab and newline, no lone
    surrogate, no U+FFFE or U+FFFF."""
    return _XML_FORBIDDEN.sub("?", printable(str(text)))


def xml_text(text: str) -> str:
    """`text` as XML 1.0 allows it, escaped for an element's content."""
    return escape(xml_clean(text))


def xml_attr(text: str) -> str:
    """`text` as XML 1.0 allows it, quoted and escaped for an attribute."""
    return quoteattr(xml_clean(text))


def _case_text(set_name, failure) -> str:
    """One failed case in full, for JUnit (a hidden case's failure holds no details)."""
    lines = [_what(failure)]
    if failure.get("mistakes"):
        lines.append(f"looks like: {_mistake(failure)}")
    lines += [f"hint: {hint}" for hint in html_report.named_mistakes(failure).values() if hint]
    if failure.get("details") and set_name == "public":
        lines.append(failure["details"].strip("\n"))
    return "\n".join(lines)


def write_student(folder, record, exercises, rubric):
    lines = feedback_text(record, exercises)
    files = files_lines(record, exercises)
    tests, cases_xml, failures_count, count = [], [], 0, 0
    for exercise in exercises:
        ex_id = exercise["id"]
        result = record["exercises"].get(ex_id)
        if result is None:
            continue
        sets = list(result["sets"].items())
        shares = split(result["max"], [data["cases"] for _, data in sets])
        scores = split(result["points"], [data["passed"] if rubric.partial else data["cases"]
                                          for _, data in sets])
        for (set_name, data), share, score in zip(sets, shares, scores):
            output = "\n".join(exercise_block(exercise, result, [set_name]))
            tests.append({"name": f"{ex_id} {exercise['name']} ({set_name} cases)",
                          "score": score, "max_score": share,
                          "status": "passed" if score >= share else "failed",
                          "output": printable(output),
                          "visibility": "visible" if set_name == "public" else "after_published"})
            suite = f"{ex_id}_{exercise['name']}.{set_name}"
            for failure in data["failures"]:
                count += 1
                failures_count += 1
                cases_xml.append(
                    f'    <testcase classname={xml_attr(suite)} '
                    f'name={xml_attr(failure["case"])}>\n'
                    f'      <failure message={xml_attr(printable(_what(failure), limit=500))}>'
                    f'{xml_text(_case_text(set_name, failure))}</failure>\n'
                    f'    </testcase>')
            for case in data.get("passed_cases", []):
                count += 1
                cases_xml.append(f'    <testcase classname={xml_attr(suite)} '
                                 f'name={xml_attr(case)}/>')
    (folder / "feedback.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "junit.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites>\n  <testsuite name={xml_attr(record["id"])} tests="{count}" '
        f'failures="{failures_count}">\n' + "\n".join(cases_xml)
        + "\n  </testsuite>\n</testsuites>\n",
        encoding="utf-8")
    summary = [f"{_number(record['total'])} of {_number(record['max'])} points; status: "
               f"{record['status']}; " + summary_line(record, exercises)]
    if record.get("error"):
        summary.append(printable(record["error"], one_line=True))
    results = {"score": record["total"], "max_score": record["max"],
               "execution_time": round(record.get("seconds", 0.0)),
               "output": printable("\n".join(summary + files)), "tests": tests}
    (folder / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for name in ("feedback.txt", "junit.xml", "results.json"):
        _private(folder / name)


def write_grader_error(folder, record):
    """The feedback of a student the grader failed on: what the report links to says so."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    (folder / "feedback.txt").write_text(
        f"Feedback for {record['id']}: not graded: {record['error']}\n"
        "(the grader failed on this submission, not the submission: ask your instructor)\n",
        encoding="utf-8")
    _private(folder / "feedback.txt")


def write_class(out, records, exercises, rubric, notes, meta):
    # The header row first: spreadsheets, pandas and LMS imports take line 1 as the header.
    # What it was graded with goes beside it, in grading.json (and the report).
    path = out / "gradebook.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["id", "total", "max"] + [ex["id"] for ex in exercises] + ["status"])
        for record in records:
            writer.writerow([record["id"], record["total"], record["max"]] +
                            [record["exercises"].get(ex["id"], {}).get("points", 0.0)
                             for ex in exercises] + [record["status"]])
    _private(path)
    provenance = {"tool": "tools/grade", "kit_commit": meta["kit_head"],
                  # each set's MANIFEST.json sha256
                  "case_sets": meta.get("case_sets", {name: "" for name in meta["sets"]}),
                  "rubric": {"points": rubric.points, "partial": rubric.partial},
                  "sandbox": meta.get("sandbox"), "notes": notes,
                  "students": len(records),
                  "graded_at": datetime.now(timezone.utc).astimezone().isoformat(
                      timespec="seconds"),
                  "gradebook": "gradebook.csv: id,total,max,<exercise ids>,status"}
    (out / "grading.json").write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
    _private(out / "grading.json")
    timings = {"meta": meta, "students": {
        r["id"]: {"seconds": r["seconds"], "status": r["status"], "error": r.get("error"),
                  "compile_together_s": r.get("compile_together_s"),
                  "compiled_file_by_file": r.get("compiled_together"),
                  "exercises": {ex: e.get("timing", {}) for ex, e in r["exercises"].items()}}
        for r in records}}
    (out / "timings.json").write_text(json.dumps(timings, indent=2) + "\n", encoding="utf-8")
    _private(out / "timings.json")
    (out / "records.json").write_text(json.dumps({"meta": meta, "notes": notes,
                                                  "records": records}, indent=1) + "\n",
                                      encoding="utf-8")
    _private(out / "records.json")
    html_report.write_report(out, records, exercises, rubric, notes, meta)

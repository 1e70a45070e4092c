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
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from . import html_report
from .text import printable


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


def files_lines(record, exercises) -> list:
    """What the grader did not take, and what it found instead, for the student's eyes."""
    files = record.get("files") or {}
    stub = {ex["id"]: Path(ex["stub"]).name for ex in exercises}
    lines = []
    if files.get("missing"):
        lines.append("Not found: " + ", ".join(stub.get(ex_id, ex_id)
                                               for ex_id in files["missing"]))
    for ex_id, why in sorted((files.get("not_taken") or {}).items()):
        lines.append(f"Not taken: {stub.get(ex_id, ex_id)}: {printable(why, one_line=True)}")
    if lines and files.get("found_instead"):
        lines.append("Found instead: " + ", ".join(printable(name, one_line=True)
                                                   for name in files["found_instead"])
                     + " (rename each to the name expected, in your folder or its exercises/)")
    return lines


def exercise_block(exercise, result, set_names=None) -> list:
    """One exercise as a student reads it: its verdict, its note (compiler errors, crashes),
    the first failing case in full, the other failures counted by what they look like, and
    each hint once. `set_names`: only those case sets (Gradescope's one test per set)."""
    head = f"{exercise['id']} {exercise['name']}: {result['points']} of {result['max']} points"
    if result["status"] != "graded":
        head += f" [{result['status']}]"
    lines = [head]
    if result["note"]:
        lines += ["  " + line for line in printable(result["note"].strip()).splitlines()]
    sets = {name: data for name, data in result["sets"].items()
            if set_names is None or name in set_names}
    lines.append("  " + "; ".join(f"{name} cases: {data['passed']} of {data['cases']} passed"
                                  for name, data in sets.items()))
    failures = [(name, failure) for name, data in sets.items() for failure in data["failures"]]
    if not failures:
        return lines
    same = {(f["reason"], f["mistake"]) for _, f in failures}
    first_set, first = failures[0]
    if len(failures) > 1 and len(same) == 1:
        lines.append(f"  every failing case ({len(failures)}): {first['reason']}")
    else:
        lines.append(f"  FAILED {first_set} {first['case']}: {first['reason']}")
    if first.get("crash"):
        lines.append(f"    {first['crash']}")
    if first["mistake"]:
        lines.append(f"    looks like: {first['mistake']}")
    if first.get("details"):  # a public case's: shapes, worst elements, both tensors
        lines += ["  " + line for line in first["details"].strip("\n").splitlines()]
    if len(same) > 1:
        groups = {}  # what a failure looks like -> its cases, in order
        for set_name, failure in failures[1:]:
            key = (f"looks like: {failure['mistake']}" if failure["mistake"]
                   else failure.get("crash") or failure["reason"])
            groups.setdefault(key, []).append(failure["case"])
        lines.append(f"  and {len(failures) - 1} more failing case(s):")
        for key, cases in groups.items():
            shown = ", ".join(cases[:3]) + (f", ... ({len(cases) - 3} more)"
                                            if len(cases) > 3 else "")
            lines.append(f"    {len(cases)} {key[:300]} ({shown})")
    hints = dict.fromkeys(failure["hint"] for _, failure in failures if failure["hint"])
    lines += [f"  hint: {hint}" for hint in hints]
    return lines


def xml_text(text: str) -> str:
    """`text` as XML 1.0 allows it (no control characters), escaped."""
    return escape(printable(text))


def write_student(folder, record, exercises, rubric):
    files = files_lines(record, exercises)
    lines = [f"Feedback for {record['id']}: {record['total']} of {record['max']} points "
             f"({record['status']})", *files, ""]
    tests, cases_xml, failures_count, count = [], [], 0, 0
    for exercise in exercises:
        ex_id = exercise["id"]
        result = record["exercises"][ex_id]
        lines += exercise_block(exercise, result) + [""]
        sets = list(result["sets"].items())
        shares = split(result["max"], [data["cases"] for _, data in sets])
        scores = split(result["points"], [data["passed"] if rubric.partial else data["cases"]
                                          for _, data in sets])
        for (set_name, data), share, score in zip(sets, shares, scores):
            tests.append({"name": f"{ex_id} {exercise['name']} ({set_name} cases)",
                          "score": score, "max_score": share,
                          "output": "\n".join(exercise_block(exercise, result, [set_name])),
                          "visibility": "visible" if set_name == "public" else "after_published"})
            suite = f"{ex_id}_{exercise['name']}.{set_name}"
            for failure in data["failures"]:
                count += 1
                failures_count += 1
                cases_xml.append(
                    f'    <testcase classname={quoteattr(suite)} '
                    f'name={quoteattr(printable(failure["case"]))}>\n'
                    f'      <failure message={quoteattr(printable(failure["reason"][:500]))}>'
                    f'{xml_text(failure["mistake"] + chr(10) + failure["hint"])}</failure>\n'
                    f'    </testcase>')
            for case in data.get("passed_cases", []):
                count += 1
                cases_xml.append(f'    <testcase classname={quoteattr(suite)} '
                                 f'name={quoteattr(printable(case))}/>')
    (folder / "feedback.txt").write_text("\n".join(lines), encoding="utf-8")
    (folder / "junit.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites>\n  <testsuite name={quoteattr(record["id"])} tests="{count}" '
        f'failures="{failures_count}">\n' + "\n".join(cases_xml) + "\n  </testsuite>\n</testsuites>\n",
        encoding="utf-8")
    summary = [f"{record['total']} of {record['max']} points; status: {record['status']}"]
    results = {"score": record["total"], "max_score": record["max"],
               "execution_time": round(record.get("seconds", 0.0)),
               "output": "\n".join(summary + files), "tests": tests}
    (folder / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for name in ("feedback.txt", "junit.xml", "results.json"):
        _private(folder / name)


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
                  "case_sets": meta.get("case_sets", {name: "" for name in meta["sets"]}),
                  "rubric": {"points": rubric.points, "partial": rubric.partial},
                  "sandbox": meta.get("sandbox"), "notes": notes,
                  "students": len(records)}
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

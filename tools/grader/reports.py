"""What the grader writes: gradebook.csv, records.json, timings.json, report.html
(html_report.py), and per student feedback.txt, junit.xml, results.json (Gradescope's
autograder format).

records.json holds everything the class-wide outputs are made from (the records, the notes, the
run's meta), so `tools/grade merge` can rebuild them from shards without grading again."""

from __future__ import annotations

import csv
import json
import os
from xml.sax.saxutils import escape, quoteattr

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


def write_student(folder, record, exercises, rubric):
    lines = [f"Feedback for {record['id']}: {record['total']} of {record['max']} points "
             f"({record['status']})", ""]
    tests, cases_xml, failures_count, count = [], [], 0, 0
    for exercise in exercises:
        ex_id = exercise["id"]
        result = record["exercises"][ex_id]
        head = f"{ex_id} {exercise['name']}: {result['points']} of {result['max']} points"
        if result["status"] != "graded":
            head += f" [{result['status']}]"
        lines.append(head)
        if result["note"]:
            lines += ["  " + line for line in result["note"].strip().splitlines()]
        sets = list(result["sets"].items())
        shares = split(result["max"], [data["cases"] for _, data in sets])
        scores = split(result["points"], [data["passed"] if rubric.partial else data["cases"]
                                          for _, data in sets])
        for (set_name, data), share, score in zip(sets, shares, scores):
            lines.append(f"  {set_name} cases: {data['passed']} of {data['cases']} passed")
            for failure in data["failures"]:
                lines.append(f"    FAILED {failure['case']}: {failure['reason']}")
                if failure["mistake"]:
                    lines.append(f"      looks like: {failure['mistake']}")
                if failure["hint"]:
                    lines.append(f"      hint: {failure['hint']}")
            output = "\n".join(f"{f['case']}: {f['reason']}" +
                               (f"\n  looks like: {f['mistake']}" if f["mistake"] else "") +
                               (f"\n  hint: {f['hint']}" if f["hint"] else "")
                               for f in data["failures"]) or "all cases passed"
            if result["note"] and result["status"] != "graded":
                output = result["note"].strip() + "\n" + output
            tests.append({"name": f"{ex_id} {exercise['name']} ({set_name} cases)",
                          "score": score, "max_score": share,
                          "output": output,
                          "visibility": "visible" if set_name == "public" else "after_published"})
            suite = f"{ex_id}_{exercise['name']}.{set_name}"
            for failure in data["failures"]:
                count += 1
                failures_count += 1
                cases_xml.append(
                    f'    <testcase classname={quoteattr(suite)} '
                    f'name={quoteattr(failure["case"])}>\n'
                    f'      <failure message={quoteattr(failure["reason"][:500])}>'
                    f'{escape(failure["mistake"] + chr(10) + failure["hint"])}</failure>\n'
                    f'    </testcase>')
            for case in data.get("passed_cases", []):
                count += 1
                cases_xml.append(f'    <testcase classname={quoteattr(suite)} '
                                 f'name={quoteattr(case)}/>')
        lines.append("")
    (folder / "feedback.txt").write_text("\n".join(lines), encoding="utf-8")
    (folder / "junit.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites>\n  <testsuite name={quoteattr(record["id"])} tests="{count}" '
        f'failures="{failures_count}">\n' + "\n".join(cases_xml) + "\n  </testsuite>\n</testsuites>\n",
        encoding="utf-8")
    results = {"score": record["total"], "max_score": record["max"], "tests": tests,
               "output": f"status: {record['status']}"}
    (folder / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for name in ("feedback.txt", "junit.xml", "results.json"):
        _private(folder / name)


def write_class(out, records, exercises, rubric, notes, meta):
    path = out / "gradebook.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        stream.write(f"# tools/grade, kit {meta['kit_head']}, case sets: {', '.join(meta['sets'])}; "
                     f"rubric: {'partial' if rubric.partial else 'all-or-nothing'}\n")
        for note in notes:
            stream.write(f"# {note}\n")
        writer = csv.writer(stream)
        writer.writerow(["id", "total", "max"] + [ex["id"] for ex in exercises] + ["status"])
        for record in records:
            writer.writerow([record["id"], record["total"], record["max"]] +
                            [record["exercises"].get(ex["id"], {}).get("points", 0.0)
                             for ex in exercises] + [record["status"]])
    _private(path)
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

"""OUT/report.html: the class at a glance, for the instructor (tools/grader/README.md).

One self-contained file (inline CSS and SVG, no script, no network): the run's header and
summary, an SVG chart of each exercise's pass rate, the mistakes the judge named counted over
the class (what to teach again), and the per-student table. reports.write_class writes it
after records.json; to rebuild it from OUT/records.json alone, from the kit's root:

    python3 -m tools.grader.html_report OUT

Student ids, notes and the judge's texts are untrusted: everything goes through html.escape.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from datetime import datetime
from html import escape
from pathlib import Path
from urllib.parse import quote

from kitlib import catalogue
from kitlib.statuses import STATUSES

from .rubric import Rubric

KIT = Path(__file__).resolve().parents[2]
# What happened to one exercise of a student, worst first.
PROBLEMS = ("not taken", "no file", "build-failed", "timed-out", "crashed", "not implemented")
PROBLEM_FLAG = {"crashed": "crashed", "timed-out": "timed out", "build-failed": "no build",
                "no file": "no file", "not taken": "not taken"}
PROBLEM_VERB = {"crashed": "crashed in a case", "timed-out": "timed out in a case",
                "build-failed": "did not build", "no file": "handed in no file",
                "not taken": "had their file not taken",
                "not implemented": "left functions of it not implemented (the kit's stub)"}
# The chart's bar fill: a colour nothing else on the page uses, so a screenshot's pixels of
# exactly this colour are the bars (tests/grading/check_report.py counts them).
BAR_FILL = "#3f7cc4"
TRACK_FILL = "#eef2f8"
CHART_WIDTH, CHART_PLOT_HEIGHT = 960, 248  # px: the plot's height, labels apart
TOP_N_MISTAKES = 5
LONG_ID = 16  # characters: a longer student id may wrap anywhere, keeping its column narrow

CSS = """
body { font: 15px/1.45 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1d2430;
       margin: 24px 32px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid #d5dbe4; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 0 0 6px; }
code { font: 13px "DejaVu Sans Mono", monospace; }
.meta { color: #4a5566; margin: 0; }
.notes { background: #fff7e0; border: 1px solid #f0d68a; padding: 6px 12px; margin: 10px 0 0; }
.notes li { margin-left: 16px; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 0; padding: 0; }
.tile { list-style: none; border: 1px solid #d5dbe4; border-radius: 6px; padding: 8px 14px;
        min-width: 110px; }
.tile b { display: block; font-size: 22px; }
.tile span { color: #4a5566; font-size: 13px; }
.caption { color: #4a5566; font-size: 13px; margin: 4px 0 0; max-width: 960px; }
#chart svg { max-width: 100%; height: auto; }
#mistakes .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr));
                  gap: 14px; }
#mistakes article { border: 1px solid #d5dbe4; border-radius: 6px; padding: 10px 14px;
                    break-inside: avoid; }
#mistakes ol { margin: 0; padding-left: 22px; }
#mistakes li { margin: 0 0 6px; }
#mistakes .count { font-weight: bold; }
#mistakes .hint { color: #4a5566; font-size: 13px; }
#mistakes .other { color: #4a5566; font-size: 13px; margin: 6px 0 0; }
#mistakes .none { color: #4a5566; margin: 0; }
#mistakes .caption { margin-bottom: 12px; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid #d5dbe4; padding: 3px 8px; text-align: right; }
th { background: #e9eef6; font-weight: 600; vertical-align: bottom; }
/* Wider than the window (many exercises, long flags), the table scrolls inside its own box,
   never the page. */
.scroll { max-width: 100%; overflow-x: auto; }
th.exercise { cursor: help; }
#students tr > :first-child { position: sticky; left: 0; }  /* the ids stay while it scrolls */
#students td:first-child { background: #fff; }
td.id, th.id { text-align: left; }
td.total { white-space: nowrap; }
/* A long id or error wraps within a bounded width: its column stays narrow. */
td.id.long a { display: inline-block; max-width: 11em; overflow-wrap: anywhere; }
td.full { background: #dcf1de; }
td.partial { background: #fdf0c4; }
td.zero { background: #f8dcd8; }
td.missing { color: #8a94a3; text-align: center; }
.flag { display: block; font-size: 11px; font-weight: bold; color: #8c1d12;
        text-transform: uppercase; letter-spacing: 0.03em; }
.status { text-align: left; white-space: nowrap; }
.status .flag { white-space: normal; overflow-wrap: anywhere; max-width: 14em; }
.status.bad { color: #8c1d12; font-weight: bold; }
.legend { font-size: 13px; color: #4a5566; margin: 0 0 6px; }
.legend span { display: inline-block; padding: 0 6px; margin-right: 6px;
                border: 1px solid #d5dbe4; }
footer { margin-top: 28px; color: #4a5566; font-size: 12px; }
@media print {
  body { margin: 0; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
}
"""


def _number(value: float) -> str:
    """Points as an instructor writes them: 10, 4, 3.33."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _percent(share: float) -> str:
    """Rounded down: 100 % only when every case passed."""
    return f"{int(100 * share + 1e-9)} %"


def _students(count: int) -> str:
    return f"{count} student" + ("" if count == 1 else "s")


def not_implemented(failure: dict) -> bool:
    """Whether a case failed because its call is still the kit's stub: the judge's
    "not_implemented" (docs/verdicts.md), never what the failure's text says."""
    return bool(failure.get("not_implemented"))


def named_mistakes(failure: dict) -> dict:
    """{mistake: hint} of one failed case (grade.py's list, each mistake once)."""
    return {mistake["name"]: mistake["hint"] for mistake in failure.get("mistakes", [])}


def file_problem(record: dict, ex_id: str) -> str:
    """"no file" or "not taken" when the student's file for `ex_id` was not found or not
    taken (records.json's "files", submission.py's summary()), else ""."""
    files = record.get("files") or {}
    not_taken = files.get("not_taken") or {}
    if ex_id in not_taken:
        return "not taken"
    return "no file" if ex_id in (files.get("missing") or []) else ""


def problems_of(record: dict, ex_id: str) -> set:
    """What happened to one exercise of a student: its file not found or not taken, no build,
    and each case that timed out or crashed (its failure's "crash" has the kind, grade.py)."""
    result = record["exercises"][ex_id]
    problems = {file_problem(record, ex_id)} - {""}
    if result["status"] != "graded":
        problems.add(result["status"])
    for data in result["sets"].values():
        for failure in data["failures"]:
            if failure.get("crash"):
                problems.add(failure["crash"]["kind"])  # "timed-out" or "crashed"
            elif not_implemented(failure):
                problems.add("not implemented")
    return problems


def exercise_stats(records: list, exercise: dict) -> dict:
    """Over the students graded on `exercise` (a grader error leaves a record without
    exercises): the share of cases passed, who got full points, each named mistake's students
    and hint, and how many students' exercise had no file or a file not taken, did not build,
    timed out or crashed in a case, or (otherwise) failed cases without a named mistake. Each
    count is of students, not cases: a student's mistake in 4 cases counts 1, what happened to
    3 cases of one student counts 1 (what to teach again)."""
    ex_id = exercise["id"]
    graded = [r for r in records if ex_id in r["exercises"]]
    results = [r["exercises"][ex_id] for r in graded]
    cases = sum(s["cases"] for e in results for s in e["sets"].values())
    passed = sum(s["passed"] for e in results for s in e["sets"].values())
    # Counted by family (docs/verdicts.md: a slip whatever its dim), shown by the first name
    # met of each family.
    mistakes, shown, hints, problems, unnamed = Counter(), {}, {}, Counter(), 0
    for record, result in zip(graded, results):
        happened = problems_of(record, ex_id)
        problems.update(happened)
        named, without_name = set(), False
        for data in result["sets"].values():
            for failure in data["failures"]:
                if not (failure.get("mistakes") or failure.get("crash") or
                        not_implemented(failure)):
                    without_name = True
                for mistake in failure.get("mistakes", []):
                    family = mistake.get("family") or mistake["name"]
                    named.add(family)
                    name = shown.setdefault(family, mistake["name"])
                    if mistake["hint"]:
                        hints.setdefault(name, mistake["hint"])
        mistakes.update(named)  # a set: each mistake once per student
        # No file, no build, or a run that stopped before its first case (no case names its
        # crash): that already explains its cases without a result.
        stopped_early = result["status"] in ("crashed", "timed-out") and not any(
            failure.get("crash") for data in result["sets"].values()
            for failure in data["failures"])
        unnamed += without_name and not stopped_early and \
            not happened & {"no file", "not taken", "build-failed"}
    return {"students": len(results), "rate": passed / cases if cases else 0.0,
            "full": sum(1 for e in results if e["max"] and e["points"] >= e["max"]),
            "mistakes": sorted(((shown[family], count) for family, count in mistakes.items()),
                               key=lambda m: (-m[1], m[0]))[:TOP_N_MISTAKES],
            "hints": hints,
            "problems": problems, "unnamed": unnamed}


# Glyph advances of DejaVu Sans (the chart's font) in em, rounded up: digits, then the few
# other characters a label under a bar holds; anything else counts as a wide letter. Bold
# is about a tenth wider.
_ADVANCE = dict.fromkeys("0123456789", 0.64) | {" ": 0.32, "/": 0.34, "%": 0.96, ".": 0.32}


def text_width(text: str, size: float, bold: bool = False) -> float:
    """An upper bound of `text`'s width in px at `size` px in DejaVu Sans."""
    return sum(_ADVANCE.get(char, 0.8) for char in text) * size * (1.1 if bold else 1.0)


def _label(text: str, centre: float, y: float, size: int, rotated: bool, anchor: str = "end",
           **style) -> str:
    """One label centred on a bar at `centre`: horizontal, its baseline at `y`, or (where it
    would not fit the bar's slot) turned a quarter, reading upwards, hanging down from `y`
    (anchor="start": rising up from `y`)."""
    attributes = "".join(f' {name.replace("_", "-")}="{value}"' for name, value in style.items())
    if not rotated:
        return (f'<text x="{centre:.1f}" y="{y:.1f}" text-anchor="middle" font-size="{size}"'
                f'{attributes}>{escape(text)}</text>')
    x = centre + size * 0.35  # the glyphs' middle on the bar's centre line
    return (f'<text class="rotated" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" '
            f'font-size="{size}" transform="rotate(-90 {x:.1f} {y:.1f})"{attributes}>'
            f'{escape(text)}</text>')


def chart_svg(exercises: list, stats: dict) -> str:
    """Bars of the share of cases passed per exercise, 0-100 %, at a fixed width (so every
    browser draws it alike, whatever the class size), whole-pixel bars. Under each bar its
    id (its name too where the slot is wide) and how many students got full points; a label
    wider than its bar's slot is turned upright, so no two labels overlap. Hovering a bar
    names the exercise (its <title>)."""
    left, right, gap = 56, 16, 4
    slot = (CHART_WIDTH - left - right) / max(len(exercises), 1)
    bar_w = int(min(80, slot * 0.6))
    rows = [(ex, stats[ex["id"]]) for ex in exercises]
    # The name fits under a wide bar; else the id alone (the tooltip, the table and the
    # mistakes section name it).
    names = [f"{ex['id']} {ex['name']}" if slot >= 120 else ex["id"] for ex, _ in rows]
    counts = [f"{data['full']}/{data['students']}" for _, data in rows]
    rates = [_percent(data["rate"]) for _, data in rows]
    if any(text_width(rate, 13, True) > slot - gap for rate in rates):
        rates = [rate.removesuffix(" %") for rate in rates]  # the axis says %
    if slot >= 120:
        counts = [f"{count} full" for count in counts]

    def upright(texts, size, bold=False):
        return any(text_width(text, size, bold) > slot - gap for text in texts)

    rate_up, name_up, count_up = upright(rates, 13, True), upright(names, 13), upright(counts, 12)

    def height(texts, size, up):  # of a row of labels
        return max(text_width(text, size) for text in texts) + 8 if up and texts else size + 7

    top = 12 + height(rates, 13, rate_up) if rate_up else 30
    name_row = top + CHART_PLOT_HEIGHT + (8 if name_up else 20)
    count_row = top + CHART_PLOT_HEIGHT + height(names, 13, name_up) + 8 + (
        0 if count_up else 12)
    chart_height = round(top + CHART_PLOT_HEIGHT + height(names, 13, name_up)
                         + height(counts, 12, count_up) + 12)
    plot_h = CHART_PLOT_HEIGHT
    described = ", ".join(f"{ex['id']} {ex['name']} {_percent(data['rate'])}"
                          for ex, data in rows)
    parts = [f'<svg id="pass-rate-chart" role="img" xmlns="http://www.w3.org/2000/svg" '
             f'width="{CHART_WIDTH}" height="{chart_height}" '
             f'viewBox="0 0 {CHART_WIDTH} {chart_height}" '
             f'font-family="DejaVu Sans, sans-serif" '
             f'aria-label="{escape("Cases passed per exercise: " + described)}">',
             "<title>Share of each exercise's value cases passed, over all students</title>"]
    for tick in range(0, 101, 25):
        y = top + plot_h - round(plot_h * tick / 100)
        parts.append(f'<line x1="{left}" x2="{CHART_WIDTH - right}" y1="{y}" y2="{y}" '
                     f'stroke="#d5dbe4"/>'
                     f'<text x="{left - 8}" y="{y + 4}" text-anchor="end" font-size="12" '
                     f'fill="#4a5566">{tick} %</text>')
    if slot < 120:  # what the row of counts is
        parts.append(f'<text x="{left - 8}" y="{count_row if not count_up else count_row + 10}" '
                     f'text-anchor="end" font-size="12" fill="#4a5566">full</text>')
    for i, (exercise, data) in enumerate(rows):
        centre = left + slot * (i + 0.5)
        x = round(centre - bar_w / 2)
        bar = round(plot_h * data["rate"])
        tooltip = (f"{exercise['id']} {exercise['name']}: {_percent(data['rate'])} of the cases "
                   f"passed; {data['full']} of {_students(data['students'])} got full points")
        parts.append(
            f'<g class="exercise"><title>{escape(tooltip)}</title>'
            f'<rect class="track" x="{x}" y="{top}" width="{bar_w}" height="{plot_h}" '
            f'fill="{TRACK_FILL}"/>'
            f'<rect class="bar" data-exercise="{escape(exercise["id"])}" '
            f'data-rate="{data["rate"]:.4f}" x="{x}" y="{top + plot_h - bar}" '
            f'width="{bar_w}" height="{bar}" fill="{BAR_FILL}"/>'
            + _label(rates[i], centre, top + plot_h - bar - 6, 13, rate_up, anchor="start",
                     font_weight="bold", fill="#1d2430")
            + _label(names[i], centre, name_row, 13, name_up, fill="#1d2430")
            + _label(counts[i], centre, count_row, 12, count_up, fill="#4a5566") + "</g>")
    parts.append(f'<line x1="{left}" x2="{CHART_WIDTH - right}" y1="{top + plot_h}" '
                 f'y2="{top + plot_h}" stroke="#8a94a3"/></svg>')
    return "".join(parts)


def mistakes_section(exercises: list, stats: dict) -> str:
    articles = []
    for exercise in exercises:
        data = stats[exercise["id"]]
        share = (lambda n: _percent(n / data["students"])) if data["students"] else str
        items = "".join(
            f'<li><span class="count">{_students(count)}</span> ({share(count)}): '
            f'{escape(name)}' +
            (f'<div class="hint">Hint: {escape(data["hints"][name])}</div>'
             if data["hints"].get(name) else "") + "</li>"
            for name, count in data["mistakes"])
        body = f"<ol>{items}</ol>" if items else '<p class="none">No named mistake.</p>'
        other = [f"{_students(data['problems'][problem])} {PROBLEM_VERB[problem]}"
                 for problem in PROBLEMS if data["problems"][problem]]
        if data["unnamed"]:
            other.append(f"{_students(data['unnamed'])} failed cases without a named mistake")
        other.append(f"full points: {data['full']} of {_students(data['students'])}")
        articles.append(
            f'<article data-exercise="{escape(exercise["id"])}"><h3>{escape(exercise["id"])} '
            f'{escape(exercise["name"])} — {escape(exercise.get("title", ""))}</h3>{body}'
            f'<p class="other">{escape(" · ".join(other))}</p></article>')
    return ('<section id="mistakes"><h2>What to teach again</h2>'
            '<p class="caption">Per exercise, the mistakes the judge recognised in the students\' '
            'results, most common first (top 5), each counted once per student however many of '
            'their cases show it; below, how many students had no file, no build, or a case that '
            'timed out or crashed. A failed case without a named mistake has no result (an '
            'exception) or an error the judge has no name for: the student\'s feedback.txt shows '
            'it.</p>'
            f'<div class="grid">{"".join(articles)}</div></section>')


def student_table(records: list, exercises: list) -> str:
    # An exercise's column is headed by its number, its name in the tooltip: 23 names side by
    # side would make the table wider than a screen.
    head = "".join(f'<th class="exercise" title="{escape(ex["id"] + " " + ex["name"])}">'
                   f'{escape(ex["id"])}</th>' for ex in exercises)
    rows = []
    for record in sorted(records, key=lambda r: r["id"]):
        cells = []
        for exercise in exercises:
            result = record["exercises"].get(exercise["id"])
            if result is None:
                cells.append('<td class="missing">—</td>')
                continue
            kind = "full" if result["max"] and result["points"] >= result["max"] else \
                "partial" if result["points"] > 0 else "zero"
            problem = file_problem(record, exercise["id"]) or \
                (result["status"] if result["status"] in PROBLEM_FLAG else "")
            flag = f'<span class="flag">{PROBLEM_FLAG[problem]}</span>' if problem else ""
            said = result["note"].strip().splitlines() + [
                f"{stop['case'] or 'before any case'}: {stop['why']}"
                for stop in result.get("stopped", [])]
            title = said[0] if said else ""
            cells.append(f'<td class="{kind}" title="{escape(title)}">'
                         f'{_number(result["points"])}{flag}</td>')
        status = escape(record["status"])
        if record.get("error"):  # a grader error: its start in the cell, all of it on hover
            error = record["error"]
            status += (f'<span class="flag" title="{escape(error)}">'
                       f'{escape(error[:120] + ("…" if len(error) > 120 else ""))}</span>')
        student_id = escape(record["id"])
        # Status beside the total, not after 23 exercise columns: in sight at 1280 px.
        # The id quoted as one path segment ("?" and "#" too), then escaped for the attribute.
        long = " long" if len(record["id"]) > LONG_ID else ""
        rows.append(f'<tr><td class="id{long}"><a href="students/'
                    f'{escape(quote(record["id"], safe=""))}/'
                    f'feedback.txt">{student_id}</a></td><td class="total">'
                    f'{_number(record["total"])} / '
                    f'{_number(record["max"])}</td>'
                    f'<td class="status{"" if record["status"] == "graded" else " bad"}">'
                    f'{status}</td>{"".join(cells)}</tr>')
    return ('<section id="students-section"><h2>Students</h2><p class="legend">'
            '<span style="background:#dcf1de">full points</span>'
            '<span style="background:#fdf0c4">partial</span>'
            '<span style="background:#f8dcd8">zero</span>'
            'NO FILE / NOT TAKEN / NO BUILD / TIMED OUT / CRASHED: what happened to that exercise; '
            'each student links to their feedback.txt</p>'
            '<div class="scroll" id="students-box"><table id="students"><thead><tr>'
            '<th class="id">Student</th><th>Total</th>'
            f'<th class="id">Status</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
            '</table></div></section>')


def render(records: list, exercises: list, rubric: Rubric, notes: list, meta: dict,
           graded_at: datetime) -> str:
    stats = {ex["id"]: exercise_stats(records, ex) for ex in exercises}
    totals = [r["total"] for r in records]
    statuses = Counter(r["status"] for r in records)
    points = sorted({_number(p) for p in rubric.points.values()})
    each = f"{points[0]} per exercise" if len(points) == 1 else "points per exercise vary"
    rubric_text = (f"{'partial credit per case' if rubric.partial else 'all-or-nothing'}, "
                   f"{_number(rubric.total)} points ({each})")
    fingerprints = meta.get("case_sets", {})
    sets = ", ".join(f"{name} (manifest sha256 {fingerprints[name][:12]})"
                     if fingerprints.get(name) else name for name in meta.get("sets", []))
    header = (f"kit <code>{escape(meta.get('kit_head', '?')[:10])}</code> · case sets: "
              f"{escape(sets)} · rubric: {escape(rubric_text)} · "
              f"{_students(len(records))} · graded {graded_at:%Y-%m-%d %H:%M %Z}"
              f"{'' if meta.get('sandboxed', True) else ' · not sandboxed'}"
              f" · sandbox: {escape(str(meta.get('sandbox', '?')))}")
    notes_html = ('<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) +
                  "</ul>") if notes else ""
    tiles = [(_number(statistics.mean(totals)) if totals else "—", "mean total"),
             (_number(statistics.median(totals)) if totals else "—", "median total"),
             (_number(rubric.total), "max")] + \
        [(str(statuses[s]), s) for s in STATUSES]
    tiles_html = "".join(f'<li class="tile"><b>{escape(v)}</b><span>{escape(k)}</span></li>'
                         for v, k in tiles)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width">'
        f'<title>Attention Kit — class report</title><style>{CSS}</style></head><body>'
        f'<header><h1>Attention Kit — class report</h1><p class="meta">{header}</p>{notes_html}'
        f'<ul class="tiles" id="summary">{tiles_html}</ul></header>'
        f'<section id="chart"><h2>Pass rate per exercise</h2>{chart_svg(exercises, stats)}'
        '<p class="caption">Bars, and the number on each: the share (%) of the exercise\'s '
        'value cases passed, over all students (a student who passed 3 of 5 cases adds 3 passed '
        'and 5 cases). Under each bar: its exercise, and how many students got its full points '
        '(hover a bar for its name).</p></section>'
        f'{mistakes_section(exercises, stats)}{student_table(records, exercises)}'
        '<footer>Each student\'s feedback (what passed and failed, with the teaching messages): '
        '<code>OUT/students/&lt;student&gt;/feedback.txt</code>, beside it <code>junit.xml</code> '
        'and Gradescope\'s <code>results.json</code>; the grades: <code>OUT/gradebook.csv</code> '
        '(header row first), what they were graded with: <code>OUT/grading.json</code>. '
        'This page is made from <code>OUT/records.json</code> by tools/grade '
        '(<code>python3 -m tools.grader.html_report OUT</code> makes it again).</footer>'
        '</body></html>\n')


def write_report(out: Path, records: list, exercises: list, rubric: Rubric, notes: list,
                 meta: dict) -> None:
    records_file = out / "records.json"
    # The grading time: when records.json was written (also when rebuilt later from it).
    graded_at = datetime.fromtimestamp(records_file.stat().st_mtime) if records_file.exists() \
        else datetime.now()
    path = out / "report.html"
    path.write_text(render(records, exercises, rubric, notes, meta, graded_at.astimezone()),
                    encoding="utf-8")
    os.chmod(path, 0o600)


def rubric_of(out: Path, meta: dict) -> Rubric:
    """The run's rubric: records.json's meta names it, else grading.json."""
    if "rubric" not in meta:
        meta = json.loads((out / "grading.json").read_text(encoding="utf-8"))
    return Rubric(dict(meta["rubric"]["points"]), bool(meta["rubric"]["partial"]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tools.grader.html_report",
                                     description="rebuild OUT/report.html from OUT/records.json")
    parser.add_argument("out", type=Path, help="the folder tools/grade --out wrote")
    args = parser.parse_args(argv)
    try:
        data = json.loads((args.out / "records.json").read_text(encoding="utf-8"))
    except OSError as error:
        print(f"html_report: {error} (tools/grade writes records.json in --out)", file=sys.stderr)
        return 1
    try:
        exercises = catalogue.load(KIT)["exercises"]
    except catalogue.CatalogueError as error:
        print(f"html_report: {error}", file=sys.stderr)
        return 1
    write_report(args.out, data["records"], exercises,
                 rubric_of(args.out, data["meta"]), data["notes"], data["meta"])
    print(args.out / "report.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tests/grading/check_report.py — tools/grade's report.html as a browser shows it (CI).

    python3 tests/grading/check_report.py OUT/report.html [--screenshot PNG] [--height H]

Renders the page in Debian's headless `chromium` twice, in a 1280 x H window: --dump-dom of a
copy of the page with a probe script added (the report itself has no script), and a
--screenshot of the page. Then checks
  - the rendered DOM (check_dom): the chart <svg id="pass-rate-chart"> with its title and
    aria-label and one bar per exercise of OUT/gradebook.csv, in order; <table id="students">
    with one row per student of gradebook.csv, each id once, with a cell per exercise; the
    mistakes section with one article per exercise;
  - the layout the probe measured (check_layout): the page no wider than the 1280 px window
    (no horizontal scrolling), the students table's box (which may scroll sideways) and its
    Status column inside it;
  - the screenshot (read with zlib + struct): its size is the window asked for, the top of the
    page is not blank, the bars' own fill colour covers the area the DOM gives the bars (the SVG
    was drawn, at its size), and the table's header colour shows (the table is in the shot).
Prints one line on success; exits 1 naming what is missing. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from html.parser import HTMLParser
from pathlib import Path

WIDTH = 1280
# Colours only these parts of report.html use (tools/grader/html_report.py).
BAR_RGB = (0x3F, 0x7C, 0xC4)          # BAR_FILL: the chart's bars
TRACK_RGB = (0xEE, 0xF2, 0xF8)        # TRACK_FILL: the 0-100 % track behind each bar
TABLE_HEAD_RGB = (0xE9, 0xEE, 0xF6)   # the students table's header cells
TOP_ROWS = 800                        # the header, the summary and the chart
CHROMIUM_TIMEOUT_S = 120
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # HTML elements without an end tag


# Added to a copy of the page before --dump-dom: measures the laid-out page and leaves the
# numbers in <body data-layout="{json}">, which the dump then holds.
LAYOUT_PROBE = """<script>(function () {
  var page = document.documentElement, layout = {scrollWidth: page.scrollWidth,
    innerWidth: window.innerWidth, columns: []};
  document.querySelectorAll("#students thead th").forEach(function (th) {
    var box = th.getBoundingClientRect();
    layout.columns.push([th.firstChild ? th.firstChild.textContent.trim() : "",
                         Math.round(box.left), Math.round(box.right)]);
  });
  // The table may scroll sideways inside its own box: the box is what must fit.
  var table = document.getElementById("students-box") || document.getElementById("students");
  if (table) { var box = table.getBoundingClientRect();
               layout.table = [Math.round(box.left), Math.round(box.right)]; }
  document.body.setAttribute("data-layout", JSON.stringify(layout));
})();</script>"""


class ReportParser(HTMLParser):
    """What check_dom needs from the page: the chart, its bars, the table rows' cells, the
    mistakes section's articles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.chart = None             # the chart svg's attributes
        self.chart_title = False
        self.bars = []                # attributes of each rect.bar in the chart
        self.rows = []                # per tbody row of the table: its cells' text
        self.table = False
        self.mistakes = None          # data-exercise of each article in section#mistakes
        self.layout = None            # <body data-layout>: what LAYOUT_PROBE measured
        self._open = []               # (tag, role) of the open elements
        self._cell = None

    def _inside(self, role):
        return any(r == role for _, r in self._open)

    def handle_starttag(self, tag, attrs):
        role = self._start(tag, dict(attrs))
        if tag not in VOID:
            self._open.append((tag, role))

    def handle_startendtag(self, tag, attrs):  # <rect .../>: nothing to close later
        self._start(tag, dict(attrs))

    def _start(self, tag, attrs):
        role = None
        if tag == "body" and attrs.get("data-layout"):
            self.layout = json.loads(attrs["data-layout"])
        if tag == "svg" and attrs.get("id") == "pass-rate-chart":
            self.chart, role = attrs, "chart"
        elif tag == "title" and self._inside("chart"):
            self.chart_title = True
        elif tag == "rect" and self._inside("chart") and "bar" in attrs.get("class", "").split():
            self.bars.append(attrs)
        elif tag == "table" and attrs.get("id") == "students":
            self.table, role = True, "table"
        elif tag == "tbody" and self._inside("table"):
            role = "tbody"
        elif tag == "tr" and self._inside("tbody"):
            self.rows.append([])
        elif tag == "td" and self._inside("tbody"):
            self._cell = []
        elif tag == "section" and attrs.get("id") == "mistakes":
            self.mistakes, role = [], "mistakes"
        elif tag == "article" and self._inside("mistakes"):
            self.mistakes.append(attrs.get("data-exercise"))
        return role

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None and self.rows:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None
        # Close the innermost open `tag`; an end tag with none open (</rect>) closes nothing.
        for depth in range(len(self._open) - 1, -1, -1):
            if self._open[depth][0] == tag:
                del self._open[depth:]
                break

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def check_dom(html_text: str, students: list, exercises: list) -> tuple[list, int]:
    """The problems with a rendered report.html (none: an empty list) for a class of
    `students` ids and `exercises` ids, and the bars' area in px (for the screenshot)."""
    page = ReportParser()
    page.feed(html_text)
    problems = []
    if page.chart is None:
        problems.append('no chart: <svg id="pass-rate-chart">')
    else:
        for name in ("role", "aria-label", "width", "height"):
            if not page.chart.get(name):
                problems.append(f"the chart svg has no {name}")
        if not page.chart_title:
            problems.append("the chart svg has no <title>")
        bar_ids = [bar.get("data-exercise") for bar in page.bars]
        if bar_ids != exercises:
            problems.append(f"the chart's bars are for {bar_ids}, not one per exercise "
                            f"{exercises}")
    if not page.table:
        problems.append('no students table: <table id="students">')
    else:
        ids = [row[0] if row else "" for row in page.rows]
        missing = [s for s in students if s not in ids]
        extra = sorted({i for i in ids if i not in students or ids.count(i) > 1})
        if missing:
            problems.append(f"the students table has no row for {missing}")
        if extra:
            problems.append(f"the students table has unexpected or repeated rows {extra}")
        short = [row[0] for row in page.rows if row and len(row) != len(exercises) + 3]
        if short:
            problems.append(f"rows without id, total, a cell per exercise and status: {short}")
    if page.mistakes is None:
        problems.append('no mistakes section: <section id="mistakes">')
    elif page.mistakes != exercises:
        problems.append(f"the mistakes section is about {page.mistakes}, not {exercises}")
    area = sum(int(float(b.get("width", 0))) * int(float(b.get("height", 0))) for b in page.bars)
    return problems, area


def check_layout(layout: dict | None, width: int = WIDTH) -> list:
    """The problems with the page as laid out in a `width` px window: wider than the window
    (a horizontal scroll bar), the students table or its Status column past its right edge."""
    if layout is None:
        return ["no layout measured (the probe script did not run)"]
    problems = []
    if layout["innerWidth"] != width:
        problems.append(f"the window was {layout['innerWidth']} px wide, not {width}")
    if layout["scrollWidth"] > width:
        problems.append(f"the page is {layout['scrollWidth']} px wide: it does not fit a "
                        f"{width} px window without scrolling sideways")
    if layout.get("table") and layout["table"][1] > width:
        problems.append(f"the students table ends at {layout['table'][1]} px, past the "
                        f"{width} px window")
    status = [column for column in layout.get("columns", []) if column[0] == "Status"]
    if not status:
        problems.append("the students table has no Status column")
    elif status[0][2] > width:
        problems.append(f"the Status column ends at {status[0][2]} px, off a {width} px window")
    return problems


def read_png(path: Path) -> tuple[int, int, list]:
    """(width, height, rows): each row a bytes of RGB triples. 8-bit RGB or RGBA,
    non-interlaced: what Chromium writes."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: PNG depth {depth}, colour type {colour}, "
                                 f"interlace {interlace}; expected 8-bit RGB(A), not interlaced")
        elif kind == b"IDAT":
            idat.append(body)
    raw = zlib.decompress(b"".join(idat))
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    rows, previous = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:    # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = previous[i], previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        previous = bytes(line)
        rows.append(previous if bpp == 3 else b"".join(previous[i:i + 3]
                                                       for i in range(0, stride, 4)))
    return width, height, rows


def count_colour(rows: list, rgb: tuple) -> int:
    """Pixels of exactly `rgb` (a match must start on a pixel boundary)."""
    needle, total = bytes(rgb), 0
    for row in rows:
        start = row.find(needle)
        while start != -1:
            if start % 3 == 0:
                total += 1
                start = row.find(needle, start + 3)
            else:
                start = row.find(needle, start + 1)
    return total


def check_png(path: Path, height: int, bar_area: int) -> tuple[list, dict]:
    """The problems with the screenshot, and what was counted."""
    width, got_height, rows = read_png(path)
    if (width, got_height) != (WIDTH, height):
        return [f"the screenshot is {width}x{got_height}, not the window's {WIDTH}x{height}"], {}
    top = rows[:TOP_ROWS]
    white = bytes((255, 255, 255)) * width
    colours = {row[i:i + 3] for row in top[::4] for i in range(0, len(row), 12)}
    counts = {"bars": count_colour(rows, BAR_RGB), "track": count_colour(top, TRACK_RGB),
              "table head": count_colour(rows, TABLE_HEAD_RGB),
              "non-white top rows": sum(row != white for row in top), "colours": len(colours)}
    problems = []
    if counts["non-white top rows"] < TOP_ROWS // 4 or counts["colours"] < 8:
        problems.append(f"the top of the page looks blank: {counts['non-white top rows']} of "
                        f"{TOP_ROWS} rows hold anything, {counts['colours']} colours")
    if counts["track"] == 0:
        problems.append("the chart was not drawn: none of its track colour in the top "
                        f"{TOP_ROWS} rows")
    # Whole-pixel bars: their fill should cover their area, give or take an anti-aliased edge.
    if not 0.9 * bar_area - 200 <= counts["bars"] <= 1.05 * bar_area + 200:
        problems.append(f"the chart's bars cover {counts['bars']} px of their colour, the DOM "
                        f"says {bar_area} px: the SVG did not render at its size")
    if counts["table head"] < 1000:
        problems.append(f"the students table's header is not in the {WIDTH}x{height} "
                        f"screenshot ({counts['table head']} px of its colour; a taller "
                        f"--height?)")
    return problems, counts


def chromium(args: list, profile: str) -> tuple[str, float]:
    """Runs headless chromium with `args`; its stdout and seconds."""
    binary = shutil.which("chromium")
    if binary is None:
        raise SystemExit("check_report: no `chromium` on PATH (Debian: apt-get install chromium)")
    start = time.monotonic()
    ran = subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu",
                          "--hide-scrollbars", "--force-device-scale-factor=1",
                          f"--user-data-dir={profile}"] + args,
                         capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT_S)
    if ran.returncode != 0:
        raise SystemExit(f"check_report: chromium exited {ran.returncode}:\n{ran.stderr[-2000:]}")
    return ran.stdout, time.monotonic() - start


def read_gradebook(path: Path) -> tuple[list, list]:
    """The student ids and exercise ids of gradebook.csv (its header row first; '#' lines, which
    an older grader wrote above it, are skipped)."""
    with open(path, newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(line for line in stream if not line.startswith("#")))
    return [row[0] for row in rows[1:]], rows[0][3:-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", type=Path, help="OUT/report.html (beside OUT/gradebook.csv)")
    parser.add_argument("--screenshot", type=Path, help="keep the screenshot here (PNG)")
    parser.add_argument("--height", type=int,
                        help="the window's height, px (default: tall enough for the table "
                             "below the chart and one card of mistakes per exercise)")
    args = parser.parse_args(argv)
    report = args.report.resolve()
    students, exercises = read_gradebook(report.parent / "gradebook.csv")
    # The mistakes' cards sit two to a row above the table, up to ~500 px a row.
    args.height = args.height or 1600 + 250 * len(exercises)
    with tempfile.TemporaryDirectory() as scratch:
        page = report.read_text(encoding="utf-8")
        probe = Path(scratch) / "probe.html"
        probe.write_text(page.replace("</body>", LAYOUT_PROBE + "</body>", 1), encoding="utf-8")
        dom, dom_s = chromium([f"--window-size={WIDTH},{args.height}", "--dump-dom",
                               probe.as_uri()], scratch + "/profile")
        problems, bar_area = check_dom(dom, students, exercises)
        parsed = ReportParser()
        parsed.feed(dom)
        problems += check_layout(parsed.layout)
        shot = args.screenshot or Path(scratch) / "report.png"
        _, shot_s = chromium([f"--screenshot={shot.resolve()}",
                              f"--window-size={WIDTH},{args.height}", report.as_uri()],
                             scratch + "/profile")
        if not shot.exists():
            problems.append("chromium wrote no screenshot")
        else:
            start = time.monotonic()
            png_problems, counts = check_png(shot, args.height, bar_area)
            problems += png_problems
            read_s = time.monotonic() - start
    if problems:
        print(f"check_report: {report}:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"{report.name}: {len(students)} student{'s' * (len(students) != 1)}, "
          f"{len(exercises)} bars, chart "
          f"{counts['bars']} px (DOM {bar_area}), table head {counts['table head']} px, "
          f"fits {WIDTH} px (page {parsed.layout['scrollWidth']} px wide, Status column "
          f"ends at {[c for c in parsed.layout['columns'] if c[0] == 'Status'][0][2]} px), "
          f"screenshot {WIDTH}x{args.height} OK (chromium {dom_s:.1f} s DOM + {shot_s:.1f} s "
          f"screenshot, PNG read {read_s:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

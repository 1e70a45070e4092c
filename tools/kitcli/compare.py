"""tools/kit compare: one run of the same GPT-2-width inputs through the CPU solution, your own
exercise 23, the GPU solution (teaching; fast on CUDA) and, when PyTorch is installed, the
seeds' MultiHeadAttention class and its SDPA path. A table (implementation, backend, ms median,
GFLOP/s, ratio to PyTorch, max |diff| to exercise 22's GPT-2 golden), compare.csv and
compare.svg (time against T, one line per implementation, log scale) in build/compare/.

The diffs are computed by the programs themselves (attn_bench --golden loads the golden
through the kit's case store; pytorch_timings.py --golden). The pure functions (rows, CSV,
SVG) are tested in tests/kit/test_cli_bench.py."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from . import bench
from .catalogue import Kit, KitError
from .tables import aligned, number
from .terminal import Heartbeat, say

CSV_COLUMNS = ("implementation", "impl", "backend", "B", "T", "threads", "ms_median", "gflops",
               "ratio_to_pytorch", "max_abs_diff", "note")
NOT_IMPLEMENTED = "not implemented yet"
NEEDS_GPU = ("The CUDA rows (the GPU solution and the fast kernel on a GPU) need an NVIDIA GPU "
             "and the CUDA build: `tools/kit compare --cuda` (preset cuda, build-cuda/).")


# ---- the rows -------------------------------------------------------------------------------

def golden_diffs(lines: str) -> dict:
    """{impl: golden line} from the JSON lines of attn_bench --golden or
    pytorch_timings.py --golden."""
    found = {}
    for line in lines.splitlines():
        line = line.strip()
        if line.startswith("{"):
            item = json.loads(line)
            found[item["impl"]] = item
    return found


def with_goldens(rows: list, goldens: dict) -> list:
    """Each row with max_abs_diff from its implementation's golden line; an implementation whose
    kernel throws attn::not_implemented (its golden line's status, the C++ side's verdict) says
    "not implemented yet" instead of a time."""
    result = []
    for row in rows:
        row = dict(row)
        golden = goldens.get(row["impl"], {})
        status = golden.get("status")
        if status == "ok":
            row["max_abs_diff"] = golden["max_abs_diff"]
        if status == "not_implemented":
            row.update(ms_median=None, gflops=None, note=NOT_IMPLEMENTED)
            row.pop("ratio_to_pytorch", None)
        elif status == "no_device":
            row["note"] = "needs a GPU"
        result.append(row)
    return result


def csv_text(rows: list) -> str:
    """compare.csv: one line per implementation and size, CSV_COLUMNS."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({"implementation": bench.title(row["impl"], row["backend"]),
                         "impl": row["impl"], "backend": row["backend"], "B": row["B"],
                         "T": row["T"], "threads": row["threads"],
                         "ms_median": number(row.get("ms_median"), 4, missing=""),
                         "gflops": number(row.get("gflops"), 2, missing=""),
                         "ratio_to_pytorch": number(row.get("ratio_to_pytorch"), 3, missing=""),
                         "max_abs_diff": number(row.get("max_abs_diff"), 2, True, missing=""),
                         "note": row.get("note", "")})
    return out.getvalue()


def table(rows: list) -> str:
    lines = [("implementation", "backend", "T", "ms median", "GFLOP/s", "× PyTorch",
              "max |diff| to golden", "")]
    for row in rows:
        lines.append((bench.title(row["impl"], row["backend"]), row["backend"], str(row["T"]),
                      number(row.get("ms_median"), 3), number(row.get("gflops"), 1),
                      number(row.get("ratio_to_pytorch"), 2),
                      number(row.get("max_abs_diff"), 1, True), row.get("note", "")))
    return aligned(lines)


# ---- the plot -------------------------------------------------------------------------------

# Okabe and Ito's palette (distinguishable with every common colour-vision deficiency), and a
# marker shape per line so that a grey print still tells them apart.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
# Characters of a legend line: its column is 294 px wide, about 7 px a character at 12.5 px
# (a name) and 6 px at 11 px (its details).
LEGEND_NAME_CHARACTERS, LEGEND_DETAIL_CHARACTERS = 38, 46
MARKERS = ("circle", "square", "diamond", "triangle", "circle", "square", "diamond")
# A dash pattern per line too: two lines over the same points (your kernel on the teaching
# one) still show both.
DASHES = ("", "7 4", "2 3", "10 3 2 3", "4 4", "1 4", "12 5")
QUICK_TOKENS = (128, 256)  # --quick: two sizes, so each line has a slope


def marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "square":
        return (f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}" '
                'stroke="white" stroke-width="1"/>')
    if shape == "diamond":
        points = (f"{x:.1f},{y - 5.5:.1f} {x + 5.5:.1f},{y:.1f} "
                  f"{x:.1f},{y + 5.5:.1f} {x - 5.5:.1f},{y:.1f}")
        return f'<polygon points="{points}" fill="{colour}" stroke="white" stroke-width="1"/>'
    if shape == "triangle":
        points = f"{x:.1f},{y - 5.5:.1f} {x + 5:.1f},{y + 4:.1f} {x - 5:.1f},{y + 4:.1f}"
        return f'<polygon points="{points}" fill="{colour}" stroke="white" stroke-width="1"/>'
    return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{colour}" '
            'stroke="white" stroke-width="1"/>')


def y_ticks(low: float, high: float) -> list:
    """Tick values 1, 2, 5 × 10^k spanning [low, high] (ms)."""
    ticks = []
    for exponent in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0 ** exponent
            if low <= value <= high:
                ticks.append(value)
    return ticks


def tick_label(value: float) -> str:
    return f"{value:g}" if value >= 0.01 else f"{value:.0e}"


def svg(rows: list, title: str, subtitle: str = "", roofline: tuple | None = None) -> str:
    """compare.svg: median ms against T, one polyline per implementation that has times (its
    own colour, marker and dash), log-scale y, T on a log2 axis, a legend beside the plot
    (implementations without a time listed there with the reason, wrapped, never cut).
    `roofline`: (B, sgemm GFLOP/s), drawn as the time the causal FLOPs take at that rate.
    Hand-written SVG 1.1, standard library only."""
    left, right, top, bottom = 78, 350, 70, 62
    order = [impl for impl in bench.ORDER if any(row["impl"] == impl for row in rows)]
    order += sorted({row["impl"] for row in rows} - set(order))
    legend = legend_entries(rows, order)
    width = 940
    height = max(480, top + sum(entry["height"] for entry in legend) + 40)
    plot_w, plot_h = width - left - right, height - top - bottom

    timed = [row for row in rows if row.get("ms_median")]
    tokens = sorted({row["T"] for row in rows}) or [128]
    floor_ms = {T: bench.causal_flops(roofline[0], T) / (roofline[1] * 1e9) * 1e3
                for T in tokens} if roofline else {}
    times = [row["ms_median"] for row in timed] + list(floor_ms.values()) or [1.0]
    low = 10.0 ** math.floor(math.log10(min(times)))
    high = 10.0 ** math.ceil(math.log10(max(times)))
    if high <= low:
        high = low * 10

    def x_of(T):
        if len(tokens) == 1:
            return left + plot_w / 2
        span = math.log2(tokens[-1]) - math.log2(tokens[0])
        return left + plot_w * (math.log2(T) - math.log2(tokens[0])) / span

    def y_of(ms):
        return top + plot_h * (1 - (math.log10(ms) - math.log10(low)) /
                               (math.log10(high) - math.log10(low)))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
           f'<title>{escape(title)}</title>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="28" font-size="17" font-weight="bold" fill="#222">'
           f'{escape(title)}</text>']
    if subtitle:
        out.append(f'<text x="{left}" y="50" font-size="12.5" fill="#555">'
                   f'{escape(subtitle)}</text>')
    # grid and axes
    out.append('<g class="grid" stroke="#e3e3e3" stroke-width="1">')
    for value in y_ticks(low, high):
        y = y_of(value)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}"/>')
    for T in tokens:
        out.append(f'<line x1="{x_of(T):.1f}" y1="{top}" x2="{x_of(T):.1f}" y2="{top + plot_h}"/>')
    out.append('</g>')
    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
               'stroke="#888" stroke-width="1"/>')
    out.append('<g class="ticks" font-size="12" fill="#333">')
    for value in y_ticks(low, high):
        out.append(f'<text x="{left - 8}" y="{y_of(value) + 4:.1f}" text-anchor="end">'
                   f'{tick_label(value)}</text>')
    for T in tokens:
        out.append(f'<text x="{x_of(T):.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
                   f'{T}</text>')
    out.append('</g>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 16}" font-size="13" '
               'text-anchor="middle" fill="#222">T (tokens in the sequence)</text>')
    out.append(f'<text x="20" y="{top + plot_h / 2:.1f}" font-size="13" text-anchor="middle" '
               f'fill="#222" transform="rotate(-90 20 {top + plot_h / 2:.1f})">'
               'forward time, ms (median, log scale; lower is faster)</text>')
    if floor_ms:  # the roofline: no implementation can be below it
        coordinates = " ".join(f"{x_of(T):.1f},{y_of(ms):.1f}" for T, ms in floor_ms.items())
        out.append(f'<g class="roofline"><polyline points="{coordinates}" fill="none" '
                   'stroke="#999" stroke-width="1.5" stroke-dasharray="3 3"/>'
                   f'<title>the causal FLOPs at this machine\'s sgemm rate, '
                   f'{roofline[1]:.0f} GFLOP/s</title></g>')
    # one series per implementation with times; the student's drawn last, on top
    styles = {impl: (COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)], DASHES[i % len(DASHES)])
              for i, impl in enumerate(order)}
    for impl in sorted(order, key=lambda impl: impl.startswith("student")):
        colour, shape, dash = styles[impl]
        points = sorted((row["T"], row["ms_median"]) for row in timed if row["impl"] == impl)
        if not points:
            continue
        name = bench.title(impl, next(row["backend"] for row in rows if row["impl"] == impl))
        coordinates = " ".join(f"{x_of(T):.1f},{y_of(ms):.1f}" for T, ms in points)
        out.append(f'<g class="series" data-impl={quoteattr(impl)}>')
        out.append(f'<polyline points="{coordinates}" fill="none" stroke="{colour}" '
                   f'stroke-width="2.2" stroke-dasharray="{dash or "none"}" '
                   'stroke-linejoin="round" stroke-linecap="round"/>')
        for T, ms in points:
            out.append(marker(shape, x_of(T), y_of(ms), colour))
            out.append(f'<title>{escape(name)}, T = {T}: {ms:.3f} ms</title>')
        out.append('</g>')
    # the legend
    lx, legend_y = left + plot_w + 22, top + 6
    for entry in legend:
        colour, shape, dash = styles[entry["impl"]]
        if entry["timed"]:
            out.append(f'<line x1="{lx}" y1="{legend_y}" x2="{lx + 26}" y2="{legend_y}" '
                       f'stroke="{colour}" stroke-width="2.2" '
                       f'stroke-dasharray="{dash or "none"}"/>')
            out.append(marker(shape, lx + 13, legend_y, colour))
        for index, line in enumerate(entry["lines"]):
            named = index < entry["name_lines"]
            out.append(f'<text x="{lx + 34}" y="{legend_y + 4 + 15 * index}" '
                       f'font-size="{12.5 if named else 11}" '
                       f'fill="{("#222" if entry["timed"] else "#888") if named else "#777"}">'
                       f'{escape(line)}</text>')
        legend_y += entry["height"]
    if floor_ms:
        out.append(f'<line x1="{lx}" y1="{legend_y}" x2="{lx + 26}" y2="{legend_y}" '
                   'stroke="#999" stroke-width="1.5" stroke-dasharray="3 3"/>')
        out.append(f'<text x="{lx + 34}" y="{legend_y + 4}" font-size="12.5" fill="#222">'
                   f'roofline: sgemm, {roofline[1]:.0f} GFLOP/s</text>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


def legend_entries(rows: list, order: list) -> list:
    """Per implementation: its legend lines (its name, then its backend and, where it has no
    time, why, each wrapped to the legend's column), whether it has times, and its height."""
    entries = []
    for impl in order:
        mine = [row for row in rows if row["impl"] == impl]
        timed = any(row.get("ms_median") for row in mine)
        note = "" if timed else next((row["note"] for row in mine if row.get("note")), "no time")
        name = bench.title(impl, mine[0]["backend"])
        detail = mine[0]["backend"] + (" — " + note if note else "")
        named = textwrap.wrap(name, LEGEND_NAME_CHARACTERS)
        lines = named + textwrap.wrap(detail, LEGEND_DETAIL_CHARACTERS)
        entries.append({"impl": impl, "lines": lines, "name_lines": len(named), "timed": timed,
                        "height": 25 + 15 * len(lines)})
    return entries


# ---- running --------------------------------------------------------------------------------

def run_golden(kit: Kit, command: list, threads: int) -> str:
    with Heartbeat("computing the golden case"):
        result = subprocess.run(command, cwd=kit.root, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=bench.thread_environment(threads))
    if result.returncode != 0:
        say(f"{Path(command[0]).name} --golden failed: {result.stderr.strip()[-300:]}")
    return result.stdout


def run(kit: Kit, quick: bool, out: Path | None, batch: int = 8, cuda: bool = False,
        no_build: bool = False) -> int:
    threads = os.cpu_count() or 1
    preset = bench.CUDA_PRESET if cuda else bench.PRESET
    batches, tokens = ((1,), QUICK_TOKENS) if quick else ((batch,), bench.TOKENS)
    out = out or kit.root / "build" / "compare"
    solutions, why = bench.build_program(kit, bench.SOLUTIONS_PROGRAM, preset, no_build)
    if solutions is None:
        raise KitError(why)

    arguments = bench.benchmark_arguments(quick, batches, tokens)
    report = bench.run_benchmark(kit, solutions, arguments, threads)
    rows = bench.rows_of_benchmark(report, threads)
    goldens = golden_diffs(run_golden(kit, [str(solutions), "--golden"], threads))
    context = report.get("context", {})
    backend, device = context.get("attn_backend", "?"), context.get("attn_device", "")
    student_rows, student = bench.student_rows(kit, preset, arguments, threads, backend,
                                               [(b, t) for b in batches for t in tokens],
                                               no_build)
    rows += student_rows
    if student is not None:
        goldens.update(golden_diffs(run_golden(kit, [str(student), "--golden"], threads)))
    python = bench.torch_python()
    if python:
        rows += bench.rows_of_pytorch(bench.run_pytorch(
            kit, python, bench.pytorch_arguments(quick, batches, tokens), threads))
        goldens.update(golden_diffs(run_golden(
            kit, [python, str(kit.root / bench.PYTORCH_SCRIPT), "--golden"], threads)))
    rows = with_goldens(bench.with_ratios(rows), goldens)

    shown_b = batches[0]
    say(f"MultiHeadAttention forward at GPT-2 width, B = {shown_b}, {threads} threads; "
        f"GPU track: {backend} ({device})")
    say(table(rows))
    if backend != "CUDA":
        say(NEEDS_GPU)
    if not python:
        say("No PyTorch rows: /usr/bin/python3 cannot import torch "
            "(`tools/kit setup --recorder` installs it).")
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.csv").write_text(csv_text(rows), encoding="utf-8")
    title = f"Causal multi-head attention, GPT-2 width, B = {shown_b}"
    subtitle = f"{backend}: {device}" + (f"; PyTorch on {rows_torch_backend(rows)}"
                                         if python else "") + f"; {threads} CPU threads"
    # On CUDA the GPU's sgemm rate: the roofline of the rows that matter there.
    sgemm = bench.sgemm_gflops(report, bench.DEVICE_SGEMM if backend == "CUDA" else bench.SGEMM)
    roofline = (shown_b, sgemm) if sgemm else None
    (out / "compare.svg").write_text(svg(rows, title, subtitle, roofline), encoding="utf-8")
    say(f"Wrote {out / 'compare.csv'} and {out / 'compare.svg'} (open it in a browser).")
    return 0


def rows_torch_backend(rows: list) -> str:
    return next((row["backend"].replace("PyTorch ", "") for row in rows
                 if row["impl"].startswith("pytorch")), "?")

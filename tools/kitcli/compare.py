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
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from . import bench
from .catalogue import Kit, KitError
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
    kernel throws attn::not_implemented says "not implemented yet" instead of a time."""
    result = []
    for row in rows:
        row = dict(row)
        golden = goldens.get(row["impl"], {})
        status = golden.get("status")
        if status == "ok":
            row["max_abs_diff"] = golden["max_abs_diff"]
        if status == "not_implemented" or row.get("note", "").startswith(NOT_IMPLEMENTED):
            row.update(ms_median=None, gflops=None, note=NOT_IMPLEMENTED)
            row.pop("ratio_to_pytorch", None)
        elif status == "no_device":
            row["note"] = "needs a GPU"
        result.append(row)
    return result


def unavailable_row(impl: str, backend: str, batch: int, tokens: int, note: str) -> dict:
    return bench.make_row(impl, backend, batch, tokens, 0, None, note)


def display_number(value, digits: int, scientific: bool = False) -> str:
    if value is None:
        return ""
    return f"{value:.{digits}e}" if scientific else f"{value:.{digits}f}"


def csv_text(rows: list) -> str:
    """compare.csv: one line per implementation and size, CSV_COLUMNS."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({"implementation": bench.TITLES.get(row["impl"], row["impl"]),
                         "impl": row["impl"], "backend": row["backend"], "B": row["B"],
                         "T": row["T"], "threads": row["threads"],
                         "ms_median": display_number(row.get("ms_median"), 4),
                         "gflops": display_number(row.get("gflops"), 2),
                         "ratio_to_pytorch": display_number(row.get("ratio_to_pytorch"), 3),
                         "max_abs_diff": display_number(row.get("max_abs_diff"), 2, True),
                         "note": row.get("note", "")})
    return out.getvalue()


def table(rows: list) -> str:
    header = ("implementation", "backend", "T", "ms median", "GFLOP/s", "× PyTorch",
              "max |diff| to golden", "")
    lines = [header]
    for row in rows:
        diff = row.get("max_abs_diff")
        lines.append((bench.TITLES.get(row["impl"], row["impl"]), row["backend"], str(row["T"]),
                      bench.number(row.get("ms_median"), 3), bench.number(row.get("gflops"), 1),
                      bench.number(row.get("ratio_to_pytorch"), 2),
                      "—" if diff is None else f"{diff:.1e}", row.get("note", "")))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) if i < 2 or i == len(header) - 1
                               else cell.rjust(width)
                               for i, (cell, width) in enumerate(zip(line, widths))).rstrip()
                     for line in lines)


# ---- the plot -------------------------------------------------------------------------------

# Okabe and Ito's palette (distinguishable with every common colour-vision deficiency), and a
# marker shape per line so that a grey print still tells them apart.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
LEGEND_CHARACTERS = 50
MARKERS = ("circle", "square", "diamond", "triangle", "circle", "square", "diamond")


def marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "square":
        return (f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}" '
                'stroke="white" stroke-width="1"/>')
    if shape == "diamond":
        points = f"{x:.1f},{y - 5.5:.1f} {x + 5.5:.1f},{y:.1f} {x:.1f},{y + 5.5:.1f} {x - 5.5:.1f},{y:.1f}"
        return f'<polygon points="{points}" fill="{colour}" stroke="white" stroke-width="1"/>'
    if shape == "triangle":
        points = f"{x:.1f},{y - 5.5:.1f} {x + 5:.1f},{y + 4:.1f} {x - 5:.1f},{y + 4:.1f}"
        return f'<polygon points="{points}" fill="{colour}" stroke="white" stroke-width="1"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{colour}" stroke="white" stroke-width="1"/>'


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


def svg(rows: list, title: str, subtitle: str = "") -> str:
    """compare.svg: median ms against T, one polyline with markers per implementation that has
    times, log-scale y, T on a log2 axis, a legend beside the plot (implementations without
    a time listed there with the reason). Hand-written SVG 1.1, standard library only."""
    width, height = 940, 480
    left, right, top, bottom = 78, 350, 70, 62
    plot_w, plot_h = width - left - right, height - top - bottom

    order = [impl for impl in bench.ORDER if any(row["impl"] == impl for row in rows)]
    order += sorted({row["impl"] for row in rows} - set(order))
    timed = [row for row in rows if row.get("ms_median")]
    tokens = sorted({row["T"] for row in rows}) or [128]
    times = [row["ms_median"] for row in timed] or [1.0]
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
        out.append(f'<text x="{left}" y="50" font-size="12.5" fill="#555">{escape(subtitle)}</text>')
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
        out.append(f'<text x="{x_of(T):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{T}</text>')
    out.append('</g>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 16}" font-size="13" '
               'text-anchor="middle" fill="#222">T (tokens in the sequence)</text>')
    out.append(f'<text x="20" y="{top + plot_h / 2:.1f}" font-size="13" text-anchor="middle" '
               f'fill="#222" transform="rotate(-90 20 {top + plot_h / 2:.1f})">'
               'forward time, ms (median, log scale; lower is faster)</text>')
    # one series per implementation with times
    legend_y = top + 6
    for index, impl in enumerate(order):
        colour, shape = COLOURS[index % len(COLOURS)], MARKERS[index % len(MARKERS)]
        points = sorted((row["T"], row["ms_median"]) for row in timed if row["impl"] == impl)
        name = bench.TITLES.get(impl, impl)
        if points:
            coordinates = " ".join(f"{x_of(T):.1f},{y_of(ms):.1f}" for T, ms in points)
            out.append(f'<g class="series" data-impl={quoteattr(impl)}>')
            out.append(f'<polyline points="{coordinates}" fill="none" stroke="{colour}" '
                       'stroke-width="2.2" stroke-linejoin="round" stroke-linecap="round"/>')
            for T, ms in points:
                out.append(marker(shape, x_of(T), y_of(ms), colour))
                out.append(f'<title>{escape(name)}, T = {T}: {ms:.3f} ms</title>')
            out.append('</g>')
        # legend entry
        lx = left + plot_w + 22
        if points:
            out.append(f'<line x1="{lx}" y1="{legend_y}" x2="{lx + 26}" y2="{legend_y}" '
                       f'stroke="{colour}" stroke-width="2.2"/>')
            out.append(marker(shape, lx + 13, legend_y, colour))
            label, note = name, ""
        else:
            why = next((row.get("note") for row in rows if row["impl"] == impl and row.get("note")),
                       "no time")
            label, note = name, why
        backend = next(row["backend"] for row in rows if row["impl"] == impl)
        out.append(f'<text x="{lx + 34}" y="{legend_y + 4}" font-size="12.5" '
                   f'fill="{"#222" if points else "#888"}">{escape(label)}</text>')
        detail = backend + (" — " + note if note else "")
        if len(detail) > LEGEND_CHARACTERS:  # the legend's column is ~310 px wide
            detail = detail[:LEGEND_CHARACTERS - 1] + "…"
        out.append(f'<text x="{lx + 34}" y="{legend_y + 19}" font-size="11" fill="#777">'
                   f'{escape(detail)}</text>')
        legend_y += 40
    out.append('</svg>')
    return "\n".join(out) + "\n"


# ---- running --------------------------------------------------------------------------------

def run_golden(kit: Kit, command: list, threads: int) -> str:
    with Heartbeat("computing the golden case"):
        result = subprocess.run(command, cwd=kit.root, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=bench.thread_environment(threads))
    if result.returncode != 0:
        say(f"{Path(command[0]).name} --golden failed: {result.stderr.strip()[-300:]}")
    return result.stdout


def run(kit: Kit, quick: bool, out: Path | None, batch: int = 8, cuda: bool = False) -> int:
    threads = os.cpu_count() or 1
    preset = bench.CUDA_PRESET if cuda else bench.PRESET
    batches, tokens = ((1,), (128,)) if quick else ((batch,), bench.TOKENS)
    out = out or kit.root / "build" / "compare"
    solutions, why = bench.build_program(kit, bench.SOLUTIONS_PROGRAM, preset)
    if solutions is None:
        raise KitError(why)
    student, student_why = bench.build_program(kit, bench.STUDENT_PROGRAM, preset)

    arguments = bench.benchmark_arguments(quick, batches, tokens)
    report = bench.run_benchmark(kit, solutions, arguments, threads)
    rows = bench.rows_of_benchmark(report, threads)
    goldens = golden_diffs(run_golden(kit, [str(solutions), "--golden"], threads))
    context = report.get("context", {})
    backend, device = context.get("attn_backend", "?"), context.get("attn_device", "")
    if student is not None:
        student_report = bench.run_benchmark(kit, student, arguments, threads)
        rows += bench.rows_of_benchmark(student_report, threads)
        goldens.update(golden_diffs(run_golden(kit, [str(student), "--golden"], threads)))
    else:
        rows += [unavailable_row("student", backend, b, t, student_why.split(" (see")[0])
                 for b in batches for t in tokens]
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
    (out / "compare.svg").write_text(svg(rows, title, subtitle), encoding="utf-8")
    say(f"Wrote {out / 'compare.csv'} and {out / 'compare.svg'} (open it in a browser).")
    return 0


def rows_torch_backend(rows: list) -> str:
    return next((row["backend"].replace("PyTorch ", "") for row in rows
                 if row["impl"].startswith("pytorch")), "?")

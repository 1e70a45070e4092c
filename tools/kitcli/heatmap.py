"""A picture of attention weights: the student's matrix and the expected one side by side,
as a shaded grid in the terminal (terminal_lines) or as an SVG heatmap (svg).

The C++ side decides which outputs are attention matrices and supplies their values: a
mismatch's "matrix" in the verdict stream (docs/verdicts.md), or a case shown by the test
program (--attn-show, show.py), {"shape": [..., T, T], "got", "expected", "beyond"},
row-major, a value that is not finite written "nan", "inf" or "-inf", "beyond" the flat
indices of the values beyond the tolerance. A leaking upper triangle, a hidden diagonal or
columns that sum to 1 instead of rows show at a glance.
"""

from __future__ import annotations

import math
import os
import sys
from html import escape

SHADES = " ░▒▓█"     # from the scale's low end to its high end
MASKED = "·"          # -inf: a masked score
NOT_A_NUMBER = "?"    # nan, or +inf
BEYOND = "×"          # a value beyond the tolerance (the student's grid)
MAX_SHOWN_T = 16      # larger matrices: `tools/kit show NN CASE --svg FILE`


def colour_wanted(stream=None) -> bool:
    """Colour only on a terminal that has it: a tty, TERM not "dumb", NO_COLOR unset."""
    stream = stream or sys.stdout
    return (stream.isatty() and os.environ.get("TERM", "dumb") != "dumb"
            and "NO_COLOR" not in os.environ)


def number(value) -> float:
    """A value of the verdict stream as a float ("nan", "inf", "-inf" are strings there)."""
    return float(value)


def slices(shape: list) -> int:
    """How many T×T matrices a tensor of this shape holds (heads × batch)."""
    return math.prod(shape[:-2]) if len(shape) > 2 else 1


def worst_slice(got: list, expected: list, shape: list, worst: list | None = None) -> int:
    """The matrix (flat over the leading dims) that holds the worst element: the one the
    comparison names (`worst`, its full index), else the largest |got - expected|."""
    size = shape[-1] * shape[-2]
    if worst and len(worst) == len(shape):
        flat = 0
        for index, extent in zip(worst[:-2], shape[:-2]):
            flat = flat * extent + index
        return flat
    best, best_error = 0, -1.0
    for i, (g, e) in enumerate(zip(got, expected)):
        g, e = number(g), number(e)
        error = abs(g - e) if math.isfinite(g) and math.isfinite(e) else (
            0.0 if g == e or (math.isnan(g) and math.isnan(e)) else math.inf)
        if error > best_error:
            best, best_error = i // size, error
    return best


def leading_index(flat: int, shape: list) -> list:
    index = []
    for extent in reversed(shape[:-2]):
        index.append(flat % extent)
        flat //= extent
    return index[::-1]


def scale_of(expected: list) -> tuple:
    """(low, high) of the shading: the expected values' finite range, with 0 in it (weights
    run from 0; scores may be negative). The student's values outside it are clipped."""
    finite = [v for v in expected if math.isfinite(v)] or [0.0]
    low, high = min(min(finite), 0.0), max(max(finite), 0.0)
    return low, (high if high > low else low + 1.0)


def level(value: float, low: float, high: float) -> int:
    """0 (blank) .. 4 (full): 0 only for values within 1/32 of the scale's low end, so any
    real weight shows, and a value a rounding away from 0 stays blank."""
    fraction = min(max((value - low) / (high - low), 0.0), 1.0)
    return 0 if fraction < 1 / 32 else min(4, 1 + int(fraction * 4))


def grey(value: float, low: float, high: float) -> int:
    """The 256-colour palette's grey (232 darkest .. 255 lightest) for a value."""
    fraction = min(max((value - low) / (high - low), 0.0), 1.0)
    return 232 + round(fraction * 23)


def cell(value: float, low: float, high: float, colour: bool, marked: bool, wide: bool) -> str:
    mark = BEYOND if marked else None
    if colour:
        if math.isnan(value) or value == math.inf:
            body = "\033[45m" + (NOT_A_NUMBER * 2 if wide else NOT_A_NUMBER)
        elif value == -math.inf:
            body = "\033[49m" + (MASKED * 2 if wide else MASKED)
        else:
            body = f"\033[48;5;{grey(value, low, high)}m" + ("  " if wide else " ")
        if mark:
            body = body[:-1] + "\033[1;31m" + mark
        return body + "\033[0m"
    if math.isnan(value) or value == math.inf:
        glyph = NOT_A_NUMBER
    elif value == -math.inf:
        glyph = MASKED
    else:
        glyph = SHADES[level(value, low, high)]
    if not wide:
        return mark or glyph
    return glyph + (mark or glyph)


def grid(values: list, t: int, low: float, high: float, colour: bool, marked: set,
         wide: bool) -> list:
    return ["".join(cell(values[r * t + c], low, high, colour, r * t + c in marked, wide)
                    for c in range(t)) for r in range(t)]


def terminal_lines(got: list, expected: list, shape: list, colour: bool,
                   width: int | None = None, *, beyond: list | None = None,
                   worst: list | None = None, name: str = "weights",
                   too_big: str = "") -> list:
    """The student's matrix and the expected one side by side, one line per row, then a
    legend. Several matrices (heads, a batch): the one holding the worst element, named.
    T > MAX_SHOWN_T: one line saying so, then `too_big` (how to draw it) if given.
    `width`: the terminal's (None: a log, any width); cells are two characters wide where
    that fits, one otherwise. `colour`: 256-colour background shading, else the block
    characters alone (pipes and logs)."""
    t = shape[-1]
    if t > MAX_SHOWN_T:
        line = f"  ({name} is {'×'.join(map(str, shape))}: too large to draw here"
        return [line + (f"; {too_big} draws it)" if too_big else ")")]
    size = t * t
    which = worst_slice(got, expected, shape, worst)
    start = which * size
    mine = [number(v) for v in got[start:start + size]]
    want = [number(v) for v in expected[start:start + size]]
    marked = {i - start for i in (beyond or []) if start <= i < start + size}
    low, high = scale_of(want)
    label = len(str(t - 1))
    # Without colour the cells beyond the tolerance get a panel of their own where it fits,
    # so the shading of yours stays whole; else (and with colour) they are marked in place.
    third = not colour and bool(marked)
    used = label + 3 + 4 * t + 4 + (4 + t if third else 0)
    wide = width is None or used <= width
    third = third and (width is None or label + 3 + 2 * t + 4 + 4 + t <= width)
    panel = t * (2 if wide else 1)
    title = f"  {name}"
    if slices(shape) > 1:
        index = ", ".join(map(str, leading_index(which, shape)))
        title += f"[{index}, :, :], the matrix with the worst value " \
                 f"(of {'×'.join(map(str, shape[:-2]))})"
    lines = [title + ": yours beside the expected; rows are queries, columns keys"]
    lines.append(" " * (label + 3) + "yours".ljust(panel) + "    " + "expected".ljust(panel)
                 + ("    beyond" if third else ""))
    mine_rows = grid(mine, t, low, high, colour, set() if third else marked, wide)
    want_rows = grid(want, t, low, high, colour, set(), wide)
    for r in range(t):
        line = f"  {r:>{label}} {mine_rows[r]}    {want_rows[r]}"
        if third:
            line += "    " + "".join(BEYOND if r * t + c in marked else "."
                                     for c in range(t))
        lines.append(line)
    finite = [v for v in mine if math.isfinite(v)]
    if colour:
        ramp = "".join(f"\033[48;5;{232 + round(i * 23 / 7)}m " for i in range(8)) + "\033[0m"
    else:
        ramp = SHADES[1:]
    legend = f"  scale: {low:.4g} {ramp} {high:.4g}"
    if finite and (min(finite) < low or max(finite) > high):
        legend += f" (yours runs {min(finite):.4g} … {max(finite):.4g}: clipped)"
    if any(v == -math.inf for v in mine + want):
        legend += f"; {MASKED} -inf"
    if any(math.isnan(v) or v == math.inf for v in mine + want):
        legend += f"; {NOT_A_NUMBER} nan or inf"
    if marked:
        legend += f"; {BEYOND} beyond the tolerance ({len(marked)})"
    lines.append(legend)
    return lines


def failure_picture(case, width: int | None = None, colour: bool | None = None) -> list:
    """The picture for a failing test (reports.TestVerdict): its first failure that carries
    a "matrix", or [] where none does."""
    for failure in case.failures:
        matrix = getattr(failure, "matrix", None)
        if not matrix:
            continue
        path = case.value_case or ""
        folder, _, case_name = path.partition("/")
        number_ = folder.split("_", 1)[0]
        output = getattr(failure, "output", "") or "weights"
        too_big = (f"`tools/kit show {number_} {case_name} --svg {output}.svg`"
                   if number_ and case_name else "")
        return [""] + terminal_lines(
            matrix["got"], matrix["expected"], matrix["shape"],
            colour_wanted() if colour is None else colour, width,
            beyond=matrix.get("beyond"), worst=(failure.worst or {}).get("index"),
            name=output, too_big=too_big)
    return []


# ---- SVG ------------------------------------------------------------------------------

CELL = 18     # pixels
GAP = 28      # between panels
MARGIN = 12


def fill(value: float, low: float, high: float) -> str:
    """White (the scale's low end) to dark blue (its high end); masked -inf light grey, nan
    or inf magenta."""
    if math.isnan(value) or value == math.inf:
        return "#d62ad6"
    if value == -math.inf:
        return "#d9d9d9"
    fraction = min(max((value - low) / (high - low), 0.0), 1.0)
    r, g, b = (round(255 + (end - 255) * fraction) for end in (8, 48, 107))
    return f"#{r:02x}{g:02x}{b:02x}"


def svg(expected: list, shape: list, got: list | None = None, beyond: list | None = None,
        title: str = "") -> str:
    """Every T×T matrix of the tensor as a heatmap, one row of panels per matrix: the
    expected one, and the student's beside it where `got` is given (its cells beyond the
    tolerance outlined in red). Each cell is a <rect class="cell"> whose <title> is its
    value; a legend names the scale."""
    t = shape[-1]
    size = t * t
    count = slices(shape)
    panels = 2 if got is not None else 1
    want_all = [number(v) for v in expected]
    low, high = scale_of(want_all)
    marked = set(beyond or [])
    panel = t * CELL
    head = 22 if title else 0
    row_height = panel + 34
    notes = "grey: -inf (masked), magenta: nan" + (
        ", red outline: beyond the tolerance" if got is not None else "")
    # Text is about 7 pixels a character at 12 px, 8 at 14 px.
    width = max(MARGIN * 2 + panels * panel + (panels - 1) * GAP, MARGIN * 2 + 8 * len(title),
                MARGIN * 2 + 7 * len(notes), MARGIN * 2 + 60 + 140 + 60)
    height = MARGIN * 2 + head + count * row_height + 44
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        out.append(f'<text x="{MARGIN}" y="{MARGIN + 14}" font-size="14">{escape(title)}'
                   '</text>')
    for m in range(count):
        top = MARGIN + head + m * row_height
        index = leading_index(m, shape)
        where = f" [{', '.join(map(str, index))}, :, :]" if index else ""
        sources = ([("yours", [number(v) for v in got], True)] if got is not None else []) \
            + [("expected", want_all, False)]
        for p, (label, values, mark) in enumerate(sources):
            left = MARGIN + p * (panel + GAP)
            out.append(f'<text x="{left}" y="{top + 14}">{label}{escape(where)}</text>')
            for r in range(t):
                for c in range(t):
                    flat = m * size + r * t + c
                    value = values[flat]
                    x, y = left + c * CELL, top + 20 + r * CELL
                    stroke = (' stroke="#d00000" stroke-width="2"' if mark and flat in marked
                              else ' stroke="#ffffff" stroke-width="0.5"')
                    out.append(f'<rect class="cell" x="{x}" y="{y}" width="{CELL}" '
                               f'height="{CELL}" fill="{fill(value, low, high)}"{stroke}>'
                               f'<title>[{r}, {c}] {value:.6g}</title></rect>')
    y = height - MARGIN - 22
    steps = 10
    for i in range(steps):
        value = low + (high - low) * i / (steps - 1)
        out.append(f'<rect x="{MARGIN + 60 + i * 14}" y="{y - 10}" width="14" height="12" '
                   f'fill="{fill(value, low, high)}" stroke="#999999" stroke-width="0.5"/>')
    legend_end = MARGIN + 60 + steps * 14 + 6
    out.append(f'<text x="{MARGIN}" y="{y}">{low:.4g}</text>')
    out.append(f'<text x="{legend_end}" y="{y}">{high:.4g}</text>')
    out.append(f'<text x="{MARGIN}" y="{y + 18}">{notes}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def stacked(drawings: list) -> str:
    """Several svg() drawings as one SVG, one below the other."""
    if len(drawings) == 1:
        return drawings[0]
    sizes = [tuple(int(drawing.split(f'{what}="', 1)[1].split('"', 1)[0])
                   for what in ("width", "height")) for drawing in drawings]
    width, height = max(w for w, _ in sizes), sum(h for _, h in sizes)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">']
    top = 0
    for drawing, (_, h) in zip(drawings, sizes):
        out.append(drawing.replace("<svg ", f'<svg y="{top}" ', 1).strip())
        top += h
    out.append("</svg>")
    return "\n".join(out) + "\n"

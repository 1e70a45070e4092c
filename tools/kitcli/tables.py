"""The one way tools/kit prints numbers in a table: bench's and compare's."""

from __future__ import annotations


def number(value, digits: int, scientific: bool = False, missing: str = "—") -> str:
    """`value` with `digits` decimals (or in scientific notation); `missing` for None."""
    if value is None:
        return missing
    return f"{value:.{digits}e}" if scientific else f"{value:.{digits}f}"


def percent(value, missing: str = "—") -> str:
    return missing if value is None else f"{value:.0%}"


def aligned(lines: list) -> str:
    """Rows of cells (the first one the header), one line each: the first two columns (what
    and where) and the last (a note) left-aligned, the numbers between right-aligned."""
    count = len(lines[0])
    widths = [max(len(line[i]) for line in lines) for i in range(count)]
    return "\n".join("  ".join(cell.ljust(width) if i < 2 or i == count - 1 else cell.rjust(width)
                               for i, (cell, width) in enumerate(zip(line, widths))).rstrip()
                     for line in lines)

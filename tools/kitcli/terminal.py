"""Printing for tools/kit: one flushed line at a time, lines cut to the terminal, and the
`[####>-----] n/N` progress bar."""

from __future__ import annotations

import shutil
import sys


def say(text: str = "") -> None:
    print(text, flush=True)


def screen_width() -> int | None:
    """The terminal's width, or None when the output goes to a log (keep whole lines)."""
    return max(shutil.get_terminal_size().columns, 80) if sys.stdout.isatty() else None


def shorten(text: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    return text[:width - 1] + "…"


def progress_bar(done: int, total: int, width: int = 20) -> str:
    filled = round(width * done / total) if total else width
    arrow = ">" if 0 < filled < width else ""
    return "[" + "#" * filled + arrow + "-" * (width - filled - len(arrow)) + f"] {done}/{total}"

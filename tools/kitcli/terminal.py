"""Printing for tools/kit: one flushed line at a time, lines cut to the terminal, the
`[####>-----] n/N` progress bar, a build's progress while it runs, and paths and commands
the student can paste where they are (the kit's root, or a folder inside it such as
exercises/)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

# A failure's one line ends with what is wrong: "<call>: <reason> — looks like: <mistake>", or
# "— <diagnosis>" (docs/verdicts.md); a cut line keeps that end.
KEEP_WHEN_CUT = " — "


_last_said = time.monotonic()  # when tools/kit last printed a line (Heartbeat reads it)


def say(text: str = "") -> None:
    global _last_said
    print(text, flush=True)
    _last_said = time.monotonic()


class Heartbeat:
    """While a long step runs, a line every `every` seconds in which nothing else was said:
    "  … building: 45 s", so a log or a terminal never sits silent for long."""

    def __init__(self, what: str, every: float = 15.0):
        self.what, self.every = what, every
        self.started = time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def __enter__(self) -> "Heartbeat":
        self.thread.start()
        return self

    def _beat(self) -> None:
        while not self.stop.wait(1.0):
            if time.monotonic() - _last_said >= self.every:
                say(f"  … {self.what}: {time.monotonic() - self.started:.0f} s")

    def __exit__(self, *exception) -> None:
        self.stop.set()
        self.thread.join()


def screen_width() -> int | None:
    """The terminal's width, or None when the output goes to a log (keep whole lines)."""
    return max(shutil.get_terminal_size().columns, 80) if sys.stdout.isatty() else None


def shorten(text: str, width: int | None) -> str:
    """`text` cut to `width` characters. A failure's line loses the middle (the reason's
    numbers), not its end, the named mistake or the shape of the error: that part says what is
    wrong."""
    if width is None or len(text) <= width:
        return text
    if KEEP_WHEN_CUT in text:
        head, tail = text.split(KEEP_WHEN_CUT, 1)
        tail = "… " + tail
        room = width - len(tail)
        if room >= 20:
            return head[:room] + tail
        return (head[:20] + tail)[:width - 1] + "…"
    return text[:width - 1] + "…"


def progress_bar(done: int, total: int, width: int = 20) -> str:
    filled = round(width * done / total) if total else width
    arrow = ">" if 0 < filled < width else ""
    return "[" + "#" * filled + arrow + "-" * (width - filled - len(arrow)) + f"] {done}/{total}"


class BuildProgress:
    """Shows how far a build is: on a terminal one line rewritten in place
    ("  building: [#####>-----] 17/34 steps, 12 s, about 14 s left"), in a log a line at each
    quarter of a build of 8 steps or more. The time left is this build's own pace so far on
    this machine, said once a few steps are done. Prints nothing for a build with nothing to
    do."""

    STEPS_BEFORE_ESTIMATE = 4

    def __init__(self, clock=time.monotonic):
        self.on_terminal = sys.stdout.isatty()
        self.clock = clock
        self.started = clock()
        self.quarters_shown = 0
        self.shown = False

    def __enter__(self) -> "BuildProgress":
        return self

    def line(self, done: int, total: int) -> str:
        elapsed = self.clock() - self.started
        line = f"  building: {progress_bar(done, total)} steps, {elapsed:.0f} s"
        if self.STEPS_BEFORE_ESTIMATE <= done < total:
            line += f", about {elapsed / done * (total - done):.0f} s left"
        return line

    def update(self, done: int, total: int) -> None:
        global _last_said
        if self.on_terminal:
            print("\r\033[K" + self.line(done, total), end="", flush=True)
            self.shown = True
            _last_said = time.monotonic()  # the line in place is news: no Heartbeat line
        elif total >= 8 and 4 * done >= (self.quarters_shown + 1) * total:
            self.quarters_shown = 4 * done // total
            say(self.line(done, total))

    def __exit__(self, *exception) -> None:
        if self.shown:
            print("\r\033[K", end="", flush=True)  # the verdict takes the line's place


def from_here(root: Path, path: str) -> str:
    """A path of the kit (relative to its root) as the student can use it where they are:
    relative to the working folder when that is inside the kit, else as it is."""
    try:
        here = Path.cwd().resolve()
        root = root.resolve()
    except OSError:
        return path
    if here == root or root not in here.parents:
        return path
    return os.path.relpath(root / path, here)


def kit_command(root: Path, arguments: str) -> str:
    """ "tools/kit check 03" as the student can paste it where they are."""
    return f"{from_here(root, 'tools/kit')} {arguments}"

"""Text that came from a student (compiler output, what a program printed, error.txt, a folder
name), made safe to show: no control characters, valid UTF-8, bounded."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and the lone surrogates that
# surrogateescape makes of bytes that are not UTF-8.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_UNPRINTABLE_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str, one_line: bool = False, limit: int | None = None) -> str:
    """`text` with each control character replaced by '?' (newlines and tabs kept unless
    `one_line`), cut to `limit` characters with an ellipsis."""
    text = (_UNPRINTABLE_ONE_LINE if one_line else _UNPRINTABLE).sub("?", text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return text

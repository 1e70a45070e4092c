"""A graded student's status: the worst thing that happened to their work.

"files missing" is the worst: maybe an upload gone wrong (a zip, renamed files) that the
instructor must see; its exercises are flagged "no file" or "not taken" in the report.
"""

from __future__ import annotations

# Best to worst.
STATUSES = ("graded", "crashed", "timed-out", "build-failed", "files missing")
SEVERITY = {status: rank for rank, status in enumerate(STATUSES)}


def worse(status: str, other: str) -> str:
    """The worse of two statuses (an unknown status counts as "graded")."""
    return other if SEVERITY.get(other, 0) > SEVERITY.get(status, 0) else status

"""exercises.json, read and checked the one way every tool reads it (tools/kit, tools/grade,
the report, the recorder).

Its "format_version" says how its fields are to be read. A reader refuses any version but
FORMAT_VERSION with one sentence naming both, rather than guess or fail with a KeyError.
Raise FORMAT_VERSION (and every reader with it) whenever a field changes meaning or goes
away; adding a field does not.
"""

from __future__ import annotations

import json
from pathlib import Path

FORMAT_VERSION = 1
FILE_NAME = "exercises.json"


class CatalogueError(Exception):
    """exercises.json cannot be read, or is of a format this kit's tools do not know."""


def checked(catalogue, path: Path | str = FILE_NAME) -> dict:
    """`catalogue` (exercises.json's content) if it is of FORMAT_VERSION, with its
    "exercises" and "settings"; else a CatalogueError that says what was expected and found."""
    if not isinstance(catalogue, dict):
        raise CatalogueError(f"{path}: expected a JSON object, found {type(catalogue).__name__}")
    found = catalogue.get("format_version")
    if found != FORMAT_VERSION or isinstance(found, bool):
        found_text = "no format_version" if found is None else f"format_version {found!r}"
        raise CatalogueError(
            f"{path}: expected format_version {FORMAT_VERSION}, found {found_text} (a catalogue "
            "written for another version of the kit's tools: use the tools of the same commit)")
    missing = [key for key in ("exercises", "settings") if key not in catalogue]
    if missing:
        raise CatalogueError(f"{path}: format_version {FORMAT_VERSION} has "
                             f"{' and '.join(repr(key) for key in missing)}, this one has not")
    return catalogue


def load(root: Path) -> dict:
    """The kit's catalogue, ROOT/exercises.json, checked (checked())."""
    path = Path(root) / FILE_NAME
    try:
        catalogue = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CatalogueError(f"cannot read {path}: {error}") from None
    return checked(catalogue, path)

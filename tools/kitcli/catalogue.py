"""exercises.json: the exercises in course order and the settings every tool shares.

`Kit.load()` reads it once (kitlib.catalogue, which checks its format_version); everything
else takes the `Kit` it returns, so the tests can point the same code at a throwaway kit in a
temporary folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kitlib import catalogue as catalogue_file

KIT_ROOT = Path(__file__).resolve().parents[2]


class KitError(Exception):
    """A problem the kit explains in one message: printed as `kit: ...`, exit status 1."""


@dataclass(frozen=True)
class Kit:
    root: Path
    exercises: list  # the "exercises" of exercises.json, each a dict, in course order
    settings: dict   # its "settings": test_timeout_s, packages {"build": [...], "recorder": [...]}

    @classmethod
    def load(cls, root: Path = KIT_ROOT) -> "Kit":
        try:
            catalogue = catalogue_file.load(root)
        except catalogue_file.CatalogueError as error:
            raise KitError(str(error)) from None
        return cls(root, catalogue["exercises"], catalogue["settings"])

    @property
    def catalogue_path(self) -> Path:
        return self.root / catalogue_file.FILE_NAME

    @property
    def readme_path(self) -> Path:
        return self.root / "README.md"

    @property
    def manifest_path(self) -> Path:
        return self.root / "reference_data" / "MANIFEST.json"

    @property
    def test_timeout_s(self) -> float:
        """The CPU seconds an exercise's test program may use (its own RLIMIT_CPU, set by
        kit/testing/src/main.cpp from the value CMake reads); the wall clock only backs it up
        (wall_s): a busy machine slows correct code by the clock, never by its CPU time."""
        return self.settings["test_timeout_s"]

    @property
    def test_wall_s(self) -> float:
        """The wall-clock backstop of a test program's run (ctest's TIMEOUT too): it ends one
        that waits (sleep, a pipe), and lets one that a machine several times slower than an
        idle one runs pass."""
        return self.settings["test_wall_factor"] * self.test_timeout_s

    def cpu_limit(self, times: float = 1) -> str:
        """The test program's argument that sets its CPU limit (kit/testing/src/main.cpp);
        `times` the limit for a slower build of it (AddressSanitizer's)."""
        return f"--attn-cpu-limit={times * self.test_timeout_s:g}"

    def exercise(self, number: str) -> dict:
        """The exercise numbered `number` ("3" or "03"), or a KitError listing the numbers."""
        wanted = f"{int(number):02d}" if number.isdigit() else number
        for candidate in self.exercises:
            if candidate["id"] == wanted:
                return candidate
        ids = ", ".join(ex["id"] for ex in self.exercises)
        raise KitError(f"no exercise {number!r}; the exercises are {ids}")


def notebook_cells(ex: dict) -> list:
    """[(notebook file name, its URL, "In [3], In [5]")]: the public notebook cells an exercise
    mirrors (its "notebook" entries), one item per notebook in order of first mention, its
    cells in notebook order."""
    cells = {}
    for entry in ex.get("notebook", []):
        cited = cells.setdefault(entry["url"], [])
        for cell in entry["cell"].split(", "):
            if cell not in cited:
                cited.append(cell)

    def position(cell: str) -> tuple:
        number = re.search(r"\d+", cell)
        return (0, int(number[0])) if number else (1, 0)

    return [(url.rsplit("/", 1)[-1], url, ", ".join(sorted(cited, key=position)))
            for url, cited in cells.items()]

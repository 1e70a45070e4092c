"""The rubric: points per exercise and whether value cases earn partial credit.

Default: 10 points per exercise, partial credit (points * passed cases / cases, rounded to
0.01). `--rubric FILE`: JSON {"points": {"01": 5, ...}, "partial": true}; an exercise the file
does not name keeps 10 points, "points": {"03": 0} leaves 03 out of the total.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

DEFAULT_POINTS = 10


@dataclass
class Rubric:
    points: dict   # exercise id -> points
    partial: bool

    @classmethod
    def load(cls, path, exercise_ids):
        points = {ex: DEFAULT_POINTS for ex in exercise_ids}
        partial = True
        if path is not None:
            data = json.loads(path.read_text(encoding="utf-8"))
            for key, value in data.get("points", {}).items():
                key = f"{int(key):02d}" if str(key).isdigit() else key
                if key not in points:
                    raise SystemExit(f"grade: the rubric names exercise {key!r}; the exercises "
                                     f"are {', '.join(exercise_ids)}")
                points[key] = float(value)
            partial = bool(data.get("partial", True))
        return cls(points, partial)

    def only(self, exercise_ids) -> "Rubric":
        """The rubric of a run that grades these exercises alone (tools/grade --exercises)."""
        return Rubric({ex: points for ex, points in self.points.items() if ex in exercise_ids},
                      self.partial)

    @property
    def total(self) -> float:
        return round(sum(self.points.values()), 2)

    def score(self, exercise_id: str, passed: int, cases: int) -> float:
        points = self.points[exercise_id]
        if cases == 0:
            return 0.0
        if not self.partial:
            return float(points) if passed == cases else 0.0
        return round(points * passed / cases, 2)

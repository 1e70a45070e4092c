"""Case sets: the full set for the judge (root only) and an inputs-only copy for the runner."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path


def manifest(cases: Path) -> dict:
    return json.loads((cases / "MANIFEST.json").read_text(encoding="utf-8"))


def fingerprint(cases: Path) -> str:
    """The sha256 of a set's MANIFEST.json (which holds every file's hash): the set's identity,
    so `tools/grade merge` can tell that two shards graded the same cases."""
    return hashlib.sha256((cases / "MANIFEST.json").read_bytes()).hexdigest()


def private_copy(cases: Path, target: Path) -> Path:
    """The full case set (expected tensors included) where only root reads it."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(cases, target, symlinks=False)
    os.chmod(target, 0o700)
    return target


def inputs_only(cases: Path, target: Path) -> Path:
    """MANIFEST.json and the input .npy files: all a runner needs, readable by anyone."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    data = manifest(cases)
    shutil.copyfile(cases / "MANIFEST.json", target / "MANIFEST.json")
    for name, info in data["files"].items():
        if info.get("role") == "input":
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cases / name, target / name)
    for folder, dirs, files in os.walk(target):
        os.chmod(folder, 0o755)
        for file in files:
            os.chmod(os.path.join(folder, file), 0o644)
    return target


def cases_of(data: dict, exercise_id: str) -> list:
    return sorted(path for path, case in data["cases"].items() if case["exercise"] == exercise_id)


def readable_by_others(path: Path) -> bool:
    """Whether a user other than root could read `path` (every folder on the way searchable)."""
    path = path.resolve()
    for folder in list(path.parents)[::-1] + [path]:
        mode = folder.stat().st_mode
        if folder != path and not mode & 0o001:
            return False
    return bool(path.stat().st_mode & 0o004)

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
    """The full case set (expected tensors included) where only root reads it. A hidden set's
    SECRET_KEY (tools/record --out: the key its seeds are drawn from) stays behind: the judge
    never needs it, and it would let the next set's cases be computed."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(cases, target, symlinks=False, ignore=shutil.ignore_patterns("SECRET_KEY"))
    os.chmod(target, 0o700)
    return target


# What a runner reads of a case: its kind, the names of its inputs and outputs, and the laws
# whose variants it runs (kit/laws.hpp: which input changes how; nothing of the answers).
RUNNER_CASE_KEYS = ("exercise", "kind", "inputs", "expected", "laws")


def inputs_only(cases: Path, target: Path, exercise: str) -> Path:
    """The input .npy files of one exercise's cases and a MANIFEST.json of what its runner
    needs (the cases' inputs and output names, the input files' hashes), readable by anyone:
    no expected file, no hash of one, no seed, no source cell, no case set name — nothing of
    the answers or of how the set was drawn reaches the sandbox. One exercise's: its runner
    parses a manifest of a few KiB, not the whole set's."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    data = manifest(cases)
    inputs = {name: info | {"source": ""} for name, info in data["files"].items()
              if info.get("role") == "input" and info["exercise"] == exercise}
    runner_manifest = {
        "format_version": data["format_version"], "tolerance": data["tolerance"],
        "case_set": "graded",
        "cases": {path: {key: case[key] for key in RUNNER_CASE_KEYS if key in case}
                  | {"source": ""}
                  for path, case in data["cases"].items() if case["exercise"] == exercise},
        "files": inputs}
    (target / "MANIFEST.json").write_text(json.dumps(runner_manifest, indent=1),
                                          encoding="utf-8")
    for name in inputs:
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

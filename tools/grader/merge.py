"""tools/grade merge: one class's gradebook from the OUT folders of its shards.

    tools/grade merge SHARD_OUT... --out OUT

Each SHARD_OUT is a `tools/grade --shard K/N` run's OUT. The shards must have graded the same
kit commit, case sets, rubric and class, every shard 1..N once, no student twice; anything
else stops the merge with one line naming the problem. The student folders are copied
from SHARD_OUT/students/ to OUT/students/ (modes kept: 0700 folders, 0600 files) and the
class-wide files (gradebook.csv, its header row first; grading.json; report.html) are written by
reports.write_class from the shards' records, as a single run writes them; only the timing
meta differs (the slowest shard's build and grading seconds, and each shard's in "shards").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from . import kitbuild, reports
from .rubric import Rubric

# What every shard's meta must agree on, and how to name it when one does not.
MUST_AGREE = {"kit_head": "kit commit", "sets": "case sets", "case_sets": "case sets",
              "rubric": "rubric", "class": "class (student list)", "sandboxed": "sandboxing",
              "timeout_s": "time-out of a test program",
              "wall_timeout_s": "wall-clock time-out of a test program",
              "compile_timeout_s": "time-out of a compile"}


class MergeError(Exception):
    pass


def load_shards(folders: list) -> list:
    """[(folder, records.json)] sorted by shard number, checked to be one whole class."""
    shards = []
    for folder in folders:
        path = folder / "records.json"
        if not path.is_file():
            raise MergeError(f"{folder} has no records.json (did its shard finish?)")
        data = json.loads(path.read_text(encoding="utf-8"))
        if "shard" not in data["meta"]:
            raise MergeError(f"{folder} is not a shard (graded without --shard K/N)")
        shards.append((folder, data))
    first_folder, first = shards[0]
    for folder, data in shards[1:]:
        for key, what in MUST_AGREE.items():
            if data["meta"].get(key) != first["meta"].get(key):
                raise MergeError(f"{folder} and {first_folder} graded with different {what}")
    count = first["meta"]["shard"][1]
    taken = {}
    for folder, data in shards:
        k, n = data["meta"]["shard"]
        if n != count:
            raise MergeError(f"{folder} is shard {k}/{n}, {first_folder} one of {count}")
        if k in taken:
            raise MergeError(f"shard {k}/{n} given twice: {taken[k]} and {folder}")
        taken[k] = folder
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in taken]
    if missing:
        raise MergeError(f"shard {', '.join(missing)} missing (given: "
                         f"{', '.join(f'{k}/{count}' for k in sorted(taken))})")
    graded_in = {}
    for folder, data in shards:
        for record in data["records"]:
            if record["id"] in graded_in:
                raise MergeError(f"student {record['id']} graded twice: in "
                                 f"{graded_in[record['id']]} and {folder}")
            graded_in[record["id"]] = folder
    ungraded = sorted(set(first["meta"]["class"]) - set(graded_in))
    if ungraded:
        raise MergeError(f"no shard graded {', '.join(ungraded)}")
    return sorted(shards, key=lambda shard: shard[1]["meta"]["shard"][0])


def merge(folders: list, out: Path) -> list:
    """Writes OUT from the shards in `folders`; returns the merged records."""
    shards = load_shards([folder.resolve() for folder in folders])
    meta = dict(shards[0][1]["meta"])
    del meta["shard"]
    # The exercises the shards graded (all, or those of tools/grade --exercises), as the
    # rubric each shard recorded names them; load_shards made sure the shards agree on it.
    graded = meta["rubric"]["points"]
    exercises = [ex for ex in kitbuild.catalogue()["exercises"] if ex["id"] in graded]
    ids = [ex["id"] for ex in exercises]
    if sorted(graded) != sorted(ids):
        raise MergeError(f"the shards graded exercises {', '.join(graded)}; this kit has "
                         f"{', '.join(ex['id'] for ex in kitbuild.catalogue()['exercises'])}")
    timings = [{key: data["meta"][key] for key in ("shard", "build_s", "grading_wall_s", "jobs")}
               for _, data in shards]
    # The shards ran side by side: the class took as long as its slowest shard.
    meta.update(build_s=max(t["build_s"] for t in timings),
                grading_wall_s=max(t["grading_wall_s"] for t in timings),
                jobs=sum(t["jobs"] for t in timings), shards=timings)
    notes = list(dict.fromkeys(note for _, data in shards for note in data["notes"]))
    records = sorted((record for _, data in shards for record in data["records"]),
                     key=lambda record: record["id"])

    out.mkdir(parents=True, exist_ok=True)
    # As a grading run leaves its OUT: root's OUT stays searchable, for shards kept inside it
    # (tools/grade slurm puts them in OUT/shards) whose sandbox users compile there.
    os.chmod(out, 0o711 if os.geteuid() == 0 else 0o700)
    students = out / "students"  # where a grading run writes each student's folder
    students.mkdir(exist_ok=True)
    os.chmod(students, 0o700)
    for folder, data in shards:
        for record in data["records"]:
            source, target = folder / "students" / record["id"], students / record["id"]
            if target.exists():
                shutil.rmtree(target)
            if source.is_dir() and not source.is_symlink():  # not after a grader error
                shutil.copytree(source, target)  # copy2: modes kept
    reports.write_class(out, records, exercises, Rubric(**meta["rubric"]), notes, meta)
    return records


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tools/grade merge",
                                     description="one gradebook from the OUT of each shard")
    parser.add_argument("shards", type=Path, nargs="+", metavar="SHARD_OUT",
                        help="the --out of each tools/grade --shard K/N run")
    parser.add_argument("--out", type=Path, required=True, help="where the gradebook goes")
    args = parser.parse_args(argv)
    try:
        records = merge(args.shards, args.out)
    except MergeError as error:
        print(f"grade merge: {error}", file=sys.stderr)
        return 1
    print(f"grade merge: {len(records)} students from {len(args.shards)} shards; "
          f"{args.out.resolve() / 'gradebook.csv'}")
    return 0

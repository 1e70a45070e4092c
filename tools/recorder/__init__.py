"""tools/record: records the kit's golden tensors from PyTorch, re-running the seed
notebooks' cells, with the error scale of every expected golden and the plausible wrong
answers a failing test can name. See README.md in this folder.

    /usr/bin/python3 tools/record                        rewrite reference_data/
    /usr/bin/python3 tools/record --check                recompute; exit 1 on any difference
    /usr/bin/python3 tools/record --out DIR --seed N     write a hidden case set into DIR
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from . import exercises, selfcheck, store
from .cases import Exercise
from .printing import record_printing_samples

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_DATA = ROOT / "reference_data"


def record(catalogue, hidden_seed):
    """The whole case set in memory: public (hidden_seed None) or hidden."""
    recording = store.Recording("public" if hidden_seed is None else f"seed {hidden_seed}")
    for exercise_id, folder, recorder in exercises.registered(catalogue):
        recorder(Exercise(exercise_id, folder, hidden_seed, recording))
    if hidden_seed is None:
        record_printing_samples(recording)
    return recording


def shown(folder):
    """A folder as messages name it: relative to the repository when inside it."""
    folder = folder.resolve()
    return folder.relative_to(ROOT).as_posix() if folder.is_relative_to(ROOT) else str(folder)


def hidden_folder_problem(folder):
    """Why a hidden case set may not be written into `folder`, or None."""
    folder, reference = folder.resolve(), REFERENCE_DATA.resolve()
    if folder.is_relative_to(reference) or reference.is_relative_to(folder):
        return (f"refusing to write a hidden case set at {folder}: it overlaps reference_data/, "
                "which ships with the student kit; choose a folder outside it, e.g. /tmp/hidden7")
    if folder.exists() and any(folder.iterdir()) and not store.is_case_set(folder):
        return (f"refusing to write into {folder}: it is not empty and holds no case set "
                "written by tools/record; choose a new or empty folder")
    return None


def parse(argv):
    parser = argparse.ArgumentParser(prog="tools/record", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="recompute every golden in memory and compare byte for byte; "
                             "exit 1 on any difference or failed self-check")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write a hidden case set (drawn cases only) into DIR, with --seed")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="the seed a hidden case set's shapes and values are drawn from")
    args = parser.parse_args(argv)
    if (args.out is None) != (args.seed is None):
        parser.error("--out and --seed go together: --out DIR --seed N writes a hidden case set")
    if args.out is not None and not args.check and (problem := hidden_folder_problem(args.out)):
        parser.error(problem)
    return args


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    catalogue = json.loads((ROOT / "exercises.json").read_text(encoding="utf-8"))
    torch.set_num_threads(1)  # one thread: the same summation order on every run
    folder = REFERENCE_DATA if args.out is None else args.out
    recording = record(catalogue, args.seed)
    for note in recording.notes:
        print(note)
    problems, goldens, mistakes = selfcheck.verify(recording.files, recording.entries,
                                                   recording.references)
    if problems:
        summary = (f"self-checks FAILED: {len(problems)} problems in {goldens} goldens and "
                   f"{mistakes} mistakes")
    else:
        summary = (f"self-checks passed: {goldens} goldens within 1/4 of their tolerance in "
                   f"float64, {mistakes} mistakes >= {selfcheck.FAR:g}x apart")
    if args.check:
        differences = (store.differences(recording, folder, shown(folder)) if folder.is_dir()
                       else [f"missing: {shown(folder)}/"])
        for line in differences + problems:
            print(line)
        print(f"record --check: {len(recording.files)} files recomputed with torch "
              f"{torch.__version__.split('+')[0]}, {len(differences)} differences; {summary}")
        return 1 if differences or problems else 0
    for line in problems:
        print(line)
    if problems:
        print(f"record: nothing written; {summary}")
        return 1
    store.write(recording, folder)
    print(f"record: wrote {len(recording.files)} files and {shown(folder)}/{store.MANIFEST} "
          f"({recording.case_set} case set); {summary}")
    return 0

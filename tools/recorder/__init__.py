"""tools/record: records the kit's golden tensors from PyTorch, re-running the seed
notebooks' cells, with the error scale of every expected golden and the plausible wrong
answers a failing test can name. See README.md in this folder.

    /usr/bin/python3 tools/record                        rewrite reference_data/
    /usr/bin/python3 tools/record --check                recompute; exit 1 on any difference
    /usr/bin/python3 tools/record --out DIR              write a hidden case set into DIR,
                                                         keyed by a new DIR/SECRET_KEY
    /usr/bin/python3 tools/record --out DIR --check      recompute DIR from its SECRET_KEY
    /usr/bin/python3 tools/record --out DIR --new-key    replace DIR's set and key
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch
from kitlib import catalogue as catalogue_file

from . import book, exercises, hidden_key, provenance, selfcheck, store
from .cases import Exercise, name_what_never_differs
from .generator import record_generator_samples
from .init import record_init_samples
from .printing import record_printing_samples

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_DATA = ROOT / "reference_data"


def record(catalogue, key):
    """The whole case set in memory: public (key None) or hidden, drawn from `key`."""
    recording = (store.Recording("public") if key is None
                 else store.Recording("hidden", key_id=hidden_key.identifier(key)))
    for exercise_id, folder, recorder in exercises.registered(catalogue):
        recorder(Exercise(exercise_id, folder, key, recording))
        name_what_never_differs(recording, exercise_id)
    if key is None:
        record_printing_samples(recording)
        record_init_samples(recording)
        record_generator_samples(recording)
    return recording


def not_checked(recording, recorded, this_torch, blas, where):
    """One line per group of what --check on another environment leaves unchecked, and why."""
    lines = []
    if recording.from_blas:
        folders = {}
        for path in recording.from_blas:
            group = "/".join(path.split("/")[:2]) if path.startswith("kit/") else path.split("/")[0]
            folders[group] = folders.get(group, 0) + 1
        listed = ", ".join(f"{group} {count}" for group, count in sorted(folders.items()))
        cases = {recording.entries[path].get("case", path) for path in recording.from_blas}
        lines.append(
            f"not checked on torch {this_torch}: {len(recording.from_blas)} files of "
            f"{len(cases)} cases computed by BLAS products ({provenance.WHAT}), whose last bits "
            f"depend on the BLAS library (recorded on OpenBLAS's Haswell kernels with torch "
            f"{recorded.get('torch_version', '?')}; this torch uses {blas}): {listed}")
    current = {"torch_version": this_torch, "numpy_version": np.__version__}
    changed = [f"{key} {value}" for key, value in recorded.items() if value != current[key]]
    parts = ([f"{' and '.join(changed)} (the recording environment's)"] if changed else []) + (
        ["the sha256 of the files above"] if recording.from_blas else [])
    if parts:
        lines.append(f"not checked on torch {this_torch}: {where}/{store.MANIFEST}'s "
                     f"{', and '.join(parts)}; the rest of it is checked")
    return lines


def shown(folder):
    """A folder as messages name it: relative to the repository when inside it."""
    folder = folder.resolve()
    return folder.relative_to(ROOT).as_posix() if folder.is_relative_to(ROOT) else str(folder)


def hidden_folder_problem(folder, new_key):
    """Why a hidden case set may not be written into `folder`, or None."""
    folder, reference = folder.resolve(), REFERENCE_DATA.resolve()
    if folder.is_relative_to(reference) or reference.is_relative_to(folder):
        return (f"refusing to write a hidden case set at {folder}: it overlaps reference_data/, "
                "which ships with the student kit; choose a folder outside it, e.g. /tmp/hidden7")
    if folder.exists() and any(folder.iterdir()) and not store.is_case_set(folder):
        return (f"refusing to write into {folder}: it is not empty and holds no case set "
                "written by tools/record; choose a new or empty folder")
    # Its key is the only way to re-derive (and --check) a set: never replaced by accident.
    if (folder / hidden_key.KEY_FILE).exists() and not new_key:
        return (f"refusing to overwrite the hidden case set in {folder}, keyed by its "
                f"{hidden_key.KEY_FILE}: add --new-key to replace set and key, or --check it")
    return None


def parse(argv):
    parser = argparse.ArgumentParser(prog="tools/record", description=__doc__.split("\n\n")[0])

    def refuse(message):  # one line, so a script's log says what to do
        parser.exit(2, f"tools/record: error: {message}\n")

    parser.add_argument("--check", action="store_true",
                        help="recompute every golden in memory and compare byte for byte; "
                             "exit 1 on any difference or failed self-check")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write a hidden case set (drawn cases only) into DIR, its cases "
                             "drawn from a new random key kept in DIR/SECRET_KEY; with --check, "
                             "recompute the set in DIR from its key")
    parser.add_argument("--new-key", action="store_true",
                        help="with --out: replace a hidden set already in DIR, and its key")
    # Gone: seeds from a small number could be guessed. Kept only to say so to old scripts.
    parser.add_argument("--seed", nargs="?", const="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seed is not None:
        refuse("--seed is gone: hidden case sets are now keyed by a secret; record one with "
               f"`tools/record --out DIR` (its key is kept in DIR/{hidden_key.KEY_FILE})")
    if args.new_key and (args.out is None or args.check):
        refuse("--new-key goes with --out DIR (and no --check): it replaces a hidden set's key")
    if args.out is not None and not args.check and (
            problem := hidden_folder_problem(args.out, args.new_key)):
        refuse(problem)
    return args


def stored_key(folder):
    """The key of the hidden set in `folder`, for --check; SystemExit saying why when none."""
    try:
        return hidden_key.read(folder)
    except ValueError as error:
        recorded_with_seed = ""
        try:
            case_set = json.loads((folder / store.MANIFEST).read_text(encoding="utf-8"))["case_set"]
            if str(case_set).startswith("seed "):
                recorded_with_seed = (f" ({shown(folder)} was recorded with the old --seed, "
                                      "whose cases can be guessed: record a new set)")
        except (OSError, ValueError, KeyError, TypeError):
            pass
        raise SystemExit(f"tools/record: error: {error}{recorded_with_seed}") from None


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        catalogue = catalogue_file.load(ROOT)  # format_version checked
    except catalogue_file.CatalogueError as error:
        raise SystemExit(f"tools/record: error: {error}") from None
    torch.set_num_threads(1)  # one thread: the same summation order on every run
    folder = REFERENCE_DATA if args.out is None else args.out
    if args.out is None:
        key = None
    elif args.check:
        key = stored_key(folder)
    else:
        key = hidden_key.new()
    # On another torch than the recording one, or another BLAS than OpenBLAS, the BLAS
    # products round otherwise: find which files they decide (provenance.py).
    this_torch = torch.__version__.split("+")[0]
    recorded = store.recorded_versions(folder) if args.check else {}
    blas = provenance.loaded_blas() if args.check else ""
    other = bool(recorded) and (recorded.get("torch_version") != this_torch
                                or not provenance.is_openblas(blas))
    if other:
        provenance.TRACKER = provenance.Tracker()
        try:
            with provenance.TRACKER:
                recording = record(catalogue, key)
        finally:
            provenance.TRACKER = None
    else:
        recording = record(catalogue, key)
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
        unchecked = recording.from_blas if other else set()
        differences = (store.differences(recording, folder, shown(folder), unchecked,
                                         recorded if other else None) if folder.is_dir()
                       else [f"missing: {shown(folder)}/"])
        if other:
            for line in not_checked(recording, recorded, this_torch, blas, shown(folder)):
                print(line)
        if key is None:
            notes, book_differences = book.update(folder, check=True)
            for note in notes:
                print(note)
            differences += book_differences
        for line in differences + problems:
            print(line)
        skipped = f", {len(unchecked)} not checked" if unchecked else ""
        print(f"record --check: {len(recording.files)} files recomputed with torch "
              f"{this_torch}, {len(differences)} differences{skipped}; {summary}")
        return 1 if differences or problems else 0
    for line in problems:
        print(line)
    if problems:
        print(f"record: nothing written; {summary}")
        return 1
    if key is not None:
        hidden_key.write(folder, key)  # before the goldens: no set on disk without its key
    store.write(recording, folder)
    if key is None:
        print("\n".join(book.update(folder, check=False)[0]))
    about = ("public case set" if key is None else
             f"hidden case set, key {recording.key_id} in {shown(folder)}/{hidden_key.KEY_FILE}")
    print(f"record: wrote {len(recording.files)} files and {shown(folder)}/{store.MANIFEST} "
          f"({about}); {summary}")
    return 0

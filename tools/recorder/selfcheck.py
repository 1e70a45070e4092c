"""What tools/record promises about every case set, checked on its bytes and manifest.

For every float32 expected golden E (with its saved scale S, reduction n and factor f):
  - E lies within 1/4 of its tolerance of the float64 recomputation of the same cell, so a
    correct float32 computation summed in another order has 3/4 of the tolerance to spare;
  - S >= |E| wherever E is a number (the rule's rtol term is never smaller than |E|'s);
  - every recorded mistake is >= 10 tolerances from E and from every other mistake of E,
    so a wrong answer that matches a mistake within 1 tolerance is named unambiguously.
"""

import numpy as np

from .cases import FAR
from .store import load
from .tolerance import distance, with_magnitudes

WITHIN = 0.25  # of the tolerance, between a golden and its float64 recomputation


def exact_problems(path, expected, reference, mistake_paths, files):
    """An int64 or bool golden: equal to its float64 recomputation, every mistake different
    from it and from each other."""
    problems = []
    if not np.array_equal(expected, reference):
        problems.append(f"{path}: differs from its float64 recomputation")
    wrong = {m: load(files[m]) for m in mistake_paths}
    for m, tensor in wrong.items():
        if tensor.dtype != expected.dtype:
            problems.append(f"{m}: a {tensor.dtype} mistake of a {expected.dtype} golden")
        elif tensor.shape == expected.shape and np.array_equal(tensor, expected):
            problems.append(f"{m}: equals the answer")
    names = sorted(wrong)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if wrong[a].shape == wrong[b].shape and np.array_equal(wrong[a], wrong[b]):
                problems.append(f"{a}: equals {b}")
    return problems


def verify(files, entries, references):
    """Problems with a case set (one line each), the goldens and the mistakes checked.
    `files`: path -> .npy bytes; `entries`: path -> manifest entry; `references`: expected
    path -> float64 array."""
    problems, goldens, mistakes = [], 0, 0
    for path, entry in sorted(entries.items()):
        if entry["role"] != "expected":
            continue
        goldens += 1
        expected = load(files[path])
        if entry["dtype"] != "float32":  # int64 and bool: exact, no scale
            problems += exact_problems(path, expected, references[path], entry["mistakes"], files)
            mistakes += len(entry["mistakes"])
            continue
        scale = load(files[entry["scale"]])
        n, factor = entry["reduction"], entry["tolerance_factor"]
        off = distance(expected, references[path], scale, n, factor)
        if not off <= WITHIN:
            problems.append(f"{path}: {off:.3g} of its tolerance from its float64 "
                            f"recomputation (at most {WITHIN:g} allowed): is its scale too small?")
        numbers = ~np.isnan(expected)
        if not np.all(scale[numbers] >= np.abs(expected[numbers])):
            problems.append(f"{path}: its scale is below |expected| somewhere")
        wrong = {m: load(files[m]) for m in entry["mistakes"]}
        mistakes += len(wrong)
        for m, tensor in wrong.items():
            apart = distance(tensor, expected, with_magnitudes(scale, tensor, expected), n, factor)
            if not apart >= FAR:
                problems.append(f"{m}: only {apart:.3g} tolerances from the answer")
        names = sorted(wrong)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                apart = distance(wrong[a], wrong[b], with_magnitudes(scale, wrong[a], wrong[b]),
                                 n, factor)
                if not apart >= FAR:
                    problems.append(f"{a}: only {apart:.3g} tolerances from {b}")
    return problems, goldens, mistakes

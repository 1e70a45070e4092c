#!/usr/bin/env python3
"""Records the kit's golden tensors from PyTorch, re-running the seed notebooks' cells.

Run it with Debian's python3-torch (the python3 first on PATH may be one without torch):
    /usr/bin/python3 tools/record_goldens.py          # (re)write reference_data/
    /usr/bin/python3 tools/record_goldens.py --check  # recompute all; exit 1 on any difference

Every tensor is recorded as a float32 .npy file under reference_data/<exercise folder>/ with
an entry in reference_data/MANIFEST.json (sha256, shape, dtype, seed, source cell, role):
  input     what a test feeds to the function under test (the notebook's own data);
  expected  what the function must return; `reduction` is the length of the longest sum
            behind each value, which scales the tests' tolerance (kit/tolerance.hpp);
  mistake   what a plausible wrong implementation returns on the same input, with a name
            and a one-line hint: a failing test that sees it says which mistake it is;
  print_sample  a tensor and its repr(), which the kit's PyTorch-style printer must match.
Never edit a golden by hand: change this file and re-run it.
"""

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path

try:
    import numpy as np
    import torch
except ImportError as error:  # the python3 first on PATH is often not Debian's
    sys.exit(f"record_goldens.py needs PyTorch and NumPy ({error}).\n"
             "Run it with /usr/bin/python3 after: apt-get install python3-torch python3-numpy")

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_DATA = ROOT / "reference_data"
MANIFEST = REFERENCE_DATA / "MANIFEST.json"


def npy_bytes(tensor):
    """The .npy file of a tensor as float32, C order (xt::load_npy wants the exact dtype)."""
    array = tensor.detach().cpu().numpy().astype(np.float32, order="C")  # keeps 0-d as 0-d
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue(), list(array.shape)


class Recording:
    """Collects the files and manifest entries of one run, in memory."""

    def __init__(self):
        self.files = {}     # path relative to reference_data -> bytes
        self.entries = {}   # same path -> manifest entry

    def add(self, path, tensor, **entry):
        if path in self.files:
            raise ValueError(f"{path} recorded twice")
        data, shape = npy_bytes(tensor)
        self.files[path] = data
        self.entries[path] = {"sha256": hashlib.sha256(data).hexdigest(), "shape": shape,
                              "dtype": "float32", **entry}

    def manifest(self):
        return {
            "about": "Written by tools/record_goldens.py; do not edit. Paths are relative to "
                     "this folder. Sources name the seed document (../shared/seeds) and cell.",
            "torch_version": torch.__version__.split("+")[0],
            "numpy_version": np.__version__,
            "files": dict(sorted(self.entries.items())),
        }


class Exercise:
    """Records the tensors of one exercise into its golden folder."""

    def __init__(self, recording, exercise_id, folder, document, seed=None):
        self.recording, self.id, self.folder = recording, exercise_id, folder
        self.document, self.seed = document, seed

    def _entry(self, role, cell):
        return {"exercise": self.id, "role": role, "seed": self.seed,
                "source": f"{self.document}, {cell}"}

    def input(self, name, tensor, cell):
        self.recording.add(f"{self.folder}/{name}.npy", tensor, **self._entry("input", cell))

    def expected(self, name, tensor, cell, reduction, mistakes=()):
        """`mistakes`: (slug, name, hint, wrong_tensor) tuples, computed on the same input."""
        mistake_paths = []
        for slug, title, hint, wrong in mistakes:
            path = f"{self.folder}/mistakes/{name}.{slug}.npy"
            self.recording.add(path, wrong, **self._entry("mistake", cell),
                               of=f"{self.folder}/{name}.npy", name=title, hint=hint)
            mistake_paths.append(path)
        self.recording.add(f"{self.folder}/{name}.npy", tensor, **self._entry("expected", cell),
                           reduction=reduction, mistakes=mistake_paths)


def notebook_inputs():
    """001 §3.3.1, In [1]: "Your journey starts with one step", one 3-D row per token."""
    return torch.tensor([[0.43, 0.15, 0.89],   # Your     (x^1)
                         [0.55, 0.87, 0.66],   # journey  (x^2)
                         [0.57, 0.85, 0.64],   # starts   (x^3)
                         [0.22, 0.58, 0.33],   # with     (x^4)
                         [0.77, 0.25, 0.10],   # one      (x^5)
                         [0.05, 0.80, 0.55]])  # step     (x^6)


def loop_dot_scores(inputs, query):
    """001 In [2]: one torch.dot per input row."""
    scores = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        scores[i] = torch.dot(query, x_i)
    return scores


def loop_context_vector(inputs, weights):
    """001 In [5]: the weighted sum of the input rows."""
    context = torch.zeros(inputs.shape[1])
    for i, x_i in enumerate(inputs):
        context += weights[i] * x_i
    return context


def record_01_dot_scores(rec):
    ex = Exercise(rec, "01", "01_dot_scores", "001 §3.3.1")
    inputs = notebook_inputs()
    ex.input("inputs", inputs, "In [1]")
    for name, index, cell in (("attention_scores_2", 1, "In [2]"),
                              ("attn_scores_1", 0, "In [6]")):
        query = inputs[index]
        last_skipped = loop_dot_scores(inputs, query)
        last_skipped[-1] = 0.0
        ex.expected(name, loop_dot_scores(inputs, query), cell, reduction=inputs.shape[1],
                    mistakes=[
                        ("self_dot", "dotted each input with itself",
                         "scores[i] compares the QUERY with input i: dot(query, inputs[i]), "
                         "not dot(inputs[i], inputs[i]).",
                         (inputs * inputs).sum(dim=1)),
                        ("added", "added query and input instead of multiplying",
                         "a dot product multiplies matching entries, then sums: "
                         "sum_k query[k] * inputs[i, k].",
                         (inputs + query).sum(dim=1)),
                        ("last_skipped", "the loop skipped the last token",
                         "the last score is still 0: loop over all T rows (i < T, not i < T - 1).",
                         last_skipped),
                    ])


def record_02_normalize_by_sum(rec):
    ex = Exercise(rec, "02", "02_normalize_by_sum", "001 §3.3.1")
    scores = loop_dot_scores(notebook_inputs(), notebook_inputs()[1])
    ex.input("attention_scores_2", scores, "In [2]")
    weights = scores / scores.sum()
    ex.expected("attention_weights_2_tmp", weights, "In [3]", reduction=scores.shape[0],
                mistakes=[
                    ("by_max", "divided by the largest score",
                     "weights must add up to 1, so divide by the SUM of the scores, not the max.",
                     scores / scores.max()),
                    ("by_count", "divided by the number of scores",
                     "dividing by T gives an average; divide by the sum of the scores instead.",
                     scores / scores.shape[0]),
                    ("softmax", "applied exp() first: that is softmax",
                     "softmax is exercise 03; here divide the raw scores by their sum.",
                     torch.softmax(scores, dim=0)),
                ])
    ex.expected("attention_weights_2_tmp_sum", weights.sum(), "In [3]",
                reduction=scores.shape[0])


def softmax_mistakes(scores, dim):
    """Wrong answers a student's softmax along `dim` plausibly returns, for a 2-D input."""
    other = 1 - (dim % 2)
    exp = torch.exp(scores)
    return [
        ("wrong_axis", f"softmax over the wrong axis (dim={other} instead of dim={dim})",
         "dim=-1 (1) makes every ROW sum to 1, dim=0 every COLUMN: reduce max and sum along "
         "the axis you were given.",
         torch.softmax(scores, dim=other)),
        ("whole_matrix", "normalised over the whole matrix",
         "each row (or column) is its own distribution: sum exp() along `dim` only, keeping "
         "that axis (xt::keep_dims) so the sums broadcast back.",
         exp / exp.sum()),
        ("no_exp", "normalised without exp()",
         "softmax divides exp(x) by the sum of exp(x); dividing x by its sum is exercise 02.",
         scores / scores.sum(dim=dim, keepdim=True)),
        ("no_division", "forgot to divide by the sum",
         "exp() alone is not a distribution: divide by the sum of the exps along `dim`.",
         exp),
    ]


def record_03_softmax(rec):
    ex = Exercise(rec, "03", "03_softmax", "001")
    inputs = notebook_inputs()
    scores = loop_dot_scores(inputs, inputs[1])
    ex.input("attention_scores_2", scores, "§3.3.1, In [2]")
    ex.expected("attention_weights_2", torch.softmax(scores, dim=0), "§3.3.1, In [4]",
                reduction=scores.shape[0],
                mistakes=[
                    ("no_exp", "normalised without exp()",
                     "softmax divides exp(x_i) by the sum of exp(x_j); dividing x by its sum "
                     "is exercise 02.",
                     scores / scores.sum()),
                    ("no_division", "forgot to divide by the sum",
                     "exp() alone is not a distribution: divide by the sum of the exps.",
                     torch.exp(scores)),
                ])
    ex.expected("attention_weights_2_sum", torch.softmax(scores, dim=0).sum(), "§3.3.1, In [4]",
                reduction=scores.shape[0])

    attn_scores = inputs @ inputs.T
    ex.input("attn_scores", attn_scores, "§3.3.2, In [8]")
    ex.expected("attn_weights", torch.softmax(attn_scores, dim=-1), "§3.3.2, In [9]",
                reduction=attn_scores.shape[1], mistakes=softmax_mistakes(attn_scores, 1))
    # 003 In [28]'s softmax_cols: the same scores, each column summing to 1.
    ex.expected("attn_weights_cols", torch.softmax(attn_scores, dim=0),
                "§3.3.2 scores with dim=0, as 003's softmax_cols (003, In [28])",
                reduction=attn_scores.shape[0], mistakes=softmax_mistakes(attn_scores, 0))

    overflow = "exp(1000) is inf in float32 and inf / inf is nan: subtract max(x) first."
    large = torch.tensor([1000.0, 1001.0])
    ex.input("large_logits", large, "beyond the notebook: logits whose exp() overflows")
    ex.expected("large_logits_softmax", torch.softmax(large, dim=0),
                "beyond the notebook: torch.softmax([1000, 1001], dim=0)", reduction=2,
                mistakes=[("naive", "unstable softmax overflowed", overflow,
                           torch.exp(large) / torch.exp(large).sum())])

    large_rows = torch.tensor([[1000.0, 1001.0], [0.0, 1.0]])
    global_shift = torch.exp(large_rows - large_rows.max())
    ex.input("large_rows", large_rows, "beyond the notebook: logits whose exp() overflows")
    ex.expected("large_rows_softmax", torch.softmax(large_rows, dim=-1),
                "beyond the notebook: torch.softmax([[1000, 1001], [0, 1]], dim=-1)", reduction=2,
                mistakes=[
                    ("naive", "unstable softmax overflowed", overflow,
                     torch.exp(large_rows) / torch.exp(large_rows).sum(dim=-1, keepdim=True)),
                    ("global_max", "subtracted the max of the whole matrix, not of each row",
                     "exp(0 - 1001) underflows to 0, so row 2 becomes 0 / 0: subtract each "
                     "row's own max (xt::amax along the axis, with xt::keep_dims).",
                     global_shift / global_shift.sum(dim=-1, keepdim=True)),
                ])


def record_04_context_vector(rec):
    ex = Exercise(rec, "04", "04_context_vector", "001 §3.3.1")
    inputs = notebook_inputs()
    ex.input("inputs", inputs, "In [1]")

    def context_of(index, normalise=lambda s: torch.softmax(s, dim=0)):
        return loop_context_vector(inputs, normalise(loop_dot_scores(inputs, inputs[index])))

    weights_2 = torch.softmax(loop_dot_scores(inputs, inputs[1]), dim=0)
    ex.input("attention_weights_2", weights_2, "In [4]")
    pipeline_mistakes = [
        ("raw_scores", "weighted by the raw scores, without softmax",
         "turn the dot-product scores into weights with softmax before weighting the inputs.",
         lambda s: s),
        ("naive_weights", "normalised the scores by their sum instead of softmax",
         "this exercise uses softmax weights (exercise 03), not scores / sum (exercise 02).",
         lambda s: s / s.sum()),
    ]
    for name, index, cell, weight_mistakes in (
            ("context_vec_2", 1, "In [5]", True), ("context_vec_1", 0, "In [6]", False)):
        mistakes = [(slug, title, hint, context_of(index, normalise))
                    for slug, title, hint, normalise in pipeline_mistakes]
        for off_by in (-1, 1):
            if 0 <= index + off_by < inputs.shape[0]:
                mistakes.append((f"query_{index + off_by}", "used the wrong query token",
                                 f"this is the context vector of token {index + off_by}: "
                                 f"the query is row query_index = {index} of inputs.",
                                 context_of(index + off_by)))
        if weight_mistakes:
            mistakes += [
                ("unweighted_sum", "added the inputs without their weights",
                 "scale row i by weights[i] before adding it.", inputs.sum(dim=0)),
                ("mean", "averaged the inputs",
                 "an unweighted mean ignores the attention weights: sum weights[i] * inputs[i].",
                 inputs.mean(dim=0)),
                ("reversed_weights", "paired the weights with the wrong tokens",
                 "weights[i] belongs to row i of inputs; check the indices of your loop.",
                 loop_context_vector(inputs, weights_2.flip(0))),
            ]
        ex.expected(name, context_of(index), cell, reduction=inputs.shape[0], mistakes=mistakes)


def record_05_all_context_vectors(rec):
    ex = Exercise(rec, "05", "05_all_context_vectors", "001 §3.3.2")
    inputs = notebook_inputs()
    ex.input("inputs", inputs, "§3.3.1, In [1]")
    scores = torch.empty((inputs.shape[0], inputs.shape[0]))
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            scores[i, j] = torch.dot(x_i, x_j)
    ex.expected("attn_scores", scores, "In [7] (loops) and In [8] (inputs @ inputs.T)",
                reduction=inputs.shape[1],
                mistakes=[
                    ("upper_triangle", "filled only the upper triangle",
                     "the inner loop must visit every j in [0, T), not start at i.",
                     torch.triu(scores)),
                    ("feature_gram", "computed inputs.T @ inputs",
                     "that compares embedding dimensions (d_in × d_in); compare tokens: "
                     "inputs @ inputs.T is T × T.",
                     inputs.T @ inputs),
                ])
    weights = torch.softmax(scores, dim=-1)
    ex.expected("context_vecs", weights @ inputs, "In [9] and In [10]",
                reduction=inputs.shape[0],
                mistakes=[
                    ("column_softmax", "softmax over the columns (dim=0), or transposed weights",
                     "each ROW of the weights must sum to 1: softmax(scores, -1), then "
                     "weights @ inputs.",
                     torch.softmax(scores, dim=0) @ inputs),
                    ("no_softmax", "used the raw scores as weights",
                     "apply the row-wise softmax to the scores before multiplying by inputs.",
                     scores @ inputs),
                    ("naive_weights", "normalised the scores by their row sums instead of softmax",
                     "the weights are softmax(scores, -1), not scores / row sum (exercise 02).",
                     (scores / scores.sum(dim=-1, keepdim=True)) @ inputs),
                ])


def record_printing_samples(rec):
    """Tensors whose repr() the kit's printer (kit/src/torch_format.cpp) must reproduce."""
    torch.manual_seed(0)
    samples = [
        loop_dot_scores(notebook_inputs(), notebook_inputs()[1]),
        notebook_inputs() @ notebook_inputs().T,
        torch.tril(torch.ones(6, 6)),
        torch.tensor([1000.0, 1001.0]),
        torch.tensor([float("nan"), float("nan")]),
        torch.tensor([1.0, float("inf"), -float("inf"), float("nan")]),
        torch.tensor([1e-5, 1.0, 2000.0]),
        torch.tensor([1e9, 1.0]),
        torch.tensor([-0.0, 0.5, -1.25]),
        torch.randn(4, 3),
        torch.randn(2, 3, 4),
        torch.randn(1, 2, 3, 4),
        torch.arange(30, dtype=torch.float32) * 0.1,
        torch.randn(25) * 100,
        torch.randn(40, 40),
        torch.randn(2, 30, 40),
        torch.tensor(0.1385),
        torch.zeros(2, 3),
        torch.zeros(0),
        torch.zeros(0, 3),
    ]
    for number, tensor in enumerate(samples):
        rec.add(f"kit/printing/sample_{number:02d}.npy", tensor, exercise="kit",
                role="print_sample", seed=0, source="repr() of a torch.Tensor",
                repr=repr(tensor))


RECORDERS = [record_01_dot_scores, record_02_normalize_by_sum, record_03_softmax,
             record_04_context_vector, record_05_all_context_vectors, record_printing_samples]


def record_all():
    recording = Recording()
    for record in RECORDERS:
        record(recording)
    return recording


def manifest_text(recording):
    return json.dumps(recording.manifest(), indent=2, ensure_ascii=False) + "\n"


def write(recording):
    for old in REFERENCE_DATA.rglob("*.npy"):
        old.unlink()
    for path, data in recording.files.items():
        target = REFERENCE_DATA / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    MANIFEST.write_text(manifest_text(recording), encoding="utf-8")
    print(f"wrote {len(recording.files)} golden files and {MANIFEST.relative_to(ROOT)}")


def check(recording):
    """Every difference between a fresh recording and reference_data/, one line each."""
    problems = []
    on_disk = {p.relative_to(REFERENCE_DATA).as_posix() for p in REFERENCE_DATA.rglob("*.npy")}
    for path, data in recording.files.items():
        file = REFERENCE_DATA / path
        if path not in on_disk:
            problems.append(f"missing: reference_data/{path}")
        elif file.read_bytes() != data:
            problems.append(f"differs from PyTorch's result: reference_data/{path}")
    problems += [f"not produced by the recorder: reference_data/{path}"
                 for path in sorted(on_disk - recording.files.keys())]
    if not MANIFEST.exists():
        problems.append("missing: reference_data/MANIFEST.json")
    elif MANIFEST.read_text(encoding="utf-8") != manifest_text(recording):
        problems.append("differs from a fresh recording: reference_data/MANIFEST.json")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="recompute every golden and compare; exit 1 on any difference")
    args = parser.parse_args()
    torch.set_num_threads(1)  # one thread: the same summation order on every machine
    recording = record_all()
    if not args.check:
        write(recording)
        return 0
    problems = check(recording)
    for problem in problems:
        print(problem)
    print(f"record_goldens --check: {len(recording.files)} files recomputed with torch "
          f"{torch.__version__}, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

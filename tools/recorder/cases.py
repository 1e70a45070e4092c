"""Cases: what an exercise recorder declares, and how one case becomes golden files.

A Kind is one C++ case function (e.g. softmax_matrix): its inputs and outputs, the
notebook's computation, the same maths on Tracked values for the error scale, the
reduction length of each output and its mistake families. A Case is a Kind on named inputs.
Recording a case (record_case):
  1. the expected goldens: the notebook's computation in float32, as PyTorch runs it;
  2. a float64 reference: the same function on the inputs cast to float64 (torch's default
     dtype set to float64 for the call), kept in memory for the self-check (selfcheck.py);
  3. the scale of every expected golden (bounds.py), saved as float32, never below |expected|;
  4. the mistakes: each family's wrong result, kept only where it is >= 10 tolerances from
     the answer; one within 1 tolerance of an earlier one is merged into it (its slug goes in
     the earlier one's "also"; where either is named_when_shared, its name and hint join the
     earlier one's); one between 1 and 10 tolerances from an earlier one is dropped with a
     note, as a failing test could not tell the two apart.
"""

from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import numpy as np
import torch

from . import hidden_key, provenance
from .bounds import Tracked
from .mistakes import THROWS, fixed_token_count, loop_slips, placeholders
from .laws import laws_of, law_holds
from .tolerance import allowed as tolerance_allowed, distance, with_magnitudes

FAR = 10.0   # a mistake is kept only this many tolerances from the answer and the others
SAME = 1.0   # two mistakes this close are one answer under two names

RECORDERS = {}  # exercise id -> its recorder, filled by @recorder


def recorder(exercise_id):
    """Registers the decorated function as exercise `exercise_id`'s recorder: it is called
    with an Exercise and adds that exercise's cases."""
    def register(function):
        if exercise_id in RECORDERS:
            raise ValueError(f"two recorders for exercise {exercise_id}")
        RECORDERS[exercise_id] = function
        return function
    return register


@dataclass(frozen=True)
class Kind:
    name: str              # the C++ case function: "softmax_matrix"
    inputs: tuple          # its argument names, in call order
    outputs: tuple         # its output names
    function: Callable     # the notebook's computation: arguments -> result
    scale: Callable        # the same maths on Tracked arguments -> Tracked result (None:
    #                        every output is int64 or bool, compared exactly)
    reduction: Callable    # arguments -> {float output: length of the longest sum behind
    #                        it} (None as for scale)
    mistakes: Callable     # arguments -> [Mistake], the most likely first
    derive: Optional[Callable] = None  # result -> {output: value}; default {outputs[0]: result}
    # The axes of `function`'s result that run over the tokens, as (part, axis, count): what
    # one entry along it is called ("row"), the axis, and the notebook's number of tokens.
    # A loop fixed to that count is a mistake of the kind (mistakes.fixed_token_count).
    tokens: tuple = ()
    laws: tuple = ()  # of laws.Law, listed on each case whose shapes allow them (laws.LAWS
    #                   gives those of the kinds that name none here)

    def outputs_of(self, result):
        return self.derive(result) if self.derive else {self.outputs[0]: result}

    def all_mistakes(self, arguments):
        """Every candidate, in the order that decides which name a merged mistake keeps:
        placeholder answers, the kind's own families, then loop slips (a loop fixed to the
        notebook's number of tokens last)."""
        return (placeholders(self.function, self.inputs) + list(self.mistakes(*arguments))
                + loop_slips(self.function) + fixed_token_count(self.function, self.tokens))


@dataclass
class Case:
    exercise: str          # "01"
    key: str               # "01_dot_scores/odd_shape": its folder in the case set
    kind: Kind
    source: str            # the public notebook cell it reproduces ("ch03.ipynb In [8]")
    seed: Optional[int]    # what drew its data; None for the notebook's own
    inputs: dict           # name -> tensor, in call order
    tolerance: dict = field(default_factory=dict)  # output -> (factor, reason), where needed

    def __post_init__(self):
        for output, (factor, reason) in self.tolerance.items():
            if output not in self.kind.outputs or (factor != 1.0 and not reason):
                raise ValueError(f"{self.key}: a tolerance_factor is for one of "
                                 f"{list(self.kind.outputs)} and, when not 1, needs a reason")

    def arguments(self, convert=lambda tensor: tensor):
        """The call's arguments: floating inputs through `convert`, 0-d integers as ints
        (the C++ functions take them as int / size_t)."""
        return [convert(tensor) if tensor.is_floating_point()
                else int(tensor) if tensor.dim() == 0 else tensor
                for tensor in self.inputs.values()]


class Draw:
    """Where a drawn case's shapes and values come from: in the public set its fixed sizes
    and seed, in a hidden set sizes and values drawn from a seed derived from the set's key."""

    def __init__(self, seed, hidden):
        self.hidden = hidden
        self.generator = None if seed is None else torch.Generator().manual_seed(seed)

    def size(self, public, hidden):
        """`public` in the public set; in a hidden set an integer drawn from the inclusive
        range `hidden` = (low, high)."""
        return self.integer(*hidden) if self.hidden else public

    def integer(self, low, high):
        """An integer drawn from [low, high]."""
        return int(torch.randint(low, high + 1, (), generator=self._generator()))

    def randn(self, *shape):
        return torch.randn(shape, generator=self._generator())

    def uniform(self, low, high, *shape):
        return low + (high - low) * torch.rand(shape, generator=self._generator())

    def _generator(self):
        if self.generator is None:
            raise ValueError("this case draws random values but has no public seed")
        return self.generator


class Exercise:
    """What an exercise recorder is given: adds the exercise's cases to the case set being
    recorded. Notebook cases are public only; drawn cases are in every case set."""

    def __init__(self, exercise_id, folder, key, recording):
        self.id, self.folder = exercise_id, folder
        self.key, self.recording = key, recording  # key: a hidden set's secret; None: public

    @property
    def public(self):
        """Whether this is the public case set (notebook cases and printed checks included)."""
        return self.key is None

    def notebook(self, name, kind, source, tolerance=None, **inputs):
        """A case on the notebook's own data (`inputs` by name; ints become int64).
        `tolerance`: {output: (factor, reason)} for a golden that needs its own factor."""
        if self.public:
            self._record(name, kind, source, None, inputs, tolerance)

    def drawn(self, name, kind, source, make, seed=None, tolerance=None):
        """A case whose inputs are make(draw): in the public set drawn with `seed` (None when
        `make` draws nothing there), in a hidden set with a seed derived from the set's key
        and the case's name (hidden_key.case_seed)."""
        if not self.public:
            seed = hidden_key.case_seed(self.key, f"{self.folder}/{name}")
        draw = Draw(seed, hidden=not self.public)
        self._record(name, kind, source, seed, make(draw), tolerance)

    def _record(self, name, kind, source, seed, inputs, tolerance):
        if sorted(inputs) != sorted(kind.inputs):
            raise ValueError(f"{self.folder}/{name}: inputs {sorted(inputs)}, but {kind.name} "
                             f"takes {list(kind.inputs)}")
        tensors = {input_name: torch.as_tensor(inputs[input_name]) for input_name in kind.inputs}
        record_case(Case(self.id, f"{self.folder}/{name}", kind, source, seed, tensors,
                         tolerance or {}), self.recording)


@contextmanager
def float64_default():
    """torch's default dtype float64 inside the block, so a notebook cell's torch.empty /
    torch.zeros follow its float64 inputs."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


def stored_scale(scale, expected):
    """The scale as saved beside `expected`: float32, rounded up, never below |expected|."""
    wanted = np.maximum(scale.numpy(), np.abs(expected.numpy().astype(np.float64)))
    rounded = np.asarray(wanted, np.float32)
    rounded = np.where(rounded < wanted, np.nextafter(rounded, np.float32(np.inf)), rounded)
    return torch.from_numpy(np.asarray(rounded, np.float32))


@dataclass
class Kept:
    mistake: object
    tensor: torch.Tensor
    also: list = field(default_factory=list)
    ambiguous: bool = False  # another mistake gives this tensor here, under another name
    shared: list = field(default_factory=list)  # those other mistakes, where ambiguous


def named_both(kept, same):
    """`kept`, named and hinted as either itself or `same`, which gives the same result here."""
    return replace(kept, name=f"{kept.name}, or {same.name}", hint=f"{kept.hint} Or: {same.hint}")


def select_mistakes(where, answer, apart, candidates, notes):
    """The candidates [(mistake, wrong tensor)] a failing test can name, in order: each
    >= FAR tolerances from the answer and from every other one (`apart(a, b)` measures).
    Where two give the same tensor (within SAME), the first is kept with the other in its
    `also`: named as both when either is `named_when_shared`, else `ambiguous` (the judge
    names neither on this case; another case of the exercise, where they differ, does)."""
    kept = []
    for mistake, tensor in candidates:
        if apart(tensor, answer) < FAR:
            continue  # on this case the mistake gives (nearly) the right answer
        distances = [(apart(tensor, other.tensor), other) for other in kept]
        same = [other for d, other in distances if d <= SAME]
        near = [(d, other) for d, other in distances if d < FAR]
        if same:
            earlier = same[0]
            earlier.also.append(mistake.slug)
            if mistake.named_when_shared or earlier.mistake.named_when_shared:
                earlier.mistake = named_both(earlier.mistake, mistake)
            elif mistake.name != earlier.mistake.name:
                earlier.ambiguous = True
                earlier.shared.append(mistake)
        elif near:
            d, other = near[0]
            notes.append(f"note: {where}: dropped mistake '{mistake.slug}', {d:.1f} tolerances "
                         f"from '{other.mistake.slug}' (needs {FAR:g} to tell them apart)")
        else:
            kept.append(Kept(mistake, tensor))
    return kept


def record_case(case, recording):
    """Adds the case's inputs, expected goldens, scales and mistakes to `recording`."""
    if case.key in recording.cases:
        raise ValueError(f"case {case.key} recorded twice")
    kind = case.kind
    products_before = provenance.products_run()
    arguments = case.arguments()
    expected = kind.outputs_of(kind.function(*arguments))
    products_before -= provenance.products_run()  # the float64 reference is never written:
    with float64_default():                       # its products decide no file
        references = kind.outputs_of(kind.function(*case.arguments(lambda t: t.double())))
    products_before += provenance.products_run()
    scales = kind.outputs_of(kind.scale(*case.arguments(Tracked.exact))) if kind.scale else {}
    reductions = kind.reduction(*arguments) if kind.reduction else {}
    results = [(mistake, mistake.wrong(*arguments)) for mistake in kind.all_mistakes(arguments)]
    wrong = [(mistake, kind.outputs_of(result)) for mistake, result in results
             if result is not None and result is not THROWS]
    # A result at all rules these out, as a value unlike a recorded mistake rules that out.
    throws = sorted({mistake.name for mistake, result in results if result is THROWS})
    slugs = [mistake.slug for mistake, _ in wrong]
    if len(set(slugs)) != len(slugs):
        raise ValueError(f"{case.key}: a mistake slug appears twice in {slugs}")

    about = {"exercise": case.exercise, "case": case.key, "source": case.source}
    for name, tensor in case.inputs.items():
        recording.add(f"{case.key}/{name}.npy", tensor, "input", **about)
    for output in kind.outputs:
        answer = expected[output]
        if answer.dtype == torch.float32:
            record_float_output(case, output, answer, scales[output], reductions[output], wrong,
                                recording, about)
        elif answer.dtype in (torch.int64, torch.bool):
            record_exact_output(case, output, answer, wrong, recording, about)
        else:
            raise TypeError(f"{case.key}/{output} is {answer.dtype}: a golden is float32, "
                            "int64 or bool")
        if throws:
            recording.entries[f"{case.key}/{output}.npy"]["throws"] = throws
        recording.references[f"{case.key}/{output}.npy"] = references[output].numpy()

    laws = [law for law in laws_of(case.exercise, kind) if law.applies(case.inputs, expected)]
    for law in list(laws):
        answer = expected[law.output]
        if answer.dtype == torch.float32:
            factor = case.tolerance.get(law.output, (1.0, ""))[0]
            scale = stored_scale(scales[law.output].scale, answer).numpy()
            allowed = tolerance_allowed(scale, reductions[law.output], factor)
        else:
            allowed = 0.0
        if not law_holds(case, law, answer, allowed):
            laws.remove(law)
    if (provenance.products_run() > products_before
            or any(provenance.from_blas(tensor) for tensor in case.inputs.values())):
        recording.from_blas.update(path for path, entry in recording.entries.items()
                                   if entry.get("case") == case.key)
    recording.cases[case.key] = {"exercise": case.exercise, "kind": kind.name,
                                 "source": case.source, "seed": case.seed,
                                 "inputs": list(kind.inputs), "expected": list(kind.outputs),
                                 **({"laws": [law.entry() for law in laws]} if laws else {})}


def wrong_answers(wrong, output):
    """[(mistake, its `output`)] of the mistakes that give that output (a mistake of several
    outputs may leave one out, or give None where the C++ call would throw)."""
    return [(m, outputs[output]) for m, outputs in wrong if outputs.get(output) is not None]


def record_mistakes(case, output, kept, recording, about):
    """Adds the kept mistakes of `output`; returns their paths."""
    paths = []
    for each in kept:
        mistake_path = f"{case.key}/mistakes/{output}.{each.mistake.slug}.npy"
        recording.add(mistake_path, each.tensor, "mistake", **about,
                      of=f"{case.key}/{output}.npy", name=each.mistake.name,
                      hint=each.mistake.hint, family=each.mistake.family, also=each.also,
                      **({"ambiguous": True} if each.ambiguous else {}))
        if each.ambiguous:
            recording.coinciding[mistake_path] = (each.mistake, each.shared)
        paths.append(mistake_path)
    return paths


def name_what_never_differs(recording, exercise_id):
    """Names both of two mistakes that give the same tensor on every case of the function
    recording either (05's softmax over the columns and its weights transposed, on symmetric
    scores): no result can tell them apart, so naming neither would leave a student who made
    either without a name on every case. Where one is told apart on some case, that case names
    it and the ambiguous ones stay unnamed."""
    kinds = {key: entry["kind"] for key, entry in recording.cases.items()
             if entry["exercise"] == exercise_id}

    def slug(path):
        return path.rsplit("/mistakes/", 1)[1].split(".", 1)[1].removesuffix(".npy")

    named_somewhere = set()
    for path, entry in recording.entries.items():
        if entry["role"] == "mistake" and entry["case"] in kinds and not entry.get("ambiguous"):
            kind = kinds[entry["case"]]
            named_somewhere.add((kind, slug(path)))
            named_somewhere.update((kind, also) for also in entry["also"])
    for path, (kept, shared) in recording.coinciding.items():
        entry = recording.entries[path]
        kind = kinds.get(entry["case"])
        if kind is None or any((kind, m.slug) in named_somewhere for m in (kept, *shared)):
            continue
        for same in shared:
            kept = named_both(kept, same)
        del entry["ambiguous"]
        entry.update(name=kept.name, hint=kept.hint)


def record_float_output(case, output, answer, scale, n, wrong, recording, about):
    """A float32 golden: its error scale, tolerance and the mistakes far enough from it."""
    path, scale_path = f"{case.key}/{output}.npy", f"{case.key}/{output}.scale.npy"
    factor, reason = case.tolerance.get(output, (1.0, ""))
    scale = stored_scale(scale.scale, answer)

    def apart(a, b):  # a mistake and the answer, or two mistakes
        a, b = a.numpy(), b.numpy()
        return distance(a, b, with_magnitudes(scale.numpy(), a, b), n, factor)

    kept = select_mistakes(path, answer, apart, wrong_answers(wrong, output), recording.notes)
    mistake_paths = record_mistakes(case, output, kept, recording, about)
    recording.add(scale_path, scale, "scale", **about, of=path)
    recording.add(path, answer, "expected", **about, reduction=n, scale=scale_path,
                  tolerance_factor=factor, tolerance_reason=reason, mistakes=mistake_paths)


def record_exact_output(case, output, answer, wrong, recording, about):
    """An int64 or bool golden (a count, a mask), compared exactly: every different wrong
    answer is a mistake; two equal ones are one answer under two names."""
    path = f"{case.key}/{output}.npy"
    if case.tolerance.get(output, (1.0, ""))[0] != 1.0:
        raise ValueError(f"{path}: an exact golden has no tolerance factor")

    def apart(a, b):
        return 0.0 if a.shape == b.shape and torch.equal(a, b) else float("inf")

    # A wrong answer of another dtype (a float placeholder for a bool mask) fails on its type,
    # never on values a mistake could name.
    kept = select_mistakes(path, answer, apart,
                           [(m, tensor) for m, tensor in wrong_answers(wrong, output)
                            if tensor.dtype == answer.dtype], recording.notes)
    mistake_paths = record_mistakes(case, output, kept, recording, about)
    recording.add(path, answer, "expected", **about, reduction=1, tolerance_factor=1.0,
                  tolerance_reason="", mistakes=mistake_paths)

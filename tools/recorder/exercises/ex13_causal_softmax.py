"""Exercise 13, causal_softmax: -inf above the diagonal before softmax (ch03.ipynb In [29] and
In [30]), and the proof that it gives exercise 12's renormalised weights.

Sources cite the public notebook cells: seed 001 §3.5 In [27] = ch03.ipynb In [29]; In [28] =
In [30]; 001 In [29] prints In [29]'s triu mask (the case future_mask_notebook). 001 masks
SelfAttention_v2's scores at seed 42, ch03.ipynb at seed 789: both are notebook cases.
Reproduced at the printed decimals (checked when recorded, see check_printed):
001 In [27] masked row 1 [0.2157, 0.3428, -inf, ...], In [28] row 1
[0.4775, 0.5225, 0, ...]; ch03.ipynb In [29] row 1 [0.4656, 0.1723, -inf, ...], In [30]
row 1 [0.5517, 0.4483, 0, ...]. In [30] equals In [28]: the case kind two_ways records
causal_attention_weights(scores, d_k) minus exercise 12's mask_and_renormalize of
softmax(scores / sqrt(d_k)), zero up to rounding."""

import math

import torch

from .. import causal
from ..bounds import Tracked
from ..cases import Kind, recorder
from ..mistakes import Mistake


def filled(mask_of, value):
    """scores.masked_fill(mask_of(T), value): a mistaken mask or fill value."""
    return lambda scores: scores.masked_fill(mask_of(scores.shape[0]).bool(), value)


MASK_FUTURE = [
    Mistake("filled_zero", "filled the future with 0 instead of -inf",
            "softmax gives a 0 score the weight exp(0) = 1, so the future still counts: fill "
            "with -infinity (-std::numeric_limits<float>::infinity()), whose exp() is 0.",
            filled(causal.future_mask, 0.0)),
    Mistake("filled_large_negative", "filled with a large negative number instead of -inf",
            "a large negative number works inside softmax, but In [29] prints the masked scores "
            "with -inf: use -std::numeric_limits<float>::infinity().",
            filled(causal.future_mask, -1e9)),
    Mistake("diagonal_masked", "masked the diagonal too (triu without diagonal=1)",
            "a token attends to itself: mask only j > i, the entries strictly above the "
            "diagonal.", filled(lambda T: torch.triu(torch.ones(T, T)), -math.inf)),
    Mistake("past_masked", "masked the past instead of the future",
            "row i is query token i; the future is the keys j > i, above the diagonal.",
            filled(lambda T: torch.tril(torch.ones(T, T), diagonal=-1), -math.inf)),
]


def weights_with(masked_of, scaled=True, softmax_dim=-1):
    """softmax(masked_of(scores) / sqrt(d_k)), with the mistakes' variations."""
    def wrong(scores, d_k):
        masked = masked_of(scores)
        return torch.softmax(masked / math.sqrt(d_k) if scaled else masked, dim=softmax_dim)
    return wrong


def masked_after_softmax(scores, d_k):
    return causal.apply_tril_mask(torch.softmax(scores / math.sqrt(d_k), dim=-1))


CAUSAL_WEIGHTS = [
    Mistake("not_scaled", "left out the / sqrt(d_k)",
            "scale the masked scores by 1 / sqrt(d_k) before softmax, as In [30] does: large "
            "dot products would otherwise push softmax towards a one-hot row.",
            weights_with(causal.mask_future, scaled=False)),
    Mistake("divided_by_d_k", "divided by d_k instead of sqrt(d_k)",
            "the scale is the SQUARE ROOT of d_k: keys.shape[-1]**0.5.",
            lambda scores, d_k: torch.softmax(causal.mask_future(scores) / d_k, dim=-1)),
    Mistake("filled_zero", "masked with 0 instead of -inf",
            "exp(0) = 1, so a 0 still gives the future weight: fill with -infinity, whose "
            "exp() is 0.", weights_with(filled(causal.future_mask, 0.0))),
    Mistake("masked_after_softmax", "masked after softmax without renormalising",
            "zeroing weights after softmax leaves rows that no longer sum to 1: put -inf into "
            "the SCORES, then softmax.", masked_after_softmax),
    Mistake("filled_after_softmax", "filled -inf into the weights after softmax",
            "masked_fill belongs to the SCORES, before softmax: exp(-inf) = 0 then gives the "
            "future weight 0 and each row still sums to 1. Filled afterwards, the future shows "
            "-inf and the past keeps weights computed with the future.",
            lambda scores, d_k: causal.mask_future(torch.softmax(scores / math.sqrt(d_k),
                                                                 dim=-1))),
    Mistake("no_mask", "no causal mask (plain scaled softmax)",
            "mask the future first: scores above the diagonal (j > i) become -inf.",
            weights_with(lambda scores: scores)),
    Mistake("diagonal_masked", "masked the diagonal too",
            "mask only j > i (triu with diagonal=1): with the diagonal masked, row 0 has no "
            "score left and softmax gives nan.",
            weights_with(filled(lambda T: torch.triu(torch.ones(T, T)), -math.inf))),
    Mistake("column_softmax", "softmax over the columns (dim=0)",
            "each ROW of weights sums to 1: softmax along dim -1.",
            weights_with(causal.mask_future, softmax_dim=0)),
]


def minus_long_way(mistake):
    """A weights mistake as the two_ways case sees it: minus the renormalised weights."""
    def wrong(scores, d_k):
        result = mistake.wrong(scores, d_k)
        return None if result is None else result - causal.renormalized_the_long_way(scores, d_k)
    return Mistake(mistake.slug, mistake.name, mistake.hint, wrong, family=mistake.family)


def mask_future_scale(scores):
    """The masked scores are copies: exact, and -inf where masked (the scale is |E|)."""
    return Tracked.exact(causal.mask_future(scores.value))


def two_ways_scale(scores, d_k):
    by_infinity = causal.causal_softmax_scale(scores, d_k)
    by_renormalising = causal.renormalized_scale((scores / math.sqrt(d_k)).softmax(-1))
    return by_infinity - by_renormalising


FUTURE_MASKS = [
    Mistake("tril", "built the tril mask (1 on and below the diagonal)",
            "this mask marks what to HIDE: 1 above the diagonal (j > i), the future; tril's 1s "
            "mark what to keep (exercise 12).", lambda T: torch.tril(torch.ones(T, T))),
    Mistake("diagonal_included", "put 1s on the diagonal too (triu without diagonal=1)",
            "a token may see itself: the mask is 1 only strictly above the diagonal, j > i.",
            lambda T: torch.triu(torch.ones(T, T))),
    Mistake("past_marked", "marked the past (j < i) instead of the future",
            "row i is query token i; its future is the keys j > i, above the diagonal.",
            lambda T: torch.tril(torch.ones(T, T), diagonal=-1)),
    Mistake("all_ones", "all ones (everything hidden)",
            "only the entries above the diagonal are 1; on and below it the mask is 0.",
            lambda T: torch.ones(T, T)),
]

FUTURE_MASK = Kind(
    name="future_mask", inputs=("context_length",), outputs=("mask",),
    function=causal.future_mask,
    scale=lambda T: Tracked.exact(causal.future_mask(T)),
    reduction=lambda T: {"mask": 1},
    mistakes=lambda T: FUTURE_MASKS,
    tokens=(("row", 0, 6), ("column", 1, 6)),
)

MASK_FUTURE_KIND = Kind(
    name="mask_future", inputs=("scores",), outputs=("masked",),
    function=causal.mask_future,
    scale=mask_future_scale,
    reduction=lambda scores: {"masked": 1},
    mistakes=lambda scores: MASK_FUTURE,
    tokens=(("row", 0, 6), ("column", 1, 6)),
)

CAUSAL_ATTENTION_WEIGHTS = Kind(
    name="causal_attention_weights", inputs=("scores", "d_k"), outputs=("weights",),
    function=causal.causal_attention_weights,
    scale=causal.causal_softmax_scale,
    reduction=lambda scores, d_k: {"weights": scores.shape[0]},
    mistakes=lambda scores, d_k: CAUSAL_WEIGHTS,
    tokens=(("row", 0, 6), ("column", 1, 6)),
)

TWO_WAYS = Kind(
    name="two_ways", inputs=("scores", "d_k"), outputs=("difference",),
    function=causal.two_ways_difference,
    scale=two_ways_scale,
    reduction=lambda scores, d_k: {"difference": scores.shape[0]},
    mistakes=lambda scores, d_k: [minus_long_way(m) for m in CAUSAL_WEIGHTS],
    tokens=(("row", 0, 6), ("column", 1, 6)),
)


def scores_and_d_k(tokens, d_k, spread=2.0):
    """make(draw): randn(T, T) * spread scores and d_k; sizes are (public size, hidden
    range)."""
    def make(draw):
        T = draw.size(*tokens)
        return {"scores": draw.randn(T, T) * spread, "d_k": draw.size(*d_k)}
    return make


def check_printed():
    """The notebooks' printed masked scores and weights, at their decimals."""
    printed = {42: ([0.2157, 0.3428], [0.4775, 0.5225]),
               789: ([0.4656, 0.1723], [0.5517, 0.4483])}
    for seed, (masked_row, weights_row) in printed.items():
        scores, d_k = causal.self_attention_v2_scores(seed)
        masked, weights = causal.mask_future(scores), causal.causal_attention_weights(scores, d_k)
        if not (torch.allclose(masked[1, :2], torch.tensor(masked_row), atol=5e-5)
                and torch.all(masked[1, 2:] == -math.inf)
                and torch.allclose(weights[1, :2], torch.tensor(weights_row), atol=5e-5)):
            raise AssertionError(f"In [29] / In [30] at seed {seed}: {masked}, {weights}")


@recorder("13")
def record(exercise):
    check_printed()
    mask = "ch03.ipynb In [29]: mask = torch.triu(torch.ones(T, T), diagonal=1)"
    exercise.notebook("future_mask_notebook", FUTURE_MASK, mask + " (6 tokens)",
                      context_length=6)
    exercise.drawn("future_mask_nine", FUTURE_MASK, mask + " for another context length",
                   lambda draw: {"context_length": draw.size(9, (2, 16))})
    for prefix, kind, cell in (("mask_", MASK_FUTURE_KIND, "In [29]"),
                               ("", CAUSAL_ATTENTION_WEIGHTS, "In [29] and In [30]"),
                               ("two_ways_", TWO_WAYS, "In [30] minus In [28]")):
        for seed, tag in ((789, "notebook"), (42, "notebook_seed42")):
            scores, d_k = causal.self_attention_v2_scores(seed)
            arguments = {"scores": scores} if kind is MASK_FUTURE_KIND else {
                "scores": scores, "d_k": d_k}
            exercise.notebook(f"{prefix}{tag}", kind,
                              f"ch03.ipynb {cell} on In [25]'s scores (SelfAttention_v2 at "
                              f"seed {seed})", **arguments)
        seeded = f"ch03.ipynb {cell} on seeded randn scores"
        base = {"mask_": 1301, "": 1311, "two_ways_": 1321}[prefix]
        make = scores_and_d_k((7, (2, 12)), (4, (1, 16)))
        if kind is MASK_FUTURE_KIND:
            for name, sizes, seed in (("odd_shape", (7, (2, 12)), base),
                                      ("notebook_shape", (6, (2, 12)), base + 3),
                                      ("nine_tokens", (9, (8, 16)), base + 4)):
                exercise.drawn(f"{prefix}{name}", kind, seeded + (
                    "" if name == "odd_shape" else f" ({name.replace('_', ' ')})"),
                    (lambda sized: lambda draw: {"scores": sized(draw)["scores"]})(
                        scores_and_d_k(sizes, (4, (1, 16)))), seed=seed)
            continue
        exercise.drawn(f"{prefix}odd_shape", kind, seeded + ", d_k = 4", make, seed=base)
        exercise.drawn(f"{prefix}large_scores", kind, seeded + " of size ~30, d_k = 9",
                       scores_and_d_k((5, (2, 12)), (9, (1, 64)), spread=30.0), seed=base + 1)
        exercise.drawn(f"{prefix}one_token", kind, seeded + ", one token",
                       scores_and_d_k((1, (1, 1)), (3, (1, 16))), seed=base + 2)
        # The notebook's shape with other values (a table of its answers keyed on the shape
        # fails), and nine tokens (a loop fixed to the notebook's 6 leaves three rows 0).
        exercise.drawn(f"{prefix}notebook_shape", kind, seeded + " (6, 6), d_k = 2",
                       scores_and_d_k((6, (2, 12)), (2, (1, 16))), seed=base + 3)
        exercise.drawn(f"{prefix}nine_tokens", kind, seeded + ", nine tokens, d_k = 4",
                       scores_and_d_k((9, (8, 16)), (4, (1, 16))), seed=base + 4)

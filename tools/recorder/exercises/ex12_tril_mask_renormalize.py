"""Exercise 12, tril_mask_renormalize: the causal mask made with tril (ch03.ipynb In [26]),
applied to the attention weights (In [27]) and the rows renormalised (In [28]).

Sources cite the public notebook cells: seed 001 §3.5 In [24] = ch03.ipynb In [26]; In [25]
= In [27]; In [26] = In [28]. 001 masks SelfAttention_v2's weights at seed 42, ch03.ipynb at
seed 789: both are notebook cases. Reproduced at the printed decimals (checked when recorded,
see check_printed): 001 In [26] masked_simple_norm rows 1-2 [0.4775, 0.5225],
[0.3146, 0.3450, 0.3405]; ch03.ipynb In [28] [0.5517, 0.4483], [0.3800, 0.3097, 0.3103]."""

import torch

from .. import causal
from ..bounds import Tracked
from ..cases import Kind, recorder
from ..mistakes import Mistake

TRIU_NAME = "mask kept the upper triangle (triu instead of tril)"
TRIU_HINT = ("row i is query token i: keep the keys j <= i, the lower triangle and the "
             "diagonal (torch.tril, xt::tril), and zero the ones after it; triu keeps the "
             "future instead.")


def triu(mistaken):
    """The triu slip in one of the kinds (one family): `mistaken` computes it."""
    return Mistake("triu", TRIU_NAME, TRIU_HINT, mistaken, family="triu_mask")


MASKS = [
    # For a mask of ones triu is tril transposed: the loop slip `transposed` joins it.
    triu(lambda T: torch.triu(torch.ones(T, T))),
    Mistake("strict_lower", "left the diagonal out (j < i instead of j <= i)",
            "a token may attend to itself: keep row i's entries j <= i, the diagonal included "
            "(torch.tril keeps it).", lambda T: torch.tril(torch.ones(T, T), diagonal=-1)),
    Mistake("future_ones", "put the 1s above the diagonal (the -inf mask's pattern)",
            "tril keeps the past: 1 where j <= i, 0 above the diagonal. 1s above it mark what "
            "to HIDE, the mask of the -inf way (exercise 13).",
            lambda T: torch.triu(torch.ones(T, T), diagonal=1)),
    Mistake("all_ones", "no zeros at all (nothing masked)",
            "entries above the diagonal (j > i, the future) must be 0.",
            lambda T: torch.ones(T, T)),
    Mistake("diagonal_only", "kept only the diagonal",
            "row i keeps every j <= i: all earlier tokens and itself, not only itself.",
            lambda T: torch.eye(T)),
]


def masked_with(mask_of):
    """weights * mask_of(T): a mistaken mask applied as In [27] applies tril."""
    return lambda weights: weights * mask_of(weights.shape[0])


APPLY = [
    triu(masked_with(lambda T: torch.triu(torch.ones(T, T)))),
    Mistake("diagonal_zeroed", "zeroed the diagonal too (kept j < i only)",
            "a token attends to itself: keep j <= i.",
            masked_with(lambda T: torch.tril(torch.ones(T, T), diagonal=-1))),
    Mistake("already_renormalized", "renormalised the rows already",
            "this step only multiplies by the tril mask (In [27]); mask_and_renormalize then "
            "divides by the row sums (In [28]).", causal.mask_and_renormalize),
]


def renormalized_with(divide):
    """masked_simple divided by divide(masked_simple)."""
    return lambda weights: (lambda masked: masked / divide(masked))(
        causal.apply_tril_mask(weights))


def no_keepdims(weights):
    """The row sums without keep_dims, shape (T,): they broadcast along the rows, so entry
    [i, j] is divided by the sum of row j."""
    masked = causal.apply_tril_mask(weights)
    return masked / masked.sum(dim=-1)


RENORMALIZE = [
    Mistake("not_renormalized", "masked after softmax without renormalising",
            "after the mask a row no longer sums to 1 (In [27]): divide every row by its own sum "
            "(In [28]).", causal.apply_tril_mask),
    Mistake("column_sums", "divided by the column sums",
            "each ROW must sum to 1 again: sum along dim -1 (axis 1), keeping it with "
            "xt::keep_dims so the sums broadcast back.",
            renormalized_with(lambda masked: masked.sum(dim=0, keepdim=True))),
    Mistake("total_sum", "divided by the sum of the whole matrix",
            "each row is its own distribution: divide row i by the sum of row i.",
            renormalized_with(lambda masked: masked.sum())),
    Mistake("no_keepdims", "row sums without keep_dims (they broadcast the wrong way)",
            "reduce with xt::keep_dims: sums of shape (T,) broadcast against the COLUMNS, so "
            "entry [i, j] is divided by the sum of row j.", no_keepdims),
    Mistake("softmax_again", "applied softmax to the masked weights",
            "softmax turns the zeros back into exp(0) = 1, so the future gets weight again: "
            "divide by the row sums instead.",
            lambda weights: torch.softmax(causal.apply_tril_mask(weights), dim=-1)),
    Mistake("renormalized_before_masking", "renormalised first, then masked",
            "the rows of softmax weights already sum to 1, so dividing before the mask does "
            "nothing: mask first, then divide by the new row sums.",
            lambda weights: causal.apply_tril_mask(weights / weights.sum(dim=-1, keepdim=True))),
    triu(lambda weights: (lambda m: m / m.sum(dim=-1, keepdim=True))(
        weights * torch.triu(torch.ones(weights.shape)))),
    Mistake("abs_row_sums", "divided by the row sums of |x|",
            "divide every row by its plain sum, signs and all: the sum of |x| equals it only "
            "while the row has no negative entry.",
            renormalized_with(lambda masked: masked.abs().sum(dim=-1, keepdim=True))),
]

TRIL_MASK = Kind(
    name="tril_mask", inputs=("context_length",), outputs=("mask",),
    function=causal.tril_mask,
    scale=lambda T: Tracked.exact(torch.tril(torch.ones(T, T))),
    reduction=lambda T: {"mask": 1},
    mistakes=lambda T: MASKS,
    tokens=(("row", 0, 6), ("column", 1, 6)),
)

APPLY_TRIL_MASK = Kind(
    name="apply_tril_mask", inputs=("weights",), outputs=("masked",),
    function=causal.apply_tril_mask,
    scale=lambda weights: weights * torch.tril(torch.ones(weights.shape, dtype=torch.float64)),
    reduction=lambda weights: {"masked": 1},
    mistakes=lambda weights: APPLY,
    tokens=(("row", 0, 6), ("column", 1, 6)),
)

MASK_AND_RENORMALIZE = Kind(
    name="mask_and_renormalize", inputs=("weights",), outputs=("normalized",),
    function=causal.mask_and_renormalize,
    scale=causal.renormalized_scale,
    reduction=lambda weights: {"normalized": weights.shape[0]},
    mistakes=lambda weights: RENORMALIZE,
    tokens=(("row", 0, 6), ("column", 1, 6)),
)


def softmax_rows(tokens, spread=2.0):
    """make(draw): softmax(randn(T, T) * spread, dim=-1), rows that sum to 1, as the
    weights of In [25]; `tokens` is (public size, hidden range)."""
    def make(draw):
        T = draw.size(*tokens)
        return {"weights": torch.softmax(draw.randn(T, T) * spread, dim=-1)}
    return make


def positive_rows(tokens):
    """make(draw): weights drawn from [0.1, 2]: rows that do not sum to 1, which the
    renormalisation must not assume."""
    def make(draw):
        T = draw.size(*tokens)
        return {"weights": draw.uniform(0.1, 2.0, T, T)}
    return make


def mixed_rows(tokens):
    """make(draw): weights of both signs drawn from [-1, 1], with each diagonal entry set to
    0.5 + the sum of |x| before it in its row, so that every masked row sums to at least 0.5
    (its sum is no near-zero divisor)."""
    def make(draw):
        T = draw.size(*tokens)
        weights = draw.uniform(-1.0, 1.0, T, T)
        lower = torch.tril(weights, diagonal=-1).abs().sum(dim=-1)
        weights[torch.arange(T), torch.arange(T)] = 0.5 + lower
        return {"weights": weights}
    return make


def check_printed():
    """The notebooks' printed masked_simple_norm, at their decimals."""
    printed = {42: [[1.0, 0, 0], [0.4775, 0.5225, 0], [0.3146, 0.3450, 0.3405]],
               789: [[1.0, 0, 0], [0.5517, 0.4483, 0], [0.3800, 0.3097, 0.3103]]}
    for seed, rows in printed.items():
        got = causal.mask_and_renormalize(causal.self_attention_v2_weights(seed))[:3, :3]
        if not torch.allclose(got, torch.tensor(rows), atol=5e-5):
            raise AssertionError(f"masked_simple_norm at seed {seed}: {got}")


@recorder("12")
def record(exercise):
    check_printed()
    exercise.notebook("mask_notebook", TRIL_MASK, "ch03.ipynb In [26] (6 tokens)",
                      context_length=6)
    mask = "ch03.ipynb In [26] for another context length"
    exercise.drawn("mask_nine", TRIL_MASK, mask,
                   lambda draw: {"context_length": draw.size(9, (2, 16))})
    exercise.drawn("mask_one_token", TRIL_MASK, mask, lambda draw: {"context_length": 1})

    for prefix, kind, cell in (("apply_", APPLY_TRIL_MASK, "In [27]"),
                               ("", MASK_AND_RENORMALIZE, "In [27] and In [28]")):
        for seed, tag in ((789, "notebook"), (42, "notebook_seed42")):
            exercise.notebook(f"{prefix}{tag}", kind,
                              f"ch03.ipynb {cell} on In [25]'s weights (SelfAttention_v2 at "
                              f"seed {seed})", weights=causal.self_attention_v2_weights(seed))
        seeded = f"ch03.ipynb {cell} on seeded softmax(randn) weights"
        exercise.drawn(f"{prefix}odd_shape", kind, seeded, softmax_rows((7, (2, 12))),
                       seed=1201 if prefix else 1203)
        exercise.drawn(f"{prefix}unnormalized_rows", kind,
                       f"ch03.ipynb {cell} on seeded weights in [0.1, 2]",
                       positive_rows((5, (2, 12))), seed=1202 if prefix else 1204)
        # The notebook's shape with other values (a table of its answers keyed on the shape
        # fails); nine tokens of both signs (the notebook's weights are all positive, where
        # dividing by the sum of |x| goes unseen; a loop fixed to the notebook's 6 tokens
        # leaves three rows 0).
        exercise.drawn(f"{prefix}notebook_shape", kind, seeded + ", the notebook's shape (6, 6)",
                       softmax_rows((6, (2, 12))), seed=1205 if prefix else 1207)
        exercise.drawn(f"{prefix}mixed_signs", kind,
                       f"ch03.ipynb {cell} on nine seeded rows of both signs",
                       mixed_rows((9, (8, 16))), seed=1206 if prefix else 1208)

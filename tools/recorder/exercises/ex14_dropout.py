"""Exercise 14, dropout: inverted dropout with an explicit keep mask (ch03.ipynb In [31] and
In [32]): kept values times 1 / (1 - p), dropped ones 0, the identity at p = 0 and in eval
mode.

Sources cite the public notebook cells: seed 001 §3.5 In [30] = ch03.ipynb In [31] (dropout
of a 6x6 matrix of ones); In [31] = In [32] (dropout of the causal weights). The patterns the
notebooks print are NOT reproduced: PyTorch draws a different pattern for a seed on other
builds (pytorch/pytorch#121595), and no case reseeds it. Each case carries its keep mask as
an input instead, drawn here from the case's own generator; causal.check_dropout_formula()
holds the formula to PyTorch's nn.Dropout on whatever pattern it draws."""

import torch

from .. import causal
from ..cases import Kind, recorder
from ..mistakes import Mistake


def trained(wrong):
    """A training-mode mistake: in eval mode the right answer (x) is kept, so the mistake is
    told apart only on training cases."""
    return lambda x, keep, p, training: wrong(x, keep, p) if training else None


DROPOUT = [
    Mistake("not_scaled", "dropped but never scaled the kept values",
            "inverted dropout divides what it keeps by (1 - p), so the expected value of every "
            "entry stays x: 2x for p = 0.5.", trained(lambda x, keep, p: x * keep)),
    Mistake("scaled_down", "multiplied the kept values by (1 - p) instead of dividing",
            "the kept values are scaled UP, by 1 / (1 - p), to make up for the dropped ones.",
            trained(lambda x, keep, p: x * keep * (1 - p))),
    Mistake("divided_by_p", "divided by p instead of (1 - p)",
            "p is the probability to DROP; the kept fraction is 1 - p, and the kept values are "
            "divided by it (the two agree only at p = 0.5).",
            trained(lambda x, keep, p: x * keep / p if float(p) > 0 else None)),
    Mistake("mask_inverted", "dropped the kept entries and kept the dropped ones",
            "keep[i, j] = 1 means KEEP x[i, j] (scaled by 1 / (1 - p)); 0 means drop it.",
            trained(lambda x, keep, p: causal.dropout(x, 1 - keep, p, True))),
    Mistake("scaled_only", "scaled every entry but dropped none",
            "multiply by the keep mask too: the entries where keep is 0 become 0.",
            trained(lambda x, keep, p: x / (1 - p) if float(p) < 1 else None)),
    Mistake("dropped_in_eval", "applied dropout in eval mode",
            "dropout works only while training: with training = false it returns x unchanged "
            "(model.eval() switches it off).",
            lambda x, keep, p, training: None if training else causal.dropout(x, keep, p, True)),
]

DROPOUT_KIND = Kind(
    name="dropout", inputs=("x", "keep", "p", "training"), outputs=("dropped",),
    function=causal.dropout,
    scale=lambda x, keep, p, training: (x if not training else x * 0 if float(p.value) == 1.0
                                        else x * (keep / (1 - p))),
    reduction=lambda x, keep, p, training: {"dropped": 1},
    mistakes=lambda x, keep, p, training: DROPOUT,
    tokens=(("row", 0, 6), ("column", 1, 6)),  # the notebook drops from 6 x 6 matrices
)


def keep_mask(draw, shape, p):
    """A keep mask as nn.Dropout(p) draws one: 1 with probability 1 - p, else 0."""
    return (draw.uniform(0.0, 1.0, *shape) >= p).to(torch.float32)


def case(x_of, p, training=1):
    """make(draw): x = x_of(draw), its keep mask drawn for p, p and training (1 or 0)."""
    def make(draw):
        x = x_of(draw)
        return {"x": x, "keep": keep_mask(draw, x.shape, p), "p": torch.tensor(p),
                "training": training}
    return make


def randn(rows, columns):
    """x_of(draw): randn (R, C); sizes are (public size, hidden range)."""
    return lambda draw: draw.randn(draw.size(*rows), draw.size(*columns))


@recorder("14")
def record(exercise):
    causal.check_dropout_formula()
    ones = "ch03.ipynb In [31] (nn.Dropout(0.5) on a 6x6 matrix of ones) with a recorded mask"
    exercise.drawn("notebook_ones", DROPOUT_KIND, ones,
                   case(lambda draw: torch.ones(6, 6), 0.5), seed=1401)
    weights = causal.causal_attention_weights(*causal.self_attention_v2_scores(789))
    exercise.drawn("notebook_weights", DROPOUT_KIND,
                   "ch03.ipynb In [32] (nn.Dropout(0.5) on In [30]'s causal weights) with a "
                   "recorded mask", case(lambda draw: weights if not draw.hidden else
                                         torch.softmax(draw.randn(6, 6), dim=-1), 0.5),
                   seed=1402)
    seeded = "ch03.ipynb In [32]'s dropout of seeded randn values with a recorded mask"
    exercise.drawn("odd_shape_p02", DROPOUT_KIND, seeded + ", p = 0.2",
                   case(randn((5, (1, 12)), (7, (1, 12))), 0.2), seed=1403)
    exercise.drawn("p_zero", DROPOUT_KIND, seeded + ", p = 0: the identity",
                   case(randn((5, (1, 12)), (7, (1, 12))), 0.0), seed=1404)
    exercise.drawn("eval_mode", DROPOUT_KIND, seeded + ", p = 0.5 in eval mode: the identity",
                   case(randn((5, (1, 12)), (7, (1, 12))), 0.5, training=0), seed=1405)
    exercise.drawn("p_one", DROPOUT_KIND, seeded + ", p = 1: everything dropped",
                   case(randn((4, (1, 12)), (3, (1, 12))), 1.0), seed=1406)
    # The notebook's shape with other values (a table of its answers keyed on the shape
    # fails), and 9 x 8 (a loop fixed to the notebook's 6 leaves rows and columns 0).
    exercise.drawn("notebook_shape", DROPOUT_KIND, seeded + ", p = 0.5, the notebook's (6, 6)",
                   case(randn((6, (1, 12)), (6, (1, 12))), 0.5), seed=1407)
    exercise.drawn("nine_by_eight", DROPOUT_KIND, seeded + ", p = 0.2, 9 x 8",
                   case(randn((9, (8, 16)), (8, (8, 16))), 0.2), seed=1408)

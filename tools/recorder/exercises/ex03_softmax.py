"""Exercise 03, softmax: naive, max-subtracted, along rows or columns (ch03.ipynb In [6],
In [7] and In [11]; 12_1_Self_Attention.ipynb softmax_cols).

Sources cite the public notebook cells: seed 003 Exercise 3 In [19] (the naive softmax) =
ch03.ipynb In [6] (softmax_naive); seed 001 §3.3.1 In [4] (torch.softmax) = In [7]; seed
001 §3.3.2 In [9] (row softmax) = In [11]; seed 003 In [28] (softmax_cols) = udlbook's
Notebooks/Chap12/12_1_Self_Attention.ipynb softmax_cols cell."""

import torch

from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import softmax_families
from .ex02_normalize_by_sum import weights_and_sum

SOFTMAX_NAIVE = Kind(
    name="softmax_naive", inputs=("x",), outputs=("weights",),
    function=notebooks.softmax,
    scale=lambda x: x.exp() / x.exp().sum(),
    reduction=lambda x: {"weights": x.shape[0]},
    mistakes=lambda x: softmax_families(0, 1, expected_naive=True),
    tokens=(("weight", 0, 6),),
)

SOFTMAX = Kind(
    name="softmax", inputs=("x",), outputs=("weights", "weights_sum"),
    function=lambda x: torch.softmax(x, dim=0),
    scale=lambda x: x.softmax(0),
    reduction=lambda x: dict.fromkeys(("weights", "weights_sum"), x.shape[0]),
    mistakes=lambda x: softmax_families(0, 1),
    derive=weights_and_sum,
    tokens=(("weight", 0, 6),),
)

SOFTMAX_MATRIX = Kind(
    name="softmax_matrix", inputs=("scores", "dim"), outputs=("weights",),
    function=lambda scores, dim: torch.softmax(scores, dim=dim),
    scale=lambda scores, dim: scores.softmax(dim),
    reduction=lambda scores, dim: {"weights": scores.shape[dim]},
    mistakes=lambda scores, dim: softmax_families(dim, 2),
    tokens=(("row", 0, 6), ("column", 1, 6)),
)


def logits(length, spread):
    """make(draw): a vector of randn * spread; `length` is (public size, hidden range)."""
    return lambda draw: {"x": draw.randn(draw.size(*length)) * spread}


def large_logits(draw):
    """[1000, 1001] in the public set: exp() overflows float32 (and float64) to inf. A hidden
    set draws 2 to 12 logits near an offset in [800, 5000], so exp() overflows in both."""
    if not draw.hidden:
        return {"x": torch.tensor([1000.0, 1001.0])}
    return {"x": draw.uniform(800.0, 5000.0) + draw.randn(draw.integer(2, 12)) * 3}


def spread_logits(draw):
    """Logits spread over [-60, 60]: exp(x - min) overflows, exp(x - max) cannot."""
    return {"x": draw.uniform(-60.0, 60.0, draw.size(9, (2, 12)))}


def matrix(rows, columns, dim, spread=4.0):
    """make(draw): a (rows, columns) randn * spread matrix and `dim`; sizes are (public
    size, hidden range)."""
    return lambda draw: {"scores": draw.randn(draw.size(*rows), draw.size(*columns)) * spread,
                         "dim": dim}


def notebook_in_public(dim):
    """make(draw): the notebook's scores (ch03.ipynb In [10]) in the public set, a drawn matrix in a
    hidden one, with `dim`."""
    def make(draw):
        if draw.hidden:
            return {"scores": draw.randn(draw.integer(2, 12), draw.integer(2, 12)) * 4, "dim": dim}
        inputs = notebooks.journey_inputs()
        return {"scores": inputs @ inputs.T, "dim": dim}
    return make


def large_rows(draw):
    """[[1000, 1001], [0, 1]] in the public set; a hidden set draws R x C randn * 3 with
    row 0 moved to an offset in [800, 5000]."""
    if not draw.hidden:
        return {"scores": torch.tensor([[1000.0, 1001.0], [0.0, 1.0]]), "dim": -1}
    scores = draw.randn(draw.integer(2, 6), draw.integer(2, 8)) * 3
    scores[0] += draw.uniform(800.0, 5000.0)
    return {"scores": scores, "dim": -1}


@recorder("03")
def record(exercise):
    inputs = notebooks.journey_inputs()
    scores_2 = notebooks.attention_scores_for(inputs, inputs[1])
    naive = "ch03.ipynb In [6] (softmax_naive)"
    exercise.notebook("naive_notebook", SOFTMAX_NAIVE, naive + " of In [3]'s scores",
                      x=scores_2)
    exercise.drawn("naive_large_logits", SOFTMAX_NAIVE, naive + " overflowing: nan",
                   large_logits)
    exercise.drawn("naive_odd_length", SOFTMAX_NAIVE, naive + " of seeded randn * 3",
                   logits((7, (2, 12)), 3.0), seed=301)
    # Every notebook shape again with other values (a table of the notebook's answers keyed
    # on the shape fails), and nine logits (a loop fixed to the notebook's 6 leaves three 0).
    exercise.drawn("naive_notebook_shape", SOFTMAX_NAIVE,
                   naive + " of seeded randn * 3, the notebook's length 6",
                   logits((6, (2, 12)), 3.0), seed=308)
    exercise.drawn("naive_nine_logits", SOFTMAX_NAIVE, naive + " of nine seeded randn * 3",
                   logits((9, (8, 16)), 3.0), seed=309)

    stable = "ch03.ipynb In [7] (torch.softmax)"
    exercise.notebook("notebook_journey", SOFTMAX, stable, x=scores_2)
    exercise.drawn("large_logits", SOFTMAX, stable + " of logits whose exp() overflows",
                   large_logits)
    exercise.drawn("odd_length", SOFTMAX, stable + " of seeded randn * 3",
                   logits((7, (2, 12)), 3.0), seed=302)
    exercise.drawn("one_logit", SOFTMAX, stable + " of one seeded logit",
                   logits((1, (1, 1)), 3.0), seed=303)
    exercise.drawn("spread_logits", SOFTMAX, stable + " of seeded logits in [-60, 60]",
                   spread_logits, seed=304)
    exercise.drawn("notebook_shape", SOFTMAX, stable + " of seeded randn * 3, length 6",
                   logits((6, (2, 12)), 3.0), seed=310)

    rows = "ch03.ipynb In [11] (torch.softmax of the scores along dim)"
    columns = "12_1_Self_Attention.ipynb softmax_cols as torch.softmax(scores, dim)"
    exercise.notebook("rows_notebook", SOFTMAX_MATRIX, rows, scores=inputs @ inputs.T, dim=-1)
    exercise.drawn("rows_dim1", SOFTMAX_MATRIX, rows, notebook_in_public(1))
    exercise.notebook("cols_notebook", SOFTMAX_MATRIX, columns, scores=inputs @ inputs.T, dim=0)
    exercise.drawn("cols_dim_minus2", SOFTMAX_MATRIX, columns, notebook_in_public(-2))
    exercise.drawn("rows_large", SOFTMAX_MATRIX, rows + ", logits whose exp() overflows",
                   large_rows)
    exercise.drawn("odd_rows", SOFTMAX_MATRIX, rows + ", seeded randn * 4",
                   matrix((5, (2, 12)), (7, (2, 12)), -1), seed=305)
    exercise.drawn("odd_cols", SOFTMAX_MATRIX, columns + ", seeded randn * 4",
                   matrix((5, (2, 12)), (7, (2, 12)), 0), seed=306)
    exercise.drawn("one_row", SOFTMAX_MATRIX, rows + ", one seeded row",
                   matrix((1, (1, 1)), (5, (2, 12)), -1), seed=307)
    exercise.drawn("rows_notebook_shape", SOFTMAX_MATRIX, rows + ", seeded randn * 4 (6, 6)",
                   matrix((6, (2, 12)), (6, (2, 12)), -1), seed=311)
    exercise.drawn("cols_notebook_shape", SOFTMAX_MATRIX,
                   columns + ", seeded randn * 4 (6, 6)",
                   matrix((6, (2, 12)), (6, (2, 12)), 0), seed=312)
    exercise.drawn("rows_nine_by_eight", SOFTMAX_MATRIX, rows + ", seeded randn * 4 (9, 8)",
                   matrix((9, (8, 16)), (8, (8, 16)), -1), seed=313)

"""Exercise 02, normalize_by_sum: the naive weights, scores / sum (ch03.ipynb In [5]).

Sources cite the public notebook cell: seed 001 §3.3.1 In [3] = ch03.ipynb In [5]."""

import torch

from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import INT_TOTAL, Mistake


def weights_and_sum(weights):
    """The outputs of a kind whose result are weights: the weights and their sum (In [5])."""
    return {"weights": weights, "weights_sum": weights.sum()}


SUM_NORMALISATION = [
    Mistake("by_max", "divided by the largest score",
            "weights must add up to 1, so divide by the SUM of the scores, not the max.",
            lambda scores: scores / scores.max()),
    Mistake("by_count", "divided by the number of scores",
            "dividing by T gives an average; divide by the sum of the scores instead.",
            lambda scores: scores / scores.shape[0]),
    Mistake("by_mean", "divided by the mean of the scores",
            "the mean is the sum / T, so this is T times too large: divide by the sum.",
            lambda scores: scores / scores.mean()),
    Mistake("by_norm", "divided by the L2 norm",
            "weights must add up to 1: divide by the plain sum, not sqrt(sum of squares).",
            lambda scores: scores / scores.norm()),
    Mistake("by_abs_sum", "divided by the sum of |x|",
            "divide by the plain sum of the scores, signs and all: sum(|x|) equals it only "
            "while every score is positive.", lambda scores: scores / scores.abs().sum()),
    Mistake("times_sum", "multiplied by the sum instead of dividing",
            "weights[i] = scores[i] / total: divide by the sum.",
            lambda scores: scores * scores.sum()),
    Mistake("sum_over_score", "divided the sum by each score (upside down)",
            "weights[i] = scores[i] / total, not total / scores[i].",
            lambda scores: scores.sum() / scores),
    INT_TOTAL,
    Mistake("running_sum", "divided by the sum so far, not the total",
            "finish the sum over all scores before dividing any of them (two loops).",
            lambda scores: scores / scores.cumsum(dim=0)),
    Mistake("min_max", "min-max scaled the scores",
            "(x - min) / (max - min) maps to [0, 1] but does not sum to 1: divide by the sum.",
            lambda scores: (scores - scores.min()) / (scores.max() - scores.min())),
    Mistake("softmax", "applied exp() first: that is softmax",
            "softmax is exercise 03; here divide the raw scores by their sum.",
            lambda scores: torch.softmax(scores, dim=0)),
]

NORMALIZE_BY_SUM = Kind(
    name="normalize_by_sum", inputs=("scores",), outputs=("weights", "weights_sum"),
    function=notebooks.normalize_by_sum,
    scale=lambda scores: scores / scores.sum(),
    reduction=lambda scores: dict.fromkeys(("weights", "weights_sum"), scores.shape[0]),
    mistakes=lambda scores: SUM_NORMALISATION,
    derive=weights_and_sum,
    tokens=(("weight", 0, 6),),
)


def positive_scores(length):
    """make(draw): scores drawn from [0.1, 2]; `length` is (public size, hidden range)."""
    return lambda draw: {"scores": draw.uniform(0.1, 2.0, draw.size(*length))}


def mixed_scores(length):
    """make(draw): scores of both signs drawn from [-1, 2], shifted up where needed so that
    their mean is at least 0.3 (the sum is kept away from 0); `length` is (public size,
    hidden range)."""
    def make(draw):
        scores = draw.uniform(-1.0, 2.0, draw.size(*length))
        return {"scores": scores + max(0.0, 0.3 - float(scores.mean()))}
    return make


@recorder("02")
def record(exercise):
    inputs = notebooks.journey_inputs()
    exercise.notebook("notebook_journey", NORMALIZE_BY_SUM, "ch03.ipynb In [5]",
                      scores=notebooks.attention_scores_for(inputs, inputs[1]))
    seeded = "ch03.ipynb In [5] on seeded positive scores"
    exercise.drawn("odd_length", NORMALIZE_BY_SUM, seeded, positive_scores((7, (2, 12))),
                   seed=201)
    exercise.drawn("one_score", NORMALIZE_BY_SUM, seeded, positive_scores((1, (1, 1))),
                   seed=202)
    # The notebook's shape with other values, of both signs (the notebook's scores are all
    # positive, where dividing by the sum of |x| goes unseen); nine scores: a loop fixed to
    # the notebook's 6 leaves three weights 0.
    exercise.drawn("mixed_signs", NORMALIZE_BY_SUM,
                   "ch03.ipynb In [5] on seeded scores of both signs, the notebook's shape (6,)",
                   mixed_scores((6, (2, 12))), seed=203)
    exercise.drawn("nine_scores", NORMALIZE_BY_SUM, seeded + ", nine of them",
                   positive_scores((9, (8, 16))), seed=204)

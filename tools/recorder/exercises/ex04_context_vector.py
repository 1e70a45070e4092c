"""Exercise 04, context_vector: the attention-weighted sum of the inputs, for given weights
(ch03.ipynb In [8]) and for one query token end to end (In [3], In [7], In [8]).

Sources cite the public notebook cells: seed 001 §3.3.1 In [4] (torch.softmax) = ch03.ipynb
In [7]; seed In [5] (context vector) = In [8]; seed In [6] (the whole pipeline for the
query "Your") = In [3], In [7], In [8] with query inputs[0]."""

import math
from dataclasses import replace

import torch

from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import WEIGHTED_SUM, Mistake, weighted_sum_families


def softmax_weights(inputs, query_index):
    """The weights of the token at query_index: softmax of its dot-product scores (In [3]
    then In [7])."""
    return torch.softmax(notebooks.attention_scores_for(inputs, inputs[query_index]), dim=0)


def with_weights(normalise):
    """context_vector_for_query(inputs, i) with the scores turned into weights by
    normalise(scores, inputs)."""
    def wrong(inputs, query_index):
        scores = notebooks.attention_scores_for(inputs, inputs[query_index])
        return notebooks.context_vector_of(inputs, normalise(scores, inputs))
    return wrong


def query_moved(step):
    """The context vector of the token `step` away from query_index, where there is one."""
    def wrong(inputs, query_index):
        index = query_index + step
        return (notebooks.context_vector_for_query(inputs, index)
                if 0 <= index < inputs.shape[0] else None)
    return wrong


def weighted_query(inputs, query_index):
    """Every weight times the query row, summed: the query back, as the weights sum to 1."""
    weights = softmax_weights(inputs, query_index)
    return (weights[:, None] * inputs[query_index]).sum(dim=0)


def own_row_only(inputs, query_index):
    return softmax_weights(inputs, query_index)[query_index] * inputs[query_index]


def first_tokens_only(count):
    """Every loop over the tokens fixed to the notebook's `count`: the context vector of the
    first `count` tokens alone; None unless T > count > query_index."""
    def wrong(inputs, query_index):
        if inputs.shape[0] <= count or query_index >= count:
            return None
        return notebooks.context_vector_for_query(inputs[:count], query_index)
    return Mistake(f"first_{count}_tokens_only",
                   f"scored, softmaxed and summed the notebook's {count} tokens only (loops "
                   f"fixed to {count})",
                   f"loop over every token: take T from inputs.shape(0), never from the "
                   f"notebook's example of {count} tokens.", wrong, family="fixed_token_count",
                   named_when_shared=True)


def after_softmax(mistake):
    """A weighted-sum mistake made after the correct softmax weights (In [7])."""
    return replace(mistake, wrong=lambda inputs, query_index: mistake.wrong(
        inputs, softmax_weights(inputs, query_index)))


# context_vector_for_query(inputs, query_index) -> (d_in,); ex05 uses them row by row.
FOR_QUERY = [
    Mistake("raw_scores", "weighted by the raw scores, without softmax",
            "turn the dot-product scores into weights with softmax before weighting the inputs.",
            with_weights(lambda scores, inputs: scores)),
    Mistake("naive_weights", "normalised the scores by their sum instead of softmax",
            "this exercise uses softmax weights (exercise 03), not scores / sum (exercise 02).",
            with_weights(lambda scores, inputs: scores / scores.sum())),
    Mistake("scaled_scores", "divided the scores by sqrt(d_in) before softmax",
            "scaling by 1/sqrt(d_k) comes with trainable weights (exercise 07): here the "
            "weights are softmax(scores) of the plain dot products.",
            with_weights(lambda scores, inputs: torch.softmax(
                scores / math.sqrt(inputs.shape[1]), dim=0))),
    Mistake("query_before", "used the previous token as the query (query_index - 1)",
            "the query is row query_index of inputs, counted from 0.", query_moved(-1)),
    Mistake("query_after", "used the next token as the query (query_index + 1)",
            "the query is row query_index of inputs, counted from 0: inputs[1] is the second "
            "token.", query_moved(+1)),
    Mistake("weighted_query", "weighted the query instead of the inputs",
            "multiply weights[i] by inputs[i], row i, not by the query row.", weighted_query),
    Mistake("own_row_only", "kept only the query's own row",
            "the context vector adds weights[i] * inputs[i] for EVERY token i, not only "
            "i = query_index.", own_row_only),
    *(after_softmax(mistake) for mistake in WEIGHTED_SUM),
    first_tokens_only(6),
]

CONTEXT_VECTOR = Kind(
    name="context_vector", inputs=("inputs", "weights"), outputs=("context",),
    function=notebooks.context_vector_of,
    scale=lambda inputs, weights: weights @ inputs,
    reduction=lambda inputs, weights: {"context": inputs.shape[0]},
    mistakes=lambda inputs, weights: weighted_sum_families(6),
)

CONTEXT_VECTOR_FOR_QUERY = Kind(
    name="context_vector_for_query", inputs=("inputs", "query_index"), outputs=("context",),
    function=notebooks.context_vector_for_query,
    scale=lambda inputs, query_index: (inputs @ inputs[query_index]).softmax(0) @ inputs,
    reduction=lambda inputs, query_index: {"context": max(inputs.shape)},
    mistakes=lambda inputs, query_index: FOR_QUERY,
)


def inputs_and_weights(tokens, dims):
    """make(draw): randn inputs (T, d) and softmax(randn(T)) weights; sizes are (public
    size, hidden range)."""
    def make(draw):
        T, d = draw.size(*tokens), draw.size(*dims)
        return {"inputs": draw.randn(T, d), "weights": torch.softmax(draw.randn(T), dim=0)}
    return make


def inputs_and_query(tokens, dims, index):
    """make(draw): randn inputs (T, d) and a query index: `index` in the public set and
    drawn in a hidden one, or "last" for the last token in both."""
    def make(draw):
        T, d = draw.size(*tokens), draw.size(*dims)
        query_index = T - 1 if index == "last" else draw.size(index, (0, T - 1))
        return {"inputs": draw.randn(T, d), "query_index": query_index}
    return make


@recorder("04")
def record(exercise):
    inputs = notebooks.journey_inputs()
    weights_2 = torch.softmax(notebooks.attention_scores_for(inputs, inputs[1]), dim=0)
    exercise.notebook("notebook_journey", CONTEXT_VECTOR, "ch03.ipynb In [8]",
                      inputs=inputs, weights=weights_2)
    weighted = "ch03.ipynb In [8] on seeded randn inputs and softmax weights"
    exercise.drawn("odd_shape", CONTEXT_VECTOR, weighted,
                   inputs_and_weights((7, (2, 12)), (5, (2, 8))), seed=401)
    exercise.drawn("one_token", CONTEXT_VECTOR, weighted,
                   inputs_and_weights((1, (1, 1)), (4, (2, 8))), seed=402)

    # The second kind's case names start with "for_query_": names are unique per exercise.
    exercise.notebook("for_query_notebook_journey", CONTEXT_VECTOR_FOR_QUERY,
                      "ch03.ipynb In [3], In [7], In [8] (query journey)",
                      inputs=inputs, query_index=1)
    exercise.notebook("for_query_notebook_your", CONTEXT_VECTOR_FOR_QUERY,
                      "ch03.ipynb In [3], In [7], In [8] (query Your)",
                      inputs=inputs, query_index=0)
    seeded = "ch03.ipynb In [3], In [7], In [8] on seeded randn inputs"
    exercise.drawn("for_query_odd_shape", CONTEXT_VECTOR_FOR_QUERY, seeded,
                   inputs_and_query((7, (2, 12)), (5, (2, 8)), 4), seed=403)
    exercise.drawn("for_query_last_token", CONTEXT_VECTOR_FOR_QUERY, seeded + ", last token",
                   inputs_and_query((5, (2, 12)), (3, (2, 8)), "last"), seed=404)

    # Every notebook shape again with other values (a table of the notebook's answers keyed
    # on the shape fails), and nine tokens (a loop fixed to the notebook's 6 drops three).
    exercise.drawn("notebook_shape", CONTEXT_VECTOR, weighted + ", the notebook's shape (6, 3)",
                   inputs_and_weights((6, (2, 12)), (3, (2, 8))), seed=405)
    exercise.drawn("nine_tokens", CONTEXT_VECTOR, weighted + ", nine tokens",
                   inputs_and_weights((9, (8, 16)), (3, (2, 8))), seed=406)
    exercise.drawn("for_query_notebook_shape", CONTEXT_VECTOR_FOR_QUERY,
                   seeded + " of the notebook's shape (6, 3), query 1",
                   inputs_and_query((6, (2, 12)), (3, (2, 8)), 1), seed=407)
    exercise.drawn("for_query_nine_tokens", CONTEXT_VECTOR_FOR_QUERY,
                   seeded + ", nine tokens, query 2",
                   inputs_and_query((9, (8, 16)), (3, (2, 8)), 2), seed=408)

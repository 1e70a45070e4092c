"""Exercise 05, all_context_vectors: all-pairs scores by loops (ch03.ipynb In [9]) and by
matmul (In [10]), and every token's context vector (In [11] and In [13]).

Sources cite the public notebook cells: seed 001 §3.3.2 In [7] (loops) = ch03.ipynb In [9];
In [8] (matmul) = In [10]; In [9] (row softmax) = In [11]; In [10] (weights @ inputs) =
In [13]."""

import torch

from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import DOT_PRODUCT, Mistake, for_every_row
from .ex04_context_vector import FOR_QUERY


def gram(inputs):
    return inputs @ inputs.T


def rows_to_d_in(inputs):
    """Scores whose outer loop stopped at d_in: the rows past it stay 0."""
    T, d = inputs.shape
    return torch.cat([gram(inputs)[:d], torch.zeros(T - d, T)]) if d < T else None


ALL_PAIRS = [
    # scores[i] is exercise 01 with query inputs[i], so its mistakes apply row by row.
    *(for_every_row(mistake, lambda inputs, i: (inputs, inputs[i]), lambda inputs: len(inputs))
      for mistake in DOT_PRODUCT),
    Mistake("row_self_dot", "dotted each query with itself",
            "scores[i, j] = dot(inputs[i], inputs[j]): the second factor is token j.",
            lambda inputs: (inputs * inputs).sum(dim=1, keepdim=True).expand(-1, len(inputs))
            .clone()),
    Mistake("upper_triangle", "filled only the upper triangle (j starts at i)",
            "the inner loop visits every j in [0, T), not only j >= i.",
            lambda inputs: torch.triu(gram(inputs))),
    Mistake("lower_triangle", "filled only the lower triangle (j stops at i)",
            "the inner loop visits every j in [0, T): nothing is masked yet (that comes with "
            "causal attention).", lambda inputs: torch.tril(gram(inputs))),
    Mistake("diagonal_only", "filled only the diagonal (i == j)",
            "compute dot(inputs[i], inputs[j]) for every pair i, j, not only i == j.",
            lambda inputs: torch.diag(torch.diagonal(gram(inputs)))),
    Mistake("elementwise", "multiplied inputs by inputs elementwise (shape (T, d_in))",
            "the scores are a matrix product, inputs @ inputs.T (xt::linalg::dot), not the "
            "elementwise *.", lambda inputs: inputs * inputs),
    Mistake("feature_gram", "computed inputs.T @ inputs",
            "that compares embedding dimensions (d_in x d_in); compare tokens: inputs @ "
            "inputs.T is T x T.", lambda inputs: inputs.T @ inputs),
    Mistake("rows_to_d_in", "outer loop over d_in instead of T",
            "there is one row of scores per query token: loop i over the T rows of inputs.",
            rows_to_d_in),
]


def first_tokens_only(inputs, count=6):
    """Every loop over the tokens fixed to the notebook's `count`: the first `count` rows are
    the context vectors of the first `count` tokens alone, the rest 0; None unless T > count."""
    if inputs.shape[0] <= count:
        return None
    result = torch.zeros_like(inputs)
    result[:count] = notebooks.all_context_vectors(inputs[:count])
    return result


def weights_then_context(weights_of):
    """weights_of(scores) @ inputs, the scores being inputs @ inputs.T."""
    return lambda inputs: weights_of(gram(inputs)) @ inputs


ALL_CONTEXT = [
    # row i is exercise 04's context vector of query i, so its mistakes apply row by row.
    *(for_every_row(mistake, lambda inputs, i: (inputs, i), lambda inputs: inputs.shape[1])
      for mistake in FOR_QUERY if mistake.family != "fixed_token_count"),
    Mistake("first_6_tokens_only", "scored, softmaxed and summed the notebook's 6 tokens only "
            "(loops fixed to 6; rows from 6 on never filled)",
            "loop over every token: take T from inputs.shape(0), never from the notebook's "
            "example of 6 tokens.", first_tokens_only, family="fixed_token_count",
            named_when_shared=True),
    Mistake("column_softmax", "softmax over the columns (dim=0)",
            "each ROW of the weights must sum to 1: softmax(scores, -1), then weights @ inputs.",
            weights_then_context(lambda scores: torch.softmax(scores, dim=0))),
    Mistake("weights_transposed", "multiplied by the transposed weights",
            "row i of the weights belongs to query i: context = weights @ inputs, without "
            "transposing the weights.",
            weights_then_context(lambda scores: torch.softmax(scores, dim=-1).T)),
    Mistake("whole_matrix_softmax", "softmax over the whole score matrix",
            "softmax each row of the scores on its own (dim=-1), so every row of weights sums "
            "to 1.", weights_then_context(lambda scores: torch.exp(scores) / torch.exp(scores)
                                          .sum())),
    Mistake("returned_weights", "returned the attention weights, not the context vectors",
            "multiply the weights by the inputs: softmax(scores, -1) @ inputs.",
            lambda inputs: torch.softmax(gram(inputs), dim=-1)),
    Mistake("returned_scores", "returned the scores",
            "turn the scores into weights with softmax(scores, -1), then multiply them by the "
            "inputs.", gram),
]

ATTENTION_SCORES_LOOPS, ATTENTION_SCORES_MATMUL = (
    Kind(name=name, inputs=("inputs",), outputs=("scores",), function=function,
         scale=lambda inputs: inputs @ inputs.T,
         reduction=lambda inputs: {"scores": inputs.shape[1]},
         mistakes=lambda inputs: ALL_PAIRS, tokens=(("row", 0, 6), ("column", 1, 6)))
    for name, function in (("attention_scores_loops", notebooks.all_attention_scores),
                           ("attention_scores_matmul", gram)))

ALL_CONTEXT_VECTORS = Kind(
    name="all_context_vectors", inputs=("inputs",), outputs=("context",),
    function=notebooks.all_context_vectors,
    scale=lambda inputs: (inputs @ inputs.T).softmax(-1) @ inputs,
    reduction=lambda inputs: {"context": max(inputs.shape)},
    mistakes=lambda inputs: ALL_CONTEXT,
    tokens=(("row", 0, 6),),
)


def random_inputs(tokens, dims, spread=1.0):
    """make(draw): randn inputs (T, d) times `spread`; sizes are (public size, hidden range)."""
    return lambda draw: {"inputs": draw.randn(draw.size(*tokens), draw.size(*dims)) * spread}


@recorder("05")
def record(exercise):
    inputs = notebooks.journey_inputs()
    # Case names are unique per exercise: the score kinds' start with "loops_" / "matmul_".
    for prefix, kind, cell in (("loops_", ATTENTION_SCORES_LOOPS, "In [9]"),
                               ("matmul_", ATTENTION_SCORES_MATMUL, "In [10]"),
                               ("", ALL_CONTEXT_VECTORS, "In [11] and In [13]")):
        source, seeded = f"ch03.ipynb {cell}", f"ch03.ipynb {cell} on seeded randn inputs"
        exercise.notebook(prefix + "notebook", kind, source, inputs=inputs)
        exercise.drawn(prefix + "odd_shape", kind, seeded,
                       random_inputs((7, (2, 12)), (5, (2, 8))), seed=501)
        exercise.drawn(prefix + "one_token", kind, seeded,
                       random_inputs((1, (1, 1)), (4, (2, 8))), seed=502)
        # The notebook's shape with other values: a table of its answers keyed on the shape
        # fails.
        exercise.drawn(prefix + "notebook_shape", kind, seeded + " of the notebook's shape (6, 3)",
                       random_inputs((6, (2, 12)), (3, (2, 8))), seed=504)
        if kind is not ALL_CONTEXT_VECTORS:
            exercise.drawn(prefix + "cancelling", kind, seeded + " of size ~300",
                           random_inputs((33, (20, 40)), (5, (2, 8)), spread=300.0), seed=503)
        else:  # nine tokens: a loop fixed to the notebook's 6 leaves three rows 0
            exercise.drawn("nine_tokens", kind, seeded + ", nine tokens",
                           random_inputs((9, (8, 16)), (3, (2, 8))), seed=505)

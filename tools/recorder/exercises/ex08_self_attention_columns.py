"""Exercise 08, self_attention_columns: scaled dot-product self-attention in matrix form, in
the column convention with softmax_cols (12_1_Self_Attention.ipynb Exercise 7 -> X_prime).

Sources cite the public cells; ../trainable.py maps the seed cells: 003 In [27] (X), In [28]
(softmax_cols), In [37] (scaled_dot_product_self_attention) and In [38] (X_prime, the 4x3
matrix the notebook prints). The notebook's D is both the input size and d_k; the drawn
cases tell the two apart (d_k != D), so dividing by sqrt(D) is a named mistake there."""

import math

import torch

from .. import trainable
from ..cases import Kind, recorder
from ..mistakes import Mistake, softmax_families
from .ex07_scaled_attention import SQRT_HINT


def column_weights(queries, keys, divisor=None, transposed=False, dim=0):
    """softmax over dim 0 (softmax_cols) of keys.T @ queries / sqrt(d_k), or variants."""
    scores = queries.T @ keys if transposed else keys.T @ queries
    scores = scores / (math.sqrt(keys.shape[0]) if divisor is None else divisor)
    exps = torch.exp(scores)
    return exps / exps.sum(dim=dim, keepdim=True)


def after_scaling(mistake):
    return Mistake(mistake.slug, mistake.name, mistake.hint,
                   lambda queries, keys: mistake.wrong(
                       keys.T @ queries / math.sqrt(keys.shape[0]), 0), mistake.family)


# attention_weights_columns(queries, keys) -> (N, N), every column summing to 1.
WEIGHTS = [
    Mistake("unscaled", "left out the division by sqrt(d_k)", SQRT_HINT,
            lambda queries, keys: column_weights(queries, keys, divisor=1.0)),
    Mistake("divided_by_d_k", "divided by d_k instead of sqrt(d_k)",
            "the scale is the SQUARE ROOT of the key dimension: scores / sqrt(d_k).",
            lambda queries, keys: column_weights(queries, keys, divisor=keys.shape[0])),
    Mistake("sqrt_of_N", "divided by sqrt(N), the number of tokens",
            "d_k is the length of a key column, keys.shape(0), not the number of keys.",
            lambda queries, keys: column_weights(queries, keys,
                                                 divisor=math.sqrt(keys.shape[1]))),
    Mistake("scores_transposed", "computed queries.T @ keys",
            "in the column convention column n of the scores belongs to query n: "
            "keys.T @ queries, so that softmax_cols normalises each query's scores.",
            lambda queries, keys: column_weights(queries, keys, transposed=True)),
    *(after_scaling(mistake) for mistake in softmax_families(0, 2)),
]


def attention(X, W_v, W_q, W_k, b_v, b_q, b_k, divisor=None, dim=0, weights_transposed=False,
              scores_transposed=False, bias=True, result="x_prime"):
    """003 In [37] with one slip at a time."""
    queries = W_q @ X + (b_q if bias else 0)
    keys = W_k @ X + (b_k if bias else 0)
    values = W_v @ X + (b_v if bias else 0)
    weights = column_weights(queries, keys, divisor, scores_transposed, dim)
    if result == "weights":
        return weights
    if result == "values":
        return values
    return values @ (weights.T if weights_transposed else weights)


def swapped_v_q(X, W_v, W_q, W_k, b_v, b_q, b_k):
    """The notebook's signature starts with W_v: W_q and W_v passed in each other's place."""
    if W_v.shape != W_q.shape:
        return None
    return attention(X, W_q, W_v, W_k, b_q, b_v, b_k)


def slip(**how):
    return lambda *args: attention(*args, **how)


FULL = [
    Mistake("unscaled", "left out the division by sqrt(d_k)", SQRT_HINT, slip(divisor=1.0)),
    Mistake("sqrt_of_D", "divided by sqrt(D), the input size, instead of sqrt(d_k)",
            "d_k is the length of a KEY column, keys.shape(0), which is D only when W_k is "
            "square (as in the notebook).",
            lambda X, *rest: attention(X, *rest, divisor=math.sqrt(X.shape[0]))),
    Mistake("row_softmax", "softmax over the rows instead of the columns",
            "in the column convention each COLUMN of the weights belongs to one query and "
            "sums to 1: softmax_cols, i.e. softmax(scores, 0).", slip(dim=1)),
    # The row convention's formula softmax(Q K^T) V, followed in the column convention:
    # queries.T @ keys, softmax_cols, then values @ weights.T. The two transposes make it a
    # row softmax of the right scores, on every input: a failing test names both.
    Mistake("row_convention_formula",
            "computed queries.T @ keys and multiplied the values by the transposed weights "
            "(the row convention's softmax(Q K^T) V)",
            "in the column convention the scores are keys.T @ queries and X_prime = values @ "
            "weights: column n of both belongs to query n. queries.T @ keys and weights.T "
            "together amount to a softmax over the rows.",
            slip(scores_transposed=True, weights_transposed=True), named_when_shared=True),
    Mistake("weights_transposed", "multiplied the values by the transposed weights",
            "X_prime = values @ weights: column n of the weights mixes the value columns "
            "into output column n.", slip(weights_transposed=True)),
    Mistake("scores_transposed", "computed queries.T @ keys",
            "the scores are keys.T @ queries, so that column n holds query n's scores.",
            slip(scores_transposed=True)),
    Mistake("forgot_bias", "left out the biases",
            "every projection adds its bias: queries = W_q X + b_q, and the same for the "
            "keys and values.", slip(bias=False)),
    Mistake("swapped_W_v_W_q", "used W_v for the queries and W_q for the values",
            "the function's parameters are (X, W_v, W_q, W_k, b_v, b_q, b_k), values first: "
            "queries = W_q X + b_q and values = W_v X + b_v.", swapped_v_q),
    Mistake("returned_weights", "returned the attention weights (N, N)",
            "multiply the values by the weights: X_prime = values @ weights.",
            slip(result="weights")),
    Mistake("returned_values", "returned the values",
            "weight the values by the attention weights: X_prime = values @ weights.",
            slip(result="values")),
]


def weights_scale(queries, keys):
    scores = (keys.T @ queries) / math.sqrt(keys.shape[0])
    exps = scores.exp()
    return exps / exps.sum(0, keepdim=True)


def full_scale(X, W_v, W_q, W_k, b_v, b_q, b_k):
    queries, keys, values = W_q @ X + b_q, W_k @ X + b_k, W_v @ X + b_v
    return values @ weights_scale(queries, keys)


ATTENTION_WEIGHTS_COLUMNS = Kind(
    name="attention_weights_columns", inputs=("queries", "keys"), outputs=("weights",),
    function=trainable.attention_weights_columns,
    scale=weights_scale,
    reduction=lambda queries, keys: {"weights": max(keys.shape)},
    mistakes=lambda queries, keys: WEIGHTS,
    tokens=(("row", 0, 3), ("column", 1, 3)),  # the notebook has N = 3 tokens
)

SELF_ATTENTION_COLUMNS = Kind(
    name="scaled_dot_product_self_attention",
    inputs=("X", "W_v", "W_q", "W_k", "b_v", "b_q", "b_k"), outputs=("X_prime",),
    function=trainable.scaled_dot_product_self_attention,
    scale=full_scale,
    reduction=lambda X, W_v, W_q, W_k, b_v, b_q, b_k: {
        "X_prime": max(X.shape[0] + 1, W_k.shape[0], X.shape[1])},
    mistakes=lambda *args: FULL,
    tokens=(("column", 1, 3),),
)


def queries_and_keys(tokens, d_k):
    """make(draw): randn queries and keys (d_k, N)."""
    def make(draw):
        N, d = draw.size(*tokens), draw.size(*d_k)
        return {"queries": draw.randn(d, N), "keys": draw.randn(d, N)}
    return make


def parameters(D, d_k, d_v, tokens, same_heads=False):
    """make(draw): X (D, N) and the parameters of 003 In [2], drawn with randn, with
    W_q, W_k (d_k, D) and W_v (d_v, D) divided by sqrt(D) (as nn.Linear's initialisation
    scales them, so that the scores stay moderate); `same_heads`: d_v = d_k."""
    def make(draw):
        n_D, dk, N = draw.size(*D), draw.size(*d_k), draw.size(*tokens)
        dv = dk if same_heads else draw.size(*d_v)
        scale = 1.0 / math.sqrt(n_D)
        return {"X": draw.randn(n_D, N), "W_v": draw.randn(dv, n_D) * scale,
                "W_q": draw.randn(dk, n_D) * scale, "W_k": draw.randn(dk, n_D) * scale,
                "b_v": draw.randn(dv, 1), "b_q": draw.randn(dk, 1), "b_k": draw.randn(dk, 1)}
    return make


@recorder("08")
def record(exercise):
    if exercise.public:
        trainable.check_printed()
    steps = trainable.ColumnSteps()
    udl = "12_1_Self_Attention.ipynb Exercise 7 (PyTorch, seeds 3 and 0)"
    exercise.notebook("weights_notebook", ATTENTION_WEIGHTS_COLUMNS,
                      udl + ", steps 2 to 4 (softmax_cols)",
                      queries=steps.queries, keys=steps.keys)
    exercise.notebook("notebook", SELF_ATTENTION_COLUMNS, udl + ", X_prime",
                      X=steps.X, **{name: steps.p[name] for name in
                                    ("W_v", "W_q", "W_k", "b_v", "b_q", "b_k")})
    exercise.drawn("weights_odd_shape", ATTENTION_WEIGHTS_COLUMNS,
                   udl + " on seeded randn queries and keys",
                   queries_and_keys((5, (1, 12)), (3, (1, 8))), seed=801)
    exercise.drawn("odd_shape", SELF_ATTENTION_COLUMNS,
                   udl + " on seeded randn X and parameters, d_k != D",
                   parameters((5, (2, 8)), (3, (1, 8)), (4, (1, 8)), (6, (1, 12))), seed=802)
    exercise.drawn("same_head_sizes", SELF_ATTENTION_COLUMNS,
                   udl + " on seeded randn X and parameters, d_v = d_k",
                   parameters((6, (2, 8)), (4, (1, 8)), None, (5, (1, 12)), same_heads=True),
                   seed=803)
    exercise.drawn("one_token", SELF_ATTENTION_COLUMNS,
                   udl + " on one seeded randn token: its only weight is 1, X_prime = values",
                   parameters((4, (2, 8)), (3, (1, 8)), (2, (1, 8)), (1, (1, 1))), seed=804)
    # The notebook's shapes with other values: a table of its answers keyed on the shape
    # fails.
    exercise.drawn("weights_notebook_shape", ATTENTION_WEIGHTS_COLUMNS,
                   udl + " on seeded randn queries and keys, the notebook's shapes",
                   queries_and_keys((3, (1, 12)), (4, (1, 8))), seed=805)
    exercise.drawn("notebook_shape", SELF_ATTENTION_COLUMNS,
                   udl + " on seeded randn X and parameters, the notebook's shapes",
                   parameters((4, (2, 8)), (4, (1, 8)), None, (3, (1, 12)), same_heads=True),
                   seed=806)

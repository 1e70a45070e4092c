"""Exercise 07, scaled_attention: scaled dot-product attention for one query, step by step.
Row convention (ch03.ipynb §3.4.1): scores In [19], In [20]; scaled weights In [21];
context vector In [22]. Column convention (12_1_Self_Attention.ipynb): scaled scores
Exercise 2, weights Exercise 4, weighted values Exercise 5, all steps Exercise 6.

Sources cite the public cells; ../trainable.py maps the seed cells: 001 In [15] to In [18] =
ch03.ipynb In [19] to In [22] (001 at seed 42, the public notebook at seed 123: both are
recorded); 003 Exercise 2 In [12], Exercise 4 In [20], Exercise 5 In [22], Exercise 6 In [26].

The lesson of `/ sqrt(d_k)` is the case `weights_lesson_d_k_64`: the dot products of two
64-dimensional vectors spread about 8 times wider than their entries, and without the scaling
softmax turns them into an almost one-hot row. Leaving the scaling out is the mistake
`unscaled`, recorded on every case of scaled_attention_weights (and of the column steps)."""

import math
from dataclasses import replace

import torch

from .. import trainable
from ..cases import Kind, recorder
from ..mistakes import DOT_PRODUCT, Mistake, softmax_families, weighted_sum_families

SQRT_HINT = (
    "divide the scores by sqrt(d_k) before softmax. A dot product of two d_k-dimensional "
    "vectors grows like sqrt(d_k); unscaled, softmax saturates into a near one-hot row whose "
    "gradients vanish in training. That is why it is called SCALED dot-product attention.")


def unscaled(name="left out the division by sqrt(d_k)"):
    return name, SQRT_HINT


# ---- row convention ----------------------------------------------------------------------

# attention_scores(query, keys) -> (T,): query @ keys.T; ex01's dot-product slips, row by row.
SCORES = [
    *(replace(mistake, wrong=(lambda m: lambda query, keys: m.wrong(keys, query))(mistake))
      for mistake in DOT_PRODUCT),
    Mistake("scaled_too_early", "divided the scores by sqrt(d_k) already",
            "attn_scores_2 is the plain product query @ keys.T; the scaling by sqrt(d_k) "
            "belongs to the next step, scaled_attention_weights.",
            lambda query, keys: query @ keys.T / math.sqrt(keys.shape[1])),
]


def after_scaling(mistake):
    """A softmax slip made on the correctly scaled scores."""
    return replace(mistake, wrong=lambda scores, d_k: mistake.wrong(scores / math.sqrt(d_k)))


# scaled_attention_weights(scores, d_k) -> (T,): softmax(scores / sqrt(d_k)).
WEIGHTS = [
    Mistake("unscaled", *unscaled(), lambda scores, d_k: torch.softmax(scores, dim=-1)),
    Mistake("divided_by_d_k", "divided by d_k instead of sqrt(d_k)",
            "the scale is the SQUARE ROOT of the key dimension: scores / sqrt(d_k) (in "
            "PyTorch, d_k**0.5).", lambda scores, d_k: torch.softmax(scores / d_k, dim=-1)),
    Mistake("multiplied_by_sqrt", "multiplied by sqrt(d_k) instead of dividing",
            "scaling shrinks the scores: divide them by sqrt(d_k).",
            lambda scores, d_k: torch.softmax(scores * math.sqrt(d_k), dim=-1)),
    Mistake("scaled_after_softmax", "divided the weights by sqrt(d_k) after softmax",
            "scale the SCORES, then take the softmax: after softmax the weights no longer "
            "sum to 1.", lambda scores, d_k: torch.softmax(scores, dim=-1) / math.sqrt(d_k)),
    Mistake("sqrt_of_T", "divided by sqrt(T), the number of tokens",
            "d_k is the length of a key vector (keys.shape[-1]), not the number of keys.",
            lambda scores, d_k: torch.softmax(scores / math.sqrt(scores.shape[0]), dim=-1)),
    *(after_scaling(mistake) for mistake in softmax_families(0, 1)),
]

# weighted_values(weights, values) -> (d_v,): weights @ values; ex04's weighted-sum slips.
CONTEXT = [replace(mistake, wrong=(lambda m: lambda weights, values: m.wrong(values, weights))(
    mistake)) for mistake in weighted_sum_families(6)]

ATTENTION_SCORES = Kind(
    name="attention_scores", inputs=("query", "keys"), outputs=("scores",),
    function=trainable.attention_scores,
    scale=lambda query, keys: query @ keys.T,
    reduction=lambda query, keys: {"scores": keys.shape[1]},
    mistakes=lambda query, keys: SCORES,
    tokens=(("score", 0, 6),),
)

SCALED_ATTENTION_WEIGHTS = Kind(
    name="scaled_attention_weights", inputs=("scores", "d_k"), outputs=("weights",),
    function=trainable.scaled_attention_weights,
    scale=lambda scores, d_k: (scores / math.sqrt(d_k)).softmax(0),
    reduction=lambda scores, d_k: {"weights": scores.shape[0]},
    mistakes=lambda scores, d_k: WEIGHTS,
    tokens=(("weight", 0, 6),),
)

WEIGHTED_VALUES = Kind(
    name="weighted_values", inputs=("weights", "values"), outputs=("context",),
    function=trainable.weighted_values,
    scale=lambda weights, values: weights @ values,
    reduction=lambda weights, values: {"context": values.shape[0]},
    mistakes=lambda weights, values: CONTEXT,
)

# ---- column convention -------------------------------------------------------------------


def column_scores(keys, query, scale=True, divisor=None):
    """keys.T @ query as (N,), divided by sqrt(d_k) (or by `divisor`)."""
    scores = (keys.T @ query)[:, 0]
    if divisor is not None:
        return scores / divisor
    return scores / math.sqrt(query.shape[0]) if scale else scores


# scaled_scores_column(keys, query) -> (N,): the scores of one query column, scaled.
COLUMN_SCORES = [
    Mistake("unscaled", *unscaled(), lambda keys, query: column_scores(keys, query, False)),
    Mistake("divided_by_d_k", "divided by d_k instead of sqrt(d_k)",
            "the scale is the SQUARE ROOT of the key dimension D: dot / sqrt(D).",
            lambda keys, query: column_scores(keys, query, divisor=query.shape[0])),
    Mistake("sqrt_of_N", "divided by sqrt(N), the number of tokens",
            "the scale is sqrt of the length of a key column (keys.shape(0)), not of the "
            "number of keys.",
            lambda keys, query: column_scores(keys, query, divisor=math.sqrt(keys.shape[1]))),
    Mistake("used_rows_of_keys", "dotted the query with ROWS of keys",
            "in the column convention key m is COLUMN m of keys (d_k, N): dot(q, keys[:, m]).",
            lambda keys, query: (keys @ query)[:, 0] / math.sqrt(query.shape[0])
            if keys.shape[0] == keys.shape[1] else None),
    *(replace(mistake, wrong=(lambda m: lambda keys, query: (
        lambda r: None if r is None else r / math.sqrt(query.shape[0]))(
        m.wrong(keys.T, query[:, 0])))(mistake)) for mistake in DOT_PRODUCT),
]


def column_vector(result, rows):
    """A (rows,) result as the (rows, 1) column the column convention returns."""
    if result is None:
        return None
    return result.reshape(rows, 1) if result.shape == (rows,) else result


# weighted_values_column(weights, values) -> (d_v, 1); ex04's weighted-sum slips.
COLUMN_CONTEXT = [
    replace(mistake, wrong=(lambda m: lambda weights, values: column_vector(
        m.wrong(values.T, weights), values.shape[0]))(mistake))
    for mistake in weighted_sum_families(3)  # 12_1_Self_Attention.ipynb has N = 3 tokens
]


def column_attention(queries, keys, values, n, query=None, scale=True):
    """Exercise 6 for query n (or for the column `query`), optionally without the scaling."""
    q = queries[:, n:n + 1] if query is None else query
    scores = (keys.T @ q)[:, 0] / (math.sqrt(q.shape[0]) if scale else 1.0)
    weights = torch.exp(scores) / torch.exp(scores).sum()
    return values @ weights[:, None]


def moved(step):
    def wrong(queries, keys, values, n):
        m = n + step
        return column_attention(queries, keys, values, m) if 0 <= m < queries.shape[1] else None
    return wrong


# self_attention_column_query(queries, keys, values, n) -> (d_v, 1).
COLUMN_QUERY = [
    Mistake("unscaled", *unscaled(),
            lambda queries, keys, values, n: column_attention(queries, keys, values, n,
                                                              scale=False)),
    Mistake("key_as_query", "used key n as the query",
            "the query is column n of the QUERIES; the keys are what it is compared with.",
            lambda queries, keys, values, n: column_attention(queries, keys, values, n,
                                                              query=keys[:, n:n + 1])),
    Mistake("query_before", "used query n - 1",
            "the output x'_n belongs to query n, column n of queries (counted from 0).",
            moved(-1)),
    Mistake("query_after", "used query n + 1",
            "the output x'_n belongs to query n, column n of queries (counted from 0).",
            moved(+1)),
    Mistake("weighted_queries", "weighted the queries instead of the values",
            "the output is the weighted sum of the VALUE columns.",
            lambda queries, keys, values, n: column_attention(queries, keys, queries, n)
            if queries.shape == values.shape else None),
    Mistake("weighted_keys", "weighted the keys instead of the values",
            "the output is the weighted sum of the VALUE columns.",
            lambda queries, keys, values, n: column_attention(queries, keys, keys, n)
            if keys.shape == values.shape else None),
    Mistake("unweighted_sum", "added the values without their weights",
            "scale value column m by the attention weight of key m before adding it.",
            lambda queries, keys, values, n: values.sum(dim=1, keepdim=True)),
    Mistake("first_3_tokens_only", "attended to the notebook's 3 tokens only (loops fixed "
            "to 3)", "loop m over every key column: take N from keys.shape(1), never from the "
            "notebook's example of 3 tokens.",
            lambda queries, keys, values, n: column_attention(
                queries[:, :3], keys[:, :3], values[:, :3], n)
            if keys.shape[1] > 3 and n < 3 else None, family="fixed_token_count",
            named_when_shared=True),
]


def naive_weights(scores):
    """003 Exercise 4's weights: the naive softmax of Exercise 3 (works on Tracked too)."""
    return scores.exp() / scores.exp().sum()


SCALED_SCORES_COLUMN = Kind(
    name="scaled_scores_column", inputs=("keys", "query"), outputs=("scores", "weights"),
    function=trainable.scaled_scores_column,
    scale=lambda keys, query: (keys.T @ query[:, 0]) / math.sqrt(query.shape[0]),
    reduction=lambda keys, query: {"scores": keys.shape[0], "weights": max(keys.shape)},
    mistakes=lambda keys, query: COLUMN_SCORES,
    derive=lambda scores: {"scores": scores, "weights": naive_weights(scores)},
    tokens=(("score", 0, 3),),  # 12_1_Self_Attention.ipynb has N = 3 tokens
)

WEIGHTED_VALUES_COLUMN = Kind(
    name="weighted_values_column", inputs=("weights", "values"), outputs=("x_prime",),
    function=trainable.weighted_values_column,
    scale=lambda weights, values: values @ weights[:, None],
    reduction=lambda weights, values: {"x_prime": values.shape[1]},
    mistakes=lambda weights, values: COLUMN_CONTEXT,
)


def column_query_scale(queries, keys, values, n):
    scores = (keys.T @ queries[:, n]) / math.sqrt(queries.shape[0])
    return values @ naive_weights(scores)[:, None]


SELF_ATTENTION_COLUMN_QUERY = Kind(
    name="self_attention_column_query", inputs=("queries", "keys", "values", "n"),
    outputs=("x_prime",),
    function=trainable.self_attention_column_query,
    scale=column_query_scale,
    reduction=lambda queries, keys, values, n: {"x_prime": max(keys.shape)},
    mistakes=lambda queries, keys, values, n: COLUMN_QUERY,
)

# ---- cases ---------------------------------------------------------------------------------


def query_and_keys(tokens, d_k):
    """make(draw): randn query (d_k,) and keys (T, d_k); sizes are (public, hidden range)."""
    def make(draw):
        T, d = draw.size(*tokens), draw.size(*d_k)
        return {"query": draw.randn(d), "keys": draw.randn(T, d)}
    return make


def scores_of_random_vectors(tokens, d_k):
    """make(draw): the scores q @ K.T of randn vectors of length d_k, and d_k: they spread
    like sqrt(d_k), which is what the scaling undoes."""
    def make(draw):
        T, d = draw.size(*tokens), draw.size(*d_k)
        return {"scores": draw.randn(T, d) @ draw.randn(d), "d_k": d}
    return make


def weights_and_values(tokens, d_v, column=False):
    """make(draw): softmax(randn) weights (T,) and randn values (T, d_v), or (d_v, T) for
    the column convention."""
    def make(draw):
        T, d = draw.size(*tokens), draw.size(*d_v)
        weights = torch.softmax(draw.randn(T) * 2, dim=0)
        return {"weights": weights, "values": draw.randn(d, T) if column else draw.randn(T, d)}
    return make


def keys_and_query(tokens, d_k):
    """make(draw): randn keys (d_k, N) and one query column (d_k, 1)."""
    def make(draw):
        N, d = draw.size(*tokens), draw.size(*d_k)
        return {"keys": draw.randn(d, N), "query": draw.randn(d, 1)}
    return make


def column_projections(tokens, d_k, d_v, n):
    """make(draw): randn queries and keys (d_k, N), values (d_v, N) and a query index n (the
    last one in a hidden set)."""
    def make(draw):
        N, dk, dv = draw.size(*tokens), draw.size(*d_k), draw.size(*d_v)
        return {"queries": draw.randn(dk, N), "keys": draw.randn(dk, N),
                "values": draw.randn(dv, N), "n": draw.size(n, (N - 1, N - 1))}
    return make


@recorder("07")
def record(exercise):
    if exercise.public:
        trainable.check_printed()
    for seed in (42, 123):
        step = trainable.RowStep(seed)
        weights = f"weights at seed {seed}" + (", as the course's copy prints" if seed == 42
                                               else "")
        exercise.notebook(f"scores_seed{seed}", ATTENTION_SCORES,
                          f"ch03.ipynb In [19] and In [20] ({weights})",
                          query=step.query_2, keys=step.keys)
        exercise.notebook(f"weights_seed{seed}", SCALED_ATTENTION_WEIGHTS,
                          f"ch03.ipynb In [21] ({weights})",
                          scores=step.attn_scores_2, d_k=step.d_k)
        exercise.notebook(f"context_seed{seed}", WEIGHTED_VALUES,
                          f"ch03.ipynb In [22] ({weights})",
                          weights=step.attn_weights_2, values=step.values)
    exercise.drawn("scores_odd_shape", ATTENTION_SCORES,
                   "ch03.ipynb In [20] on a seeded randn query and keys",
                   query_and_keys((7, (1, 12)), (3, (1, 8))), seed=701)
    exercise.drawn("weights_lesson_d_k_64", SCALED_ATTENTION_WEIGHTS,
                   "ch03.ipynb In [21] on the scores of seeded randn vectors of length 64: "
                   "the case that shows why scores are divided by sqrt(d_k)",
                   scores_of_random_vectors((8, (4, 12)), (64, (48, 128))), seed=702)
    exercise.drawn("weights_odd_shape", SCALED_ATTENTION_WEIGHTS,
                   "ch03.ipynb In [21] on the scores of seeded randn vectors",
                   scores_of_random_vectors((7, (2, 12)), (5, (3, 16))), seed=703)
    exercise.drawn("context_odd_shape", WEIGHTED_VALUES,
                   "ch03.ipynb In [22] on seeded softmax weights and randn values",
                   weights_and_values((7, (2, 12)), (3, (1, 8))), seed=704)
    # The notebook's shapes with other values (a table of its answers keyed on the shape
    # fails), and nine tokens (a loop fixed to the notebook's 6 leaves three entries out).
    exercise.drawn("scores_notebook_shape", ATTENTION_SCORES,
                   "ch03.ipynb In [20] on a seeded randn query and keys, the notebook's shapes",
                   query_and_keys((6, (1, 12)), (2, (1, 8))), seed=708)
    exercise.drawn("scores_nine_tokens", ATTENTION_SCORES,
                   "ch03.ipynb In [20] on a seeded randn query and nine keys",
                   query_and_keys((9, (8, 16)), (2, (1, 8))), seed=709)
    exercise.drawn("weights_notebook_shape", SCALED_ATTENTION_WEIGHTS,
                   "ch03.ipynb In [21] on the scores of seeded randn vectors, the notebook's "
                   "shape (6,) and d_k = 2",
                   scores_of_random_vectors((6, (2, 12)), (2, (1, 16))), seed=710)
    exercise.drawn("context_notebook_shape", WEIGHTED_VALUES,
                   "ch03.ipynb In [22] on seeded softmax weights and randn values, the "
                   "notebook's shapes", weights_and_values((6, (2, 12)), (2, (1, 8))), seed=711)
    exercise.drawn("context_nine_tokens", WEIGHTED_VALUES,
                   "ch03.ipynb In [22] on seeded softmax weights and randn values, nine tokens",
                   weights_and_values((9, (8, 16)), (2, (1, 8))), seed=712)

    steps = trainable.ColumnSteps()
    udl = "12_1_Self_Attention.ipynb Exercise {} (PyTorch, seeds 3 and 0)"
    for n in range(trainable.N):
        exercise.notebook(f"column_scores_x{n + 1}", SCALED_SCORES_COLUMN,
                          udl.format("2 and 4") + f", query of x_{n + 1}",
                          keys=steps.keys, query=steps.queries[:, n:n + 1])
        exercise.notebook(f"column_values_x{n + 1}", WEIGHTED_VALUES_COLUMN,
                          udl.format(5) + f", weights of x_{n + 1}",
                          weights=steps.weights[n], values=steps.values)
        exercise.notebook(f"column_query_x{n + 1}", SELF_ATTENTION_COLUMN_QUERY,
                          udl.format(6) + f", output {n}",
                          queries=steps.queries, keys=steps.keys, values=steps.values, n=n)
    exercise.drawn("column_scores_odd_shape", SCALED_SCORES_COLUMN,
                   udl.format("2 and 4") + " on seeded randn keys and query",
                   keys_and_query((5, (1, 12)), (3, (1, 8))), seed=705)
    exercise.drawn("column_values_odd_shape", WEIGHTED_VALUES_COLUMN,
                   udl.format(5) + " on seeded softmax weights and randn values",
                   weights_and_values((5, (2, 12)), (3, (1, 8)), column=True), seed=706)
    exercise.drawn("column_query_odd_shape", SELF_ATTENTION_COLUMN_QUERY,
                   udl.format(6) + " on seeded randn queries, keys and values",
                   column_projections((5, (2, 12)), (3, (1, 8)), (4, (1, 8)), 2), seed=707)
    exercise.drawn("column_scores_notebook_shape", SCALED_SCORES_COLUMN,
                   udl.format("2 and 4") + " on seeded randn keys and query, the notebook's "
                   "shapes", keys_and_query((3, (1, 12)), (4, (1, 8))), seed=713)
    exercise.drawn("column_scores_six_tokens", SCALED_SCORES_COLUMN,
                   udl.format("2 and 4") + " on seeded randn keys and query, six tokens",
                   keys_and_query((6, (5, 12)), (4, (1, 8))), seed=716)
    exercise.drawn("column_values_notebook_shape", WEIGHTED_VALUES_COLUMN,
                   udl.format(5) + " on seeded softmax weights and randn values, the "
                   "notebook's shapes",
                   weights_and_values((3, (2, 12)), (4, (1, 8)), column=True), seed=714)
    exercise.drawn("column_query_notebook_shape", SELF_ATTENTION_COLUMN_QUERY,
                   udl.format(6) + " on seeded randn queries, keys and values, the "
                   "notebook's shapes",
                   column_projections((3, (2, 12)), (4, (1, 8)), (4, (1, 8)), 1), seed=715)

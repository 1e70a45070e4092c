"""Exercise 06, projections: queries, keys and values from trainable weights, in the row
convention x @ W (ch03.ipynb In [17], In [18]) and in the column convention W x + b
(12_1_Self_Attention.ipynb Exercise 1; Exercise 7's first step).

Sources cite the public cells; the seed cells are mapped in ../trainable.py: seed 001 In [13]
(query_2) = ch03.ipynb In [17], In [14] (keys, values) = In [18]; 001 draws the weights at
seed 42, the public notebook at seed 123, and both are recorded. Seed 003 Exercise 1 In [4]
and Exercise 7 In [37] are the column convention (udlbook's notebook, ported to PyTorch with
torch.manual_seed(3) inputs and torch.manual_seed(0) weights)."""

import torch

from .. import trainable
from ..cases import Kind, recorder
from ..mistakes import Mistake

ROW_CELL = "ch03.ipynb In [16] to In [18]"
COLUMN_CELL = "12_1_Self_Attention.ipynb Exercise 1 (PyTorch, seeds 3 and 0)"


def square_only(wrong):
    """`wrong(x, W)`, or None where W is not square (the shapes rule the slip out)."""
    return lambda x, W, *rest: wrong(x, W, *rest) if W.shape[0] == W.shape[1] else None


# project_token(x, W) -> (d_out,): x @ W.
TOKEN = [
    Mistake("transposed_weight", "multiplied by W.T instead of W",
            "in the row convention a token is a ROW and W is (d_in, d_out): query = x @ W. "
            "W.T is how nn.Linear stores its weight (exercise 09 onwards), not this W.",
            square_only(lambda x, W: x @ W.T)),
    Mistake("summed_over_outputs", "summed x[k] * W[k, j] over j instead of k (shape (d_in,))",
            "entry j of the projection adds x[k] * W[k, j] over the d_in rows k of W: the "
            "result has d_out entries.", lambda x, W: (x[:, None] * W).sum(dim=1)),
    Mistake("not_summed", "multiplied x into W but never summed (shape (d_in, d_out))",
            "after multiplying x[k] into row k of W, add the d_in rows up: x @ W.",
            lambda x, W: x[:, None] * W),
    Mistake("first_input_skipped", "left out x[0] * W[0, :] (k starts at 1)",
            "sum over every input dimension k, from 0 to d_in - 1.",
            lambda x, W: x[1:] @ W[1:]),
    Mistake("last_input_skipped", "left out the last input dimension (k < d_in - 1)",
            "sum over every input dimension: k < d_in, not k < d_in - 1.",
            lambda x, W: x[:-1] @ W[:-1]),
]


def every_row(mistake):
    """The (T, d_out) form of a one-token mistake: row t is mistake(inputs[t], W)."""
    def wrong(inputs, W):
        rows = [mistake.wrong(inputs[t], W) for t in range(inputs.shape[0])]
        if any(row is None or row.shape != (W.shape[1],) for row in rows):
            return None
        return torch.stack(rows)
    return Mistake(mistake.slug, mistake.name, mistake.hint, wrong, mistake.family)


ROWS = [
    *(every_row(mistake) for mistake in TOKEN),
    Mistake("first_token_only", "projected only the first token, for every row",
            "row t of the result is inputs[t] @ W: project every token, not just one.",
            lambda inputs, W: (inputs[0] @ W).expand(inputs.shape[0], -1).clone()),
]

# project_columns(W, X, b) -> (d_out, N): W @ X + b.
COLUMNS = [
    Mistake("forgot_bias", "left out the bias b",
            "the column convention adds a bias: q = W x + b, with b a (d_out, 1) column "
            "added to every column of W X.", lambda W, X, b: W @ X),
    Mistake("bias_first_column_only", "added b to the first column only",
            "b is added to EVERY column (every token): W X + b broadcasts the (d_out, 1) "
            "column b across the N columns.",
            lambda W, X, b: torch.cat([W @ X[:, :1] + b, W @ X[:, 1:]], dim=1)
            if X.shape[1] > 1 else None),
    Mistake("bias_subtracted", "subtracted the bias",
            "q = W x + b: the bias is added.", lambda W, X, b: W @ X - b),
    Mistake("transposed_weight", "multiplied by W.T instead of W",
            "in the column convention W is (d_out, D) and multiplies from the LEFT: W x, a "
            "(d_out, 1) column.", lambda W, X, b: W.T @ X + b if W.shape[0] == W.shape[1]
            else None),
    Mistake("bias_times_x", "multiplied by the bias instead of adding it",
            "the bias is ADDED after the product: W x + b.", lambda W, X, b: (W @ X) * b),
]

PROJECT_TOKEN = Kind(
    name="project_token", inputs=("x", "W"), outputs=("projection",),
    function=trainable.project_token,
    scale=lambda x, W: x @ W,
    reduction=lambda x, W: {"projection": W.shape[0]},
    mistakes=lambda x, W: TOKEN,
)

PROJECT_ROWS = Kind(
    name="project_rows", inputs=("inputs", "W"), outputs=("projections",),
    function=trainable.project_rows,
    scale=lambda inputs, W: inputs @ W,
    reduction=lambda inputs, W: {"projections": W.shape[0]},
    mistakes=lambda inputs, W: ROWS,
    tokens=(("row", 0, 6),),
)

PROJECT_COLUMNS = Kind(
    name="project_columns", inputs=("W", "X", "b"), outputs=("projections",),
    function=trainable.project_columns,
    scale=lambda W, X, b: W @ X + b,
    reduction=lambda W, X, b: {"projections": W.shape[1] + 1},
    mistakes=lambda W, X, b: COLUMNS,
    tokens=(("column", 1, 3),),  # 12_1_Self_Attention.ipynb has N = 3 tokens
)


def weight(draw, n_in, n_out, signed):
    """A torch.rand weight (d_in, d_out) as in 001 In [12], or with `signed` a randn one
    (the notebook's weights are all positive)."""
    return draw.randn(n_in, n_out) if signed else draw.uniform(0.0, 1.0, n_in, n_out)


def token_and_weight(d_in, d_out, square=False, signed=False):
    """make(draw): a randn token (d_in,) and a weight (d_in, d_out) (see weight()); sizes are
    (public size, hidden range); `square`: d_out = d_in."""
    def make(draw):
        n_in = draw.size(*d_in)
        n_out = n_in if square else draw.size(*d_out)
        return {"x": draw.randn(n_in), "W": weight(draw, n_in, n_out, signed)}
    return make


def inputs_and_weight(tokens, d_in, d_out, square=False, signed=False):
    """make(draw): randn inputs (T, d_in) and a weight (d_in, d_out) (see weight())."""
    def make(draw):
        T, n_in = draw.size(*tokens), draw.size(*d_in)
        n_out = n_in if square else draw.size(*d_out)
        return {"inputs": draw.randn(T, n_in), "W": weight(draw, n_in, n_out, signed)}
    return make


def column_data(d_out, D, N, square=False):
    """make(draw): randn W (d_out, D), X (D, N) and b (d_out, 1), as 003 In [1], In [2]."""
    def make(draw):
        n_D, n_N = draw.size(*D), draw.size(*N)
        n_out = n_D if square else draw.size(*d_out)
        return {"W": draw.randn(n_out, n_D), "X": draw.randn(n_D, n_N),
                "b": draw.randn(n_out, 1)}
    return make


@recorder("06")
def record(exercise):
    if exercise.public:
        trainable.check_printed()
    for seed in (42, 123):
        step = trainable.RowStep(seed)
        weights = f"weights at seed {seed}" + (", as the course's copy prints" if seed == 42
                                               else "")
        for name, W in (("query", step.W_query), ("key", step.W_key), ("value", step.W_value)):
            exercise.notebook(f"token_seed{seed}_{name}_2", PROJECT_TOKEN,
                              f"ch03.ipynb In [17] ({name}_2 = x_2 @ W_{name}, {weights})",
                              x=step.x_2, W=W)
        for name, W in (("keys", step.W_key), ("values", step.W_value)):
            exercise.notebook(f"rows_seed{seed}_{name}", PROJECT_ROWS,
                              f"ch03.ipynb In [18] ({name} = inputs @ W_{name[:-1]}, {weights})",
                              inputs=step.inputs, W=W)
    seeded = ROW_CELL + " on a seeded randn token and torch.rand weight"
    exercise.drawn("token_odd_shape", PROJECT_TOKEN, seeded,
                   token_and_weight((5, (2, 8)), (3, (1, 8))), seed=601)
    exercise.drawn("token_square", PROJECT_TOKEN, seeded + ", d_in = d_out",
                   token_and_weight((4, (2, 8)), None, square=True), seed=602)
    seeded = ROW_CELL + " on seeded randn inputs and a torch.rand weight"
    exercise.drawn("rows_odd_shape", PROJECT_ROWS, seeded,
                   inputs_and_weight((7, (2, 12)), (5, (2, 8)), (3, (1, 8))), seed=603)
    exercise.drawn("rows_square", PROJECT_ROWS, seeded + ", d_in = d_out",
                   inputs_and_weight((5, (2, 12)), (4, (2, 8)), None, square=True), seed=604)
    # The notebook's shapes with other values, the weights of both signs (a table of the
    # notebook's answers keyed on the shape fails); nine tokens: a loop fixed to the
    # notebook's 6 leaves three rows 0.
    exercise.drawn("token_notebook_shape", PROJECT_TOKEN,
                   ROW_CELL + " on a seeded randn token and weight, the notebook's shapes",
                   token_and_weight((3, (2, 8)), (2, (1, 8)), signed=True), seed=607)
    exercise.drawn("rows_notebook_shape", PROJECT_ROWS,
                   ROW_CELL + " on seeded randn inputs and weight, the notebook's shapes",
                   inputs_and_weight((6, (2, 12)), (3, (2, 8)), (2, (1, 8)), signed=True),
                   seed=608)
    exercise.drawn("rows_nine_tokens", PROJECT_ROWS, seeded + ", nine tokens",
                   inputs_and_weight((9, (8, 16)), (3, (2, 8)), (2, (1, 8))), seed=609)

    steps = trainable.ColumnSteps()
    p = steps.p
    for n in range(trainable.N):
        exercise.notebook(f"columns_x{n + 1}_query", PROJECT_COLUMNS,
                          COLUMN_CELL + f", query of x_{n + 1}",
                          W=p["W_q"], X=steps.all_x[n], b=p["b_q"])
    for name in ("q", "k", "v"):
        exercise.notebook(f"columns_X_{name}", PROJECT_COLUMNS,
                          "12_1_Self_Attention.ipynb Exercise 7 step 1 (PyTorch, seeds 3 and 0)",
                          W=p[f"W_{name}"], X=steps.X, b=p[f"b_{name}"])
    seeded = COLUMN_CELL + " on seeded randn W, X and b"
    exercise.drawn("columns_odd_shape", PROJECT_COLUMNS, seeded,
                   column_data((3, (1, 8)), (5, (2, 8)), (7, (2, 12))), seed=605)
    exercise.drawn("columns_square", PROJECT_COLUMNS, seeded + ", d_out = D",
                   column_data(None, (4, (2, 8)), (6, (2, 12)), square=True), seed=606)
    exercise.drawn("columns_notebook_shape", PROJECT_COLUMNS,
                   seeded + ", the notebook's shapes (X of 3 tokens)",
                   column_data(None, (4, (2, 8)), (3, (2, 12)), square=True), seed=610)
    exercise.drawn("columns_one_token_notebook_shape", PROJECT_COLUMNS,
                   seeded + ", the notebook's shapes (one token x_n)",
                   column_data(None, (4, (2, 8)), (1, (1, 1)), square=True), seed=611)

"""Group B's seed data and cells (exercises 06-08): projections and scaled attention step by
step, in both conventions the seeds use.

Row convention, seed 001 §3.4.1 (the book's ch03.ipynb §3.4.1): a token is a ROW, W is
(d_in, d_out) and query_2 = x_2 @ W_query. 001 draws the weights at seed 42
(query_2 = [1.0760, 1.7344]); the public ch03.ipynb draws them at seed 123
(query_2 = [0.4306, 1.4551]). Both are recorded. Seed cells -> public cells:
  001 In [11] (x_2, d_in, d_out)  = ch03.ipynb In [15]
  001 In [12] (torch.rand weights) = In [16]          001 In [13] (query_2) = In [17]
  001 In [14] (keys, values)       = In [18]          001 In [15] (attn_score_22) = In [19]
  001 In [16] (attn_scores_2)      = In [20]          001 In [17] (attn_weights_2) = In [21]
  001 In [18] (context_vec_2)      = In [22]

Column convention, seed 003 (a PyTorch port of udlbook's 12_1_Self_Attention.ipynb): a token
is a COLUMN (D, 1), W is (D_out, D) and q = W x + b. Seed cells: In [1] (inputs at seed 3),
In [2] (weights at seed 0), Exercise 1 In [4] (projections), Exercise 2 In [12] (scaled
scores), Exercise 4 In [20] (weights, the naive softmax of Exercise 3 In [19]), Exercise 5
In [22] (weighted values), Exercise 6 In [26] (all steps per query), Exercise 7 In [27] (X),
In [28] (softmax_cols), In [37] and In [38] (the matrix form, X_prime).

Every function is one cell written the way the seed writes it (loops and all); nothing names
a dtype, so the recorder's float64 reference follows (see notebooks.py).
"""

import math

import torch

from . import notebooks

# ---- row convention (001 §3.4.1) -------------------------------------------------------

D_OUT = 2  # 001 In [11]: d_out = 2 (d_in = 3, the journey inputs' width)


def row_weights(seed):
    """001 In [12] (ch03.ipynb In [16]): W_query, W_key, W_value of shape (d_in, d_out),
    torch.rand after torch.manual_seed(seed): 42 in 001, 123 in the public notebook."""
    d_in = notebooks.journey_inputs().shape[1]
    torch.manual_seed(seed)
    W_query = torch.nn.Parameter(torch.rand(d_in, D_OUT), requires_grad=False)
    W_key = torch.nn.Parameter(torch.rand(d_in, D_OUT), requires_grad=False)
    W_value = torch.nn.Parameter(torch.rand(d_in, D_OUT), requires_grad=False)
    return W_query.data, W_key.data, W_value.data


def project_token(x, W):
    """001 In [13] (ch03.ipynb In [17]): query_2 = x_2 @ W_query."""
    return x @ W


def project_rows(inputs, W):
    """001 In [14] (ch03.ipynb In [18]): keys = inputs @ W_key."""
    return inputs @ W


def attention_scores(query, keys):
    """001 In [16] (ch03.ipynb In [20]): attn_scores_2 = query_2 @ keys.T."""
    return query @ keys.T


def scaled_attention_weights(scores, d_k):
    """001 In [17] (ch03.ipynb In [21]): torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)."""
    return torch.softmax(scores / d_k**0.5, dim=-1)


def weighted_values(weights, values):
    """001 In [18] (ch03.ipynb In [22]): context_vec_2 = attn_weights_2 @ values."""
    return weights @ values


class RowStep:
    """Every tensor of 001 §3.4.1 for the weights drawn at `seed`, query token 2."""

    def __init__(self, seed):
        self.inputs = notebooks.journey_inputs()
        self.x_2 = self.inputs[1]
        self.W_query, self.W_key, self.W_value = row_weights(seed)
        self.query_2 = project_token(self.x_2, self.W_query)
        self.keys = project_rows(self.inputs, self.W_key)
        self.values = project_rows(self.inputs, self.W_value)
        self.d_k = self.keys.shape[-1]
        self.attn_scores_2 = attention_scores(self.query_2, self.keys)
        self.attn_weights_2 = scaled_attention_weights(self.attn_scores_2, self.d_k)
        self.context_vec_2 = weighted_values(self.attn_weights_2, self.values)


# What 001 (seed 42) and the public ch03.ipynb (seed 123) print, at their 4 decimals.
PRINTED_ROW = {
    42: {"query_2": [1.0760, 1.7344],
         "attn_score_22": 3.3338,
         "attn_scores_2": [2.7084, 3.3338, 3.3013, 1.7563, 1.7869, 2.1966],
         "attn_weights_2": [0.1723, 0.2681, 0.2620, 0.0879, 0.0898, 0.1200],
         "context_vec_2": [1.4201, 0.8892]},
    123: {"query_2": [0.4306, 1.4551],
          "attn_score_22": 1.8524,
          "attn_scores_2": [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440],
          "attn_weights_2": [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820],
          "context_vec_2": [0.3061, 0.8210]},
}

# ---- column convention (003 Exercises 1-7) ---------------------------------------------

N, D = 3, 4  # 003 In [1]: three inputs of dimension 4


def column_inputs():
    """003 In [1]: all_x, three (D, 1) columns of torch.randn after torch.manual_seed(3)."""
    torch.manual_seed(3)
    all_x = []
    for n in range(N):
        x = torch.randn(size=(D, 1))
        all_x.append(x)
    return all_x


def column_parameters():
    """003 In [2]: W_q, W_k, W_v (D, D) and b_q, b_k, b_v (D, 1) after torch.manual_seed(0)."""
    torch.manual_seed(0)
    W_q = torch.randn(size=(D, D))
    W_k = torch.randn(size=(D, D))
    W_v = torch.randn(size=(D, D))
    b_q = torch.randn(size=(D, 1))
    b_k = torch.randn(size=(D, 1))
    b_v = torch.randn(size=(D, 1))
    return {"W_q": W_q, "W_k": W_k, "W_v": W_v, "b_q": b_q, "b_k": b_k, "b_v": b_v}


def column_matrix(all_x):
    """003 In [27]: X (D, N), whose columns are all_x."""
    X = torch.zeros((all_x[0].shape[0], len(all_x)))
    for n, x in enumerate(all_x):
        X[:, n] = x.squeeze()
    return X


def project_columns(W, X, b):
    """003 Exercise 1 In [4] (one x) and Exercise 7 In [37] step 1 (all of X):
    torch.matmul(W, X) + b."""
    return torch.matmul(W, X) + b


def scaled_scores_column(keys, query):
    """003 Exercise 2 In [12], for one query: dot(q, k_m) / sqrt(D) for every key column
    k_m of keys (d_k, N); the seed's D is d_k = query.shape[0]."""
    D_k = query.shape[0]
    query_keys_attention_scores = []
    for m in range(keys.shape[1]):
        key = keys[:, m:m + 1]
        dot_product = torch.matmul(query.T, key).squeeze()
        scaled_dot_product = dot_product / math.sqrt(D_k)
        query_keys_attention_scores.append(scaled_dot_product)
    return torch.stack(query_keys_attention_scores)


def weighted_values_column(weights, values):
    """003 Exercise 5 In [22], for one query: sum over m of weights[m] * v_m, the value
    columns v_m of values (d_v, N); a (d_v, 1) column."""
    attention_weighted_values = []
    for m in range(values.shape[1]):
        attention_weighted_values.append(weights[m] * values[:, m:m + 1])
    return torch.sum(torch.stack(attention_weighted_values), dim=0)


def self_attention_column_query(queries, keys, values, n):
    """003 Exercise 6 In [26], for query n: scores scaled by sqrt(D), the naive softmax,
    the weighted sum of the values; a (d_v, 1) column."""
    D_k = queries.shape[0]
    all_km_qn = []
    for m in range(keys.shape[1]):
        key = keys[:, m:m + 1]
        dot_product = torch.matmul(key.T, queries[:, n:n + 1]).squeeze() / torch.sqrt(
            torch.tensor(D_k, dtype=queries.dtype))
        all_km_qn.append(dot_product)
    all_km_qn = torch.stack(all_km_qn)
    attention = notebooks.softmax(all_km_qn)
    return torch.sum(torch.stack([attention[i] * values[:, i:i + 1]
                                  for i in range(values.shape[1])]), dim=0)


def attention_weights_columns(queries, keys):
    """003 Exercise 7 In [37] steps 2-4: softmax_cols(keys.T @ queries / sqrt(d_k)); column
    n holds query n's weights."""
    attention_scores = torch.matmul(keys.T, queries)
    d_k = torch.tensor(keys.shape[0], dtype=queries.dtype)
    scaled_attention_scores = attention_scores / torch.sqrt(d_k)
    return notebooks.softmax_cols(scaled_attention_scores)


def scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k):
    """003 Exercise 7 In [37] (called in In [38]): the matrix form, X_prime (d_v, N)."""
    queries = torch.matmul(W_q, X) + b_q
    keys = torch.matmul(W_k, X) + b_k
    values = torch.matmul(W_v, X) + b_v
    attention_scores = torch.matmul(keys.T, queries)
    d_k = torch.tensor(keys.shape[0], dtype=X.dtype)
    scaled_attention_scores = attention_scores / torch.sqrt(d_k)
    attention_weights = notebooks.softmax_cols(scaled_attention_scores)
    X_prime = torch.matmul(values, attention_weights)
    return X_prime


class ColumnSteps:
    """Every tensor of 003 Exercises 1-7."""

    def __init__(self):
        self.all_x = column_inputs()
        self.p = column_parameters()
        self.X = column_matrix(self.all_x)
        p = self.p
        self.queries = project_columns(p["W_q"], self.X, p["b_q"])
        self.keys = project_columns(p["W_k"], self.X, p["b_k"])
        self.values = project_columns(p["W_v"], self.X, p["b_v"])
        self.scores = [scaled_scores_column(self.keys, self.queries[:, n:n + 1])
                       for n in range(N)]
        self.weights = [notebooks.softmax(scores) for scores in self.scores]
        self.x_prime = [weighted_values_column(w, self.values) for w in self.weights]
        self.X_prime = scaled_dot_product_self_attention(
            self.X, p["W_v"], p["W_q"], p["W_k"], p["b_v"], p["b_q"], p["b_k"])


# What 003 prints, at its decimals (4 after the point; Exercise 4's third row in e-notation
# with 5 significant digits).
PRINTED_COLUMN = {
    "x": [[0.8033, 0.1748, 0.0890, -0.6137], [0.0462, -1.3683, 0.3375, 1.0111],
          [-1.4352, 0.9774, 0.5220, 1.2379]],
    "scores": [[-2.8869, 3.6531, -1.1920], [0.0760, 4.2115, 4.1211],
               [0.8152, -6.1015, 1.6231]],
    "weights": [[0.0014, 0.9908, 0.0078], [0.0083, 0.5183, 0.4735],
                [3.0824e-01, 3.0549e-04, 6.9145e-01]],
    "x_prime": [[0.2117, 1.0697, -3.3355, -4.9260], [0.6486, 0.9883, -2.4109, -3.0185],
                [0.6463, 0.8405, -1.6421, -0.0805]],
    "X_prime": [[0.2117, 0.6486, 0.6463], [1.0697, 0.9883, 0.8405],
                [-3.3355, -2.4109, -1.6421], [-4.9260, -3.0185, -0.0805]],
}


def _agrees(value, printed, decimals=4):
    """True when float `value` prints as `printed` in torch's format: `decimals` decimals (4
    by default, 3 under set_printoptions(precision=3)), or 5 significant digits for a number
    below 1e-3 (torch's e-notation at the default precision), up to a few float32
    roundings where the value sits on a rounding boundary: 003 prints X_prime[2, 2] as
    -1.6421, recomputed here as -1.64215004 (the seed's BLAS summed in another order)."""
    if printed != 0 and abs(printed) < 1e-3:
        half_unit = 0.5 * 10.0 ** (math.floor(math.log10(abs(printed))) - 4)
        return abs(value - printed) <= half_unit * 1.001
    return abs(value - printed) <= 0.5 * 10.0**-decimals + 4 * 1.2e-7 * max(1.0, abs(value))


def require_printed(what, tensor, printed, decimals=4):
    """Raises unless every entry of `tensor` agrees with the seed's printed `printed` at the
    printed `decimals`: the goldens reproduce the seeds."""
    values = torch.as_tensor(tensor, dtype=torch.float64).flatten().tolist()
    flat = torch.as_tensor(printed, dtype=torch.float64).flatten().tolist()
    if len(values) != len(flat) or not all(_agrees(value, shown, decimals)
                                           for value, shown in zip(values, flat)):
        raise ValueError(f"{what}: recorded {values}, but the seed prints {flat}")


def check_printed():
    """Every value the seeds print for exercises 06-08, against the recomputed cells."""
    for seed, printed in PRINTED_ROW.items():
        step = RowStep(seed)
        require_printed(f"query_2 (seed {seed})", step.query_2, printed["query_2"])
        require_printed(f"attn_score_22 (seed {seed})", step.attn_scores_2[1],
                        printed["attn_score_22"])
        for name in ("attn_scores_2", "attn_weights_2", "context_vec_2"):
            require_printed(f"{name} (seed {seed})", getattr(step, name), printed[name])
    steps = ColumnSteps()
    require_printed("003 all_x", torch.stack([x.squeeze() for x in steps.all_x]),
                    PRINTED_COLUMN["x"])
    require_printed("003 Exercise 2 scores", torch.stack(steps.scores), PRINTED_COLUMN["scores"])
    require_printed("003 Exercise 4 weights", torch.stack(steps.weights),
                    PRINTED_COLUMN["weights"])
    require_printed("003 Exercise 5 x_prime", torch.stack([x.squeeze() for x in steps.x_prime]),
                    PRINTED_COLUMN["x_prime"])
    require_printed("003 Exercise 7 X_prime", steps.X_prime, PRINTED_COLUMN["X_prime"])

"""The self-attention modules of exercises 09-11 (SelfAttention_v1, SelfAttention_v2 and the
book's Exercise 3.1): their parameters as case inputs, their forward passes, error scales and
mistake families.

Parameters are case inputs named after the PyTorch module's state_dict() keys, so a case
folder mirrors the module: v1's `W_query.npy`, `W_key.npy`, `W_value.npy` (each (d_in, d_out)),
v2's `W_query.weight.npy` (d_out, d_in), `W_query.bias.npy` (d_out,) with qkv_bias=True, ...
The dot in a key is kept: the kit finds an input as `<case>/<name>.npy`, and only output names
(never inputs) are split at their first dot (`mistakes/<output>.<slug>.npy`).

Notebook parameters come from the notebooks' own classes (notebooks.py) at the notebook's
seed: `torch.manual_seed(seed)`, then the constructor draws them as the cell does. Drawn cases
draw them from the case's generator: v1's from U(0, 1) like torch.rand, v2's from
U(-1/sqrt(d_in), 1/sqrt(d_in)) like nn.Linear's default init.

A kind's function rebuilds the notebook's module from the case's parameters
(load_state_dict) and calls it, so a golden is what the notebook's forward computes.
"""

from dataclasses import dataclass
import math

import torch

from . import notebooks
from .bounds import Tracked
from .cases import Kind
from .mistakes import Mistake

V1_KEYS = ("W_query", "W_key", "W_value")
V2_KEYS = ("W_query.weight", "W_key.weight", "W_value.weight")
V2_BIAS_KEYS = ("W_query.weight", "W_query.bias", "W_key.weight", "W_key.bias",
                "W_value.weight", "W_value.bias")  # state_dict() order with qkv_bias=True


def detached_state(module):
    return {key: value.detach().clone() for key, value in module.state_dict().items()}


def seeded_v1(seed, d_in, d_out):
    """SelfAttention_v1's state_dict after `torch.manual_seed(seed)` (ch03.ipynb In [23])."""
    torch.manual_seed(seed)
    return detached_state(notebooks.SelfAttention_v1(d_in, d_out))


def seeded_v2(seed, d_in, d_out, qkv_bias=False):
    """SelfAttention_v2's state_dict after `torch.manual_seed(seed)` (ch03.ipynb In [24])."""
    torch.manual_seed(seed)
    return detached_state(notebooks.SelfAttention_v2(d_in, d_out, qkv_bias=qkv_bias))


def drawn_v1(draw, d_in, d_out):
    """v1 parameters drawn like torch.rand: U(0, 1)."""
    return {key: draw.uniform(0.0, 1.0, d_in, d_out) for key in V1_KEYS}


def drawn_v2(draw, d_in, d_out, qkv_bias=False):
    """v2 parameters drawn like nn.Linear's default init: U(-1/sqrt(d_in), 1/sqrt(d_in))."""
    bound = 1.0 / math.sqrt(d_in)
    state = {}
    for layer in ("W_query", "W_key", "W_value"):
        state[f"{layer}.weight"] = draw.uniform(-bound, bound, d_out, d_in)
        if qkv_bias:
            state[f"{layer}.bias"] = draw.uniform(-bound, bound, d_out)
    return state


def _module(cls, state, *args, **kwargs):
    """The notebook's class `cls` holding `state`; building it leaves the global generator
    as it was."""
    with torch.random.fork_rng(devices=[]):
        module = cls(*args, **kwargs)
    module.load_state_dict(state)
    return module


def v1_forward(inputs, W_query, W_key, W_value):
    """ch03.ipynb In [23] (001 §3.4.2 In [19]): SelfAttention_v1(inputs)."""
    d_in, d_out = W_query.shape
    module = _module(notebooks.SelfAttention_v1, dict(zip(V1_KEYS, (W_query, W_key, W_value))),
                     d_in, d_out)
    with torch.no_grad():
        return module(inputs)


def v2_state(parameters):
    """The v2 state_dict of a kind's parameter arguments (V2_KEYS or V2_BIAS_KEYS order)."""
    keys = V2_BIAS_KEYS if len(parameters) == len(V2_BIAS_KEYS) else V2_KEYS
    return dict(zip(keys, parameters))


def v2_forward(inputs, *parameters):
    """ch03.ipynb In [24] (001 §3.4.2 In [21]): SelfAttention_v2(inputs)."""
    state = v2_state(parameters)
    d_out, d_in = state["W_query.weight"].shape
    module = _module(notebooks.SelfAttention_v2, state, d_in, d_out,
                     qkv_bias="W_query.bias" in state)
    with torch.no_grad():
        return module(inputs)


def check_printed(what, computed, printed, decimals=4):
    """Fails the recording unless `computed` prints as `printed` at `decimals` decimals."""
    rounded = torch.round(computed * 10 ** decimals) / 10 ** decimals
    if not torch.allclose(rounded, torch.tensor(printed), atol=0.6 * 10 ** -decimals, rtol=0):
        raise AssertionError(f"{what}: recorded {computed}, the notebook prints {printed}")


# ---- the maths on Tracked values (bounds.py), for the error scales ------------------------

def attention_scale(queries, keys, values):
    """softmax(queries @ keys.T / sqrt(d_k), -1) @ values on Tracked values."""
    d_k = keys.shape[-1]
    return ((queries @ keys.T) / math.sqrt(d_k)).softmax(-1) @ values


def v1_scale(inputs, W_query, W_key, W_value):
    return attention_scale(inputs @ W_query, inputs @ W_key, inputs @ W_value)


def linear_scale(inputs, weight, bias=None):
    projected = inputs @ weight.T
    return projected if bias is None else projected + bias


def v2_projections(inputs, parameters, apply):
    """(queries, keys, values) of v2's parameters, each apply(inputs, weight[, bias])."""
    state = v2_state(parameters)
    return tuple(apply(inputs, state[f"{layer}.weight"], state.get(f"{layer}.bias"))
                 for layer in ("W_query", "W_key", "W_value"))


def v2_scale(inputs, *parameters):
    return attention_scale(*v2_projections(inputs, parameters, linear_scale))


def reduction(inputs, first_parameter):
    """The longest sum behind a context vector: over d_in (projections), d_k (scores) or T
    (the weighted values), whichever is longest."""
    return {"context": max(inputs.shape[0], *inputs.shape[1:], *first_parameter.shape)}


# ---- mistakes -------------------------------------------------------------------------------

def attention_families(project):
    """Mistakes of a forward pass after the projections. project(*arguments) -> (inputs,
    queries, keys, values) as the kind computes them; each mistake goes wrong after that."""
    def wrong(how):
        def result(*arguments):
            inputs, queries, keys, values = project(*arguments)
            return how(inputs, queries, keys, values, keys.shape[-1])
        return result

    def weights(scores, d_k):
        return torch.softmax(scores / d_k ** 0.5, dim=-1)

    return [
        Mistake("unscaled", "left out the division by sqrt(d_k)",
                "scaled dot-product attention divides the scores by sqrt(d_k) = sqrt(d_out) "
                "BEFORE the softmax: softmax(scores / sqrt(d_k), -1). Without it the scores "
                "grow with d_k and softmax turns into a near one-hot step (vanishing "
                "gradients in training).",
                wrong(lambda x, q, k, v, d_k: torch.softmax(q @ k.T, dim=-1) @ v)),
        Mistake("scaled_by_d_k", "divided the scores by d_k instead of sqrt(d_k)",
                "the scale is the SQUARE ROOT of the keys' width: keys.shape[-1] ** 0.5, "
                "std::sqrt(d_k).",
                wrong(lambda x, q, k, v, d_k: torch.softmax(q @ k.T / d_k, dim=-1) @ v)),
        Mistake("scaled_by_d_in", "divided the scores by sqrt(d_in), the inputs' width",
                "d_k is the width of the KEYS, d_out (keys.shape[-1]), not of the inputs.",
                wrong(lambda x, q, k, v, d_k: weights(q @ k.T, x.shape[-1]) @ v)),
        Mistake("multiplied_by_sqrt", "multiplied the scores by sqrt(d_k)",
                "divide the scores by sqrt(d_k): the scaling makes them smaller.",
                wrong(lambda x, q, k, v, d_k: torch.softmax(q @ k.T * d_k ** 0.5, dim=-1) @ v)),
        Mistake("scaled_after_softmax", "divided the weights, not the scores, by sqrt(d_k)",
                "scale the scores before the softmax; dividing the weights afterwards leaves "
                "rows that no longer sum to 1.",
                wrong(lambda x, q, k, v, d_k: torch.softmax(q @ k.T, dim=-1) / d_k ** 0.5 @ v)),
        Mistake("column_softmax", "softmax over the columns (dim=0)",
                "each ROW of the weights belongs to one query and sums to 1: softmax(scores, "
                "-1).", wrong(lambda x, q, k, v, d_k: torch.softmax(q @ k.T / d_k ** 0.5,
                                                                    dim=0) @ v)),
        Mistake("keys_times_queries", "scored keys @ queries.T (the scores transposed)",
                "row i of the scores belongs to query i: queries @ keys.T.",
                wrong(lambda x, q, k, v, d_k: weights(k @ q.T, d_k) @ v)),
        Mistake("weights_transposed", "multiplied the values by the transposed weights",
                "context = weights @ values, with row i of the weights for query i.",
                wrong(lambda x, q, k, v, d_k: weights(q @ k.T, d_k).T @ v)),
        Mistake("queries_as_keys", "used the queries as keys (queries @ queries.T)",
                "the keys come from the KEY projection: keys = x @ W_key.",
                wrong(lambda x, q, k, v, d_k: weights(q @ q.T, d_k) @ v)),
        Mistake("keys_as_values", "used the keys as values (values from W_key)",
                "the values come from the VALUE projection: values = x @ W_value.",
                wrong(lambda x, q, k, v, d_k: weights(q @ k.T, d_k) @ k)),
        Mistake("weighted_inputs", "weighted the inputs instead of the values",
                "in exercise 05 the inputs were weighted; with trainable weights the context "
                "vectors are weights @ values, of width d_out.",
                wrong(lambda x, q, k, v, d_k: weights(q @ k.T, d_k) @ x)),
        Mistake("returned_weights", "returned the attention weights (T, T)",
                "multiply the weights by the values: context = weights @ values.",
                wrong(lambda x, q, k, v, d_k: weights(q @ k.T, d_k))),
        Mistake("returned_values", "returned the values (no attention)",
                "the values still have to be mixed: context = softmax(scores / sqrt(d_k)) @ "
                "values.", wrong(lambda x, q, k, v, d_k: v)),
    ]


def v1_projections(inputs, W_query, W_key, W_value):
    return inputs, inputs @ W_query, inputs @ W_key, inputs @ W_value


def linear(inputs, weight, bias=None):
    """nn.Linear's forward: inputs @ weight.T + bias."""
    projected = inputs @ weight.T
    return projected if bias is None else projected + bias


def v2_projections_of(apply):
    return lambda inputs, *parameters: (inputs, *v2_projections(inputs, parameters, apply))


def untransposed(inputs, weight, bias=None):
    """x @ weight, forgetting that nn.Linear stores weight (d_out, d_in); None unless square."""
    if weight.shape[0] != weight.shape[1]:
        return None
    return linear(inputs, weight.T, bias)


def v2_with(apply):
    """forward with the projections computed by `apply`; None where `apply` gives None."""
    def result(inputs, *parameters):
        queries, keys, values = v2_projections(inputs, parameters, apply)
        if queries is None:
            return None
        return torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1) @ values
    return result


V1_MISTAKES = attention_families(v1_projections)

V2_MISTAKES = [
    Mistake("weight_not_transposed", "multiplied x @ weight, without transposing the weight",
            "nn.Linear stores its weight as (d_out, d_in), one row per output: a layer "
            "computes x @ weight.T (+ bias). The shapes hide this slip only when d_in == d_out.",
            v2_with(untransposed)),
    *attention_families(v2_projections_of(linear)),
]

V2_BIAS_MISTAKES = [
    Mistake("bias_ignored", "left out the biases",
            "with qkv_bias=True each layer adds its bias after the product: x @ weight.T + "
            "bias (check layer.has_bias()).",
            v2_with(lambda inputs, weight, bias: linear(inputs, weight))),
    Mistake("bias_subtracted", "subtracted the biases",
            "a Linear layer ADDS its bias: x @ weight.T + bias.",
            v2_with(lambda inputs, weight, bias: linear(inputs, weight) - bias)),
    *V2_MISTAKES,
]


# ---- Exercise 3.1: the transfer ------------------------------------------------------------

def transferred_v1(v2_parameters, v1_parameters):
    """exercise-solutions.ipynb In [5] (000 In [10]): a v1 holding `v1_parameters`, given
    v2's weights transposed, as the notebook assigns them."""
    W_query, W_key, W_value = v1_parameters
    d_in, d_out = W_query.shape
    sa_v1 = _module(notebooks.SelfAttention_v1, dict(zip(V1_KEYS, v1_parameters)), d_in, d_out)
    sa_v2 = _module(notebooks.SelfAttention_v2, v2_state(v2_parameters), d_in, d_out)
    sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
    sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
    sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)
    return sa_v1, sa_v2


def transfer(*parameters):
    """The three transferred v1 matrices, stacked (3, d_in, d_out): the outputs W_query,
    W_key and W_value. Arguments: v2's three weights, then v1's three matrices."""
    sa_v1, _ = transferred_v1(parameters[:3], parameters[3:])
    return torch.stack([sa_v1.W_query, sa_v1.W_key, sa_v1.W_value]).detach()


def transferred_forward(inputs, *parameters):
    """exercise-solutions.ipynb In [5], In [6]: the transferred v1 on the inputs; equal to
    In [7], the v2 itself (checked at record time)."""
    sa_v1, sa_v2 = transferred_v1(parameters[:3], parameters[3:])
    with torch.no_grad():
        out_v1, out_v2 = sa_v1(inputs), sa_v2(inputs)
    if not torch.allclose(out_v1, out_v2, atol=1e-6):  # the point of Exercise 3.1
        raise AssertionError("Exercise 3.1: the transferred v1 differs from the v2")
    return out_v1


def split_transferred(stacked):
    """The outputs of the transfer kind: its (3, d_in, d_out) result, one matrix each."""
    return {key: stacked[i] for i, key in enumerate(V1_KEYS)}


def transfer_scale(*parameters):
    """Copying rounds nothing: each output's scale is its |value| (stored_scale's floor)."""
    value = torch.stack([weight.value.T for weight in parameters[:3]])
    return Tracked(value, value.abs())


@dataclass(frozen=True)
class TransferKind(Kind):
    """A kind whose outputs are the matrices a module ends up holding: an argument passed
    back is no answer it could give (the call returns nothing), so of the placeholder
    answers only all_zeros applies."""

    def all_mistakes(self, arguments):
        return [mistake for mistake in super().all_mistakes(arguments)
                if mistake.family != "returned_input"]


def _transfer_mistake(slug, name, hint, matrices):
    """matrices(v2 weights, v1 matrices) -> the three matrices v1 ends up with."""
    def stacked(*parameters):
        result = matrices(parameters[:3], parameters[3:])
        return None if result is None else torch.stack(result)

    def forward(inputs, *parameters):
        result = matrices(parameters[:3], parameters[3:])
        if result is None or result[0].shape[0] != inputs.shape[1]:
            return None  # x @ W fails: the C++ forward throws, naming the shapes
        return v1_forward(inputs, *result)
    return Mistake(slug, name, hint, stacked), Mistake(slug, name, hint, forward)


_NOT_TRANSPOSED_HINT = (
    "nn.Linear stores weight as (d_out, d_in), v1 multiplies x @ W with W (d_in, d_out): copy "
    "weight.T (xt::transpose(from.W_query.weight)). The book's hint: \"nn.Linear stores the "
    "weight matrix in a transposed form\". In C++ the assignment resizes the Matrix silently, "
    "where PyTorch's copy_ would refuse.")

TRANSFER_FAMILIES = [
    _transfer_mistake(
        "not_transposed", "copied nn.Linear's weights without the transpose",
        _NOT_TRANSPOSED_HINT, lambda v2, v1: list(v2)),
    _transfer_mistake(
        "nothing_copied", "the weights were not copied: v1 kept its own",
        "assign the three transposed weights to to.W_query, to.W_key and to.W_value; `to` "
        "is a reference, so the assignment changes the caller's module.",
        lambda v2, v1: list(v1)),
    _transfer_mistake(
        "query_key_swapped", "W_query and W_key swapped",
        "each v1 matrix takes the weight of the layer with the same name: W_query from "
        "W_query.weight, W_key from W_key.weight.",
        lambda v2, v1: [v2[1].T, v2[0].T, v2[2].T]),
    _transfer_mistake(
        "key_value_swapped", "W_key and W_value swapped",
        "each v1 matrix takes the weight of the layer with the same name: W_key from "
        "W_key.weight, W_value from W_value.weight.",
        lambda v2, v1: [v2[0].T, v2[2].T, v2[1].T]),
    _transfer_mistake(
        "all_from_query", "copied W_query.weight into all three",
        "a copy-paste slip: W_key and W_value come from W_key.weight and W_value.weight.",
        lambda v2, v1: [v2[0].T] * 3),
]

TRANSFER_MISTAKES = [stacked for stacked, _ in TRANSFER_FAMILIES]
TRANSFERRED_FORWARD_MISTAKES = [forward for _, forward in TRANSFER_FAMILIES]

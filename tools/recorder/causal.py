"""Group C, causal attention (exercises 12-15): the cells of ch03.ipynb §3.5 and their error
scales, shared by exercises/ex12_* to ex15_*.

Seeds: 001 §3.5 (In [23] to In [33]; its SelfAttention_v2 at seed 42) and the public
ch03.ipynb (In [25] to In [34]; SelfAttention_v2 at seed 789, CausalAttention at seed 123),
whose cells are what students read. Seed 001 In [23] = ch03.ipynb In [25] (the weights to
mask), In [24] = In [26] (tril), In [25] = In [27] (masked_simple), In [26] = In [28]
(masked_simple_norm), In [27] = In [29] (-inf), In [28] = In [30] (softmax), In [30] and
In [31] = In [31] and In [32] (dropout), In [33] = In [34] (CausalAttention), In [35] =
In [35] (two heads in MultiHeadAttentionWrapper).

Nothing here names a dtype: the recorder re-runs a cell in float64 by changing torch's
default dtype, and the cell follows.
"""

import math

import torch
import torch.nn.functional as F

from . import notebooks
from .bounds import Tracked


# ---- the notebook's data ---------------------------------------------------------------

def self_attention_v2_scores(seed):
    """(attn_scores, d_k) of ch03.ipynb In [25]: queries @ keys.T of SelfAttention_v2(3, 2)
    made right after torch.manual_seed(seed) (001 uses seed 42, ch03.ipynb seed 789)."""
    inputs = notebooks.journey_inputs()
    torch.manual_seed(seed)
    sa_v2 = notebooks.SelfAttention_v2(inputs.shape[1], 2)
    with torch.no_grad():
        queries = sa_v2.W_query(inputs)
        keys = sa_v2.W_key(inputs)
        attn_scores = queries @ keys.T
    return attn_scores, keys.shape[-1]


def self_attention_v2_weights(seed):
    """ch03.ipynb In [25]: torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)."""
    attn_scores, d_k = self_attention_v2_scores(seed)
    return torch.softmax(attn_scores / d_k**0.5, dim=-1)


def journey_batch():
    """ch03.ipynb In [33]: batch = torch.stack((inputs, inputs), dim=0), shape (2, 6, 3)."""
    inputs = notebooks.journey_inputs()
    return torch.stack((inputs, inputs), dim=0)


def state_dict_of(module, prefix=""):
    """A module's weights (and biases, with qkv_bias=True) under its state_dict() keys, the
    mask buffer left out (the C++ module builds it from context_length)."""
    return {prefix + key: value.detach().clone() for key, value in module.state_dict().items()
            if key.endswith((".weight", ".bias"))}


# ---- the cells ---------------------------------------------------------------------------

def tril_mask(context_length):
    """ch03.ipynb In [26]: mask_simple = torch.tril(torch.ones(context_length, context_length))."""
    return torch.tril(torch.ones(context_length, context_length))


def future_mask(context_length):
    """ch03.ipynb In [29] and CausalAttention's buffer: 1 above the diagonal."""
    return torch.triu(torch.ones(context_length, context_length), diagonal=1)


def apply_tril_mask(attn_weights):
    """ch03.ipynb In [27]: masked_simple = attn_weights * mask_simple."""
    return attn_weights * tril_mask(attn_weights.shape[0])


def mask_and_renormalize(attn_weights):
    """ch03.ipynb In [27] and In [28]: masked_simple / its row sums."""
    masked_simple = apply_tril_mask(attn_weights)
    row_sums = masked_simple.sum(dim=-1, keepdim=True)
    return masked_simple / row_sums


def mask_future(attn_scores):
    """ch03.ipynb In [29]: attn_scores.masked_fill(mask.bool(), -torch.inf)."""
    return attn_scores.masked_fill(future_mask(attn_scores.shape[0]).bool(), -torch.inf)


def causal_attention_weights(attn_scores, d_k):
    """ch03.ipynb In [29] and In [30]: torch.softmax(masked / d_k**0.5, dim=-1)."""
    return torch.softmax(mask_future(attn_scores) / d_k**0.5, dim=-1)


def renormalized_the_long_way(attn_scores, d_k):
    """Exercise 12's way to the same weights: softmax(scores / sqrt(d_k)), then the tril mask
    and the row sums (In [25], In [27], In [28])."""
    return mask_and_renormalize(torch.softmax(attn_scores / d_k**0.5, dim=-1))


def two_ways_difference(attn_scores, d_k):
    """The -inf way minus the renormalising way: zero up to rounding, the point of In [30]."""
    return causal_attention_weights(attn_scores, d_k) - renormalized_the_long_way(attn_scores, d_k)


def dropout(x, keep, p, training):
    """Inverted dropout with an explicit keep mask (1 keeps, 0 drops), as nn.Dropout(p)
    computes it in training mode (ch03.ipynb In [31], In [32]): ATen's x * (keep / (1 - p)),
    1 - p taken in double,
    zeros at p = 1, and x itself in eval mode. check_dropout_formula() holds PyTorch to it."""
    if not training:
        return x.clone()
    if float(p) == 1.0:
        return x * 0
    return x * (keep / (1 - float(p)))  # 1 - p in double, as ATen computes it


def check_dropout_formula():
    """PyTorch's own nn.Dropout, whatever pattern it draws, equals dropout() with that
    pattern as the keep mask, and is the identity at p = 0 and in eval mode. Runs on a
    forked RNG (no test reseeds PyTorch's pattern, which differs between builds)."""
    with torch.random.fork_rng():
        x = torch.rand(40, 40) + 0.5  # no zeros, so the pattern is where the result is 0
        for p in (0.1, 0.5, 0.8):
            p = torch.tensor(p)  # float32, as a case stores it
            layer = torch.nn.Dropout(float(p))
            got = layer(x)
            keep = (got != 0).to(x.dtype)
            if not torch.equal(got, dropout(x, keep, p, True)):
                raise AssertionError(f"nn.Dropout({p}) is not x * (keep / (1 - p))")
            layer.eval()
            if not torch.equal(layer(x), x):
                raise AssertionError("nn.Dropout in eval mode is not the identity")
        if not torch.equal(F.dropout(x, 0.0, training=True), x):
            raise AssertionError("nn.Dropout(0.0) is not the identity")


def causal_attention_module(W_query, W_key, W_value, context_length, biases=None):
    """ch03.ipynb In [34]'s CausalAttention (notebooks.CausalAttention, 001's stale-`masked`
    bug corrected) with the given (d_out, d_in) weights, dropout 0; no bias, or with
    `biases` = (b_query, b_key, b_value) qkv_bias=True and those biases."""
    d_out, d_in = W_query.shape
    module = notebooks.CausalAttention(d_in, d_out, int(context_length), 0.0,
                                       qkv_bias=biases is not None)
    with torch.no_grad():
        for n, (layer, weight) in enumerate(((module.W_query, W_query), (module.W_key, W_key),
                                             (module.W_value, W_value))):
            layer.weight.copy_(weight)
            if biases is not None:
                layer.bias.copy_(biases[n])
    return module


def causal_attention_forward(x, W_query, W_key, W_value, context_length):
    """ch03.ipynb In [34]: CausalAttention(...)(x) for x of shape (B, T, d_in)."""
    with torch.no_grad():
        return causal_attention_module(W_query, W_key, W_value, context_length)(x)


def causal_attention_forward_bias(x, W_query, b_query, W_key, b_key, W_value, b_value,
                                  context_length):
    """ch03.ipynb In [34] with qkv_bias=True: the layers add their biases (state_dict()
    order: W_query.weight, W_query.bias, W_key.weight, ...)."""
    with torch.no_grad():
        return causal_attention_module(W_query, W_key, W_value, context_length,
                                       biases=(b_query, b_key, b_value))(x)


def two_heads(x, q0, k0, v0, q1, k1, v1, context_length):
    """ch03.ipynb In [35] (MultiHeadAttentionWrapper with two heads): each head's context,
    concatenated along the last dimension."""
    return torch.cat([causal_attention_forward(x, q0, k0, v0, context_length),
                      causal_attention_forward(x, q1, k1, v1, context_length)], dim=-1)


# ---- error scales (bounds.Tracked) ---------------------------------------------------------

def stack(tracked, dim=0):
    return Tracked(torch.stack([t.value for t in tracked], dim),
                   torch.stack([t.scale for t in tracked], dim))


def cat(tracked, dim=-1):
    return Tracked(torch.cat([t.value for t in tracked], dim),
                   torch.cat([t.scale for t in tracked], dim))


def causal_softmax_scale(scores, d_k):
    """The Tracked weights softmax(mask_future(scores) / sqrt(d_k)): row i is the softmax of
    its first i + 1 scores; the masked entries are exact zeros."""
    T = scores.shape[0]
    value = torch.zeros(T, T, dtype=torch.float64)
    scale = torch.zeros(T, T, dtype=torch.float64)
    for i in range(T):
        row = (scores[i][: i + 1] / math.sqrt(d_k)).softmax(0)
        value[i, : i + 1], scale[i, : i + 1] = row.value, row.scale
    return Tracked(value, scale)


def renormalized_scale(weights):
    masked = weights * tril_mask(weights.shape[0]).double()
    return masked / masked.sum(dim=-1, keepdim=True)


def forward_scale(x, W_query, W_key, W_value, biases=(None, None, None)):
    """The Tracked result of the forward pass, batch item by batch item; `biases`: the
    layers' (Tracked) biases, or None each."""
    contexts = []
    for b in range(x.shape[0]):
        queries, keys, values = (x[b] @ W.T if bias is None else x[b] @ W.T + bias
                                 for W, bias in zip((W_query, W_key, W_value), biases))
        weights = causal_softmax_scale(queries @ keys.T, keys.shape[-1])
        contexts.append(weights @ values)
    return stack(contexts)

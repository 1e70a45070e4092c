"""Group D's shared cells: MultiHeadAttentionWrapper (ch03.ipynb In [35]) on weights given by
name, as a case stores them ("heads.0.W_query.weight", ...), or built by HashedUniform
(init.py), and the error scales of its forward."""

import torch

from . import causal as cells
from . import notebooks
from .init import hashed_state

LAYERS = ("W_query", "W_key", "W_value")


def head_names(num_heads, qkv_bias=False):
    """The state_dict keys of a wrapper's heads, in state_dict() order."""
    parts = (".weight", ".bias") if qkv_bias else (".weight",)
    return tuple(f"heads.{h}.{layer}{part}" for h in range(num_heads) for layer in LAYERS
                 for part in parts)


def head_layers(state, h):
    """Head h's three (weight, bias or None) layers from a state_dict."""
    return [(state[f"heads.{h}.{layer}.weight"], state.get(f"heads.{h}.{layer}.bias"))
            for layer in LAYERS]


def wrapper_module(state, num_heads, context_length):
    """ch03.ipynb In [35]'s MultiHeadAttentionWrapper holding `state`'s weights, dropout 0."""
    d_out, d_in = state["heads.0.W_query.weight"].shape
    qkv_bias = "heads.0.W_query.bias" in state
    module = notebooks.MultiHeadAttentionWrapper(d_in, d_out, int(context_length), 0.0,
                                                 int(num_heads), qkv_bias=qkv_bias)
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(state[name])
    return module


def wrapper_forward(x, state, num_heads, context_length):
    with torch.no_grad():
        return wrapper_module(state, num_heads, context_length)(x)


def hashed_wrapper(seed, d_in, d_out, context_length, num_heads, qkv_bias=False):
    """MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads, qkv_bias) with
    the parameters attn::HashedUniform(seed) gives the C++ module."""
    module = notebooks.MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads,
                                                 qkv_bias=qkv_bias)
    return hashed_state(module, seed)


def head_scale(x, layers):
    """The Tracked forward of one CausalAttention head; layers: (weight, bias or None) x 3."""
    weights = [weight for weight, _ in layers]
    return cells.forward_scale(x, *weights, biases=tuple(bias for _, bias in layers))


def wrapper_scale(x, state, num_heads):
    """The Tracked wrapper output: every head's, side by side."""
    return cells.cat([head_scale(x, head_layers(state, h)) for h in range(int(num_heads))])


def wrapper_reduction(x, d_out, qkv_bias=False):
    """The longest sum behind a context value: the projections' d_in products (+ a bias), the
    scores' d_out, the weighted sum over T tokens."""
    return max(x.shape[1], x.shape[2] + int(qkv_bias), d_out)


def state_of(module):
    """A module's parameters by state_dict name (buffers left out: C++ builds the mask)."""
    return cells.state_dict_of(module)


# ---- the fused MultiHeadAttention (ch03.ipynb In [36]) -------------------------------------

MHA_LAYERS = ("W_query", "W_key", "W_value", "out_proj")


def mha_names(qkv_bias=False):
    """The state_dict keys of a MultiHeadAttention's parameters, in state_dict() order."""
    qkv = [f"{layer}{part}" for layer in LAYERS
           for part in ((".weight", ".bias") if qkv_bias else (".weight",))]
    return (*qkv, "out_proj.weight", "out_proj.bias")


def split(projected, num_heads):
    """view(b, T, num_heads, head_dim).transpose(1, 2)."""
    b, T, d_out = projected.shape
    return projected.view(b, T, num_heads, d_out // num_heads).transpose(1, 2).contiguous()


def merge(heads):
    """transpose(1, 2).contiguous().view(b, T, d_out)."""
    b, H, T, head_dim = heads.shape
    return heads.transpose(1, 2).contiguous().view(b, T, H * head_dim)


def mha_module(state, num_heads, context_length):
    """ch03.ipynb In [36]'s MultiHeadAttention holding `state`'s parameters, dropout 0."""
    d_out, d_in = state["W_query.weight"].shape
    module = notebooks.MultiHeadAttention(d_in, d_out, int(context_length), 0.0, int(num_heads),
                                          qkv_bias="W_query.bias" in state)
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(state[name])
    return module


def mha_forward(x, state, num_heads, context_length, split_heads=split, merge_heads=merge,
                scale=None, masked=True, project_out=True, dim=-1, attention=None,
                qkv_bias=True, out_bias=True, after_softmax=None):
    """The cell's forward with its steps as arguments, so that a mistake is one step changed:
    `scale`(head_dim, d_out) the divisor of the scores (default sqrt(head_dim));
    `attention`(queries, keys, values) -> context heads replaces the scores, mask, softmax and
    weighted values at once (exercise 23's fused kernel and its mistakes);
    `qkv_bias`, `out_bias`: False leaves out W_query's, W_key's, W_value's biases (where the
    state has them), or out_proj's; `after_softmax`(weights, hidden, divisor) -> the weights
    that multiply the values, applied to softmax's output (a mask or a scale put after it)."""
    def layer(name, inputs, with_bias=True):
        out = inputs @ state[f"{name}.weight"].T
        bias = state.get(f"{name}.bias") if with_bias else None
        return out if bias is None else out + bias

    def project_context(context):
        return layer("out_proj", context, out_bias) if project_out else context

    T = x.shape[1]
    queries, keys, values = (split_heads(layer(name, x, qkv_bias), int(num_heads))
                             for name in LAYERS)
    if queries is None:
        return None
    if attention is not None:
        heads = attention(queries, keys, values)
        if heads is None:
            return None
        return project_context(merge_heads(heads))
    scores = queries @ keys.transpose(2, 3)
    mask = torch.triu(torch.ones(int(context_length), int(context_length)), diagonal=1)
    hidden = mask.bool()[:T, :T]
    if masked:
        scores = scores.masked_fill(hidden, -torch.inf)
    head_dim, d_out = queries.shape[-1], state["W_query.weight"].shape[0]
    divisor = head_dim ** 0.5 if scale is None else scale(head_dim, d_out)
    weights = torch.softmax(scores / divisor, dim=dim)
    if after_softmax is not None:
        weights = after_softmax(weights, hidden, head_dim ** 0.5)
    context = merge_heads(weights @ values)
    if context is None:
        return None
    return project_context(context)


def mha_scale(x, state, num_heads):
    """The Tracked forward, batch item by batch item and head by head."""
    outputs = []
    for b in range(x.shape[0]):
        projected = [x[b] @ state[f"{name}.weight"].T if state.get(f"{name}.bias") is None
                     else x[b] @ state[f"{name}.weight"].T + state[f"{name}.bias"]
                     for name in LAYERS]
        head_dim = projected[0].shape[-1] // int(num_heads)
        heads = []
        for h in range(int(num_heads)):
            q, k, v = (p[:, h * head_dim:(h + 1) * head_dim] for p in projected)
            heads.append(cells.causal_softmax_scale(q @ k.T, head_dim) @ v)
        merged = cells.cat(heads)
        outputs.append(merged @ state["out_proj.weight"].T + state["out_proj.bias"])
    return cells.stack(outputs)


def hashed_mha(seed, d_in, d_out, context_length, num_heads, qkv_bias=False):
    """MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads, qkv_bias) with the
    parameters attn::HashedUniform(seed) gives the C++ module."""
    module = notebooks.MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads,
                                          qkv_bias=qkv_bias)
    return hashed_state(module, seed)


# ---- the wrapper fused (exercise 20) -------------------------------------------------------

def fuse(state, num_heads, order=None, stack=lambda blocks: torch.cat(blocks, dim=0),
         out_proj=torch.eye, biases=True):
    """The fused MultiHeadAttention's state_dict from a wrapper's: each layer's heads stacked
    (in `order`, default 0, 1, ...), out_proj's weight out_proj(d_out) and a zero bias;
    `biases` False leaves the heads' biases out."""
    order = range(int(num_heads)) if order is None else order
    fused = {}
    for layer in LAYERS:
        for part in (".weight", ".bias") if biases else (".weight",):
            blocks = [state.get(f"heads.{h}.{layer}{part}") for h in order]
            if blocks[0] is not None:
                fused[f"{layer}{part}"] = stack(blocks)
    d_out = fused["W_query.weight"].shape[0]
    fused["out_proj.weight"] = out_proj(d_out)
    fused["out_proj.bias"] = torch.zeros(d_out)
    return fused

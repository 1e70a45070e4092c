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

"""Exercise 20, fuse_heads: a MultiHeadAttentionWrapper's heads fused into one
MultiHeadAttention (ch03.ipynb In [35] and In [36], compared in the book's §3.6.2 and the
multi-head tutorial's "Key Differences from the Wrapper"): each projection's heads stacked row
after row, out_proj the identity with a zero bias. The outputs are the fused module's
parameters and its forward, which is the wrapper's (check_same_output shows it on every case
the recorder writes)."""

from dataclasses import replace

import torch

from .. import multihead as mh
from ..bounds import Tracked
from ..cases import Kind, recorder
from ..mistakes import Mistake
from .ex15_causal_attention import seeded_heads
from .ex16_multi_head_wrapper import drawn_wrapper


def fused_outputs(x, state, num_heads, context_length, **how):
    """The fused module's parameters and its forward on x, fused `how` (multihead.fuse)."""
    fused = mh.fuse(state, num_heads, **how)
    outputs = dict(fused)
    d_out, d_in = fused["W_query.weight"].shape
    if d_out == num_heads * state["heads.0.W_query.weight"].shape[0] and d_in == x.shape[-1]:
        with torch.no_grad():
            outputs["context"] = mh.mha_forward(x, fused, num_heads, context_length)
    return outputs


def check_same_output(x, state, num_heads, context_length, outputs):
    wrapper = mh.wrapper_forward(x, state, num_heads, context_length)
    if not torch.allclose(outputs["context"], wrapper, atol=1e-6, rtol=1e-5):
        raise AssertionError("the fused module's forward is not the wrapper's")


def interleaved(blocks):
    """Row (or bias entry) i of head h at i * num_heads + h."""
    return torch.stack(blocks, dim=1).flatten(0, 1)


MISTAKES = [
    Mistake("heads_reversed", "heads stacked in reverse order",
            "head h's weight goes into rows [h * head_dim, (h + 1) * head_dim): head 0 first, "
            "as split_heads hands the blocks out.",
            lambda x, s, H, cl: fused_outputs(x, s, H, cl, order=range(H - 1, -1, -1))
            if H > 1 else None),
    Mistake("rows_interleaved", "heads' rows interleaved (row i of head h at i * num_heads + h)",
            "each head's rows stay together as one block: split_heads gives head h the "
            "features [h * head_dim, (h + 1) * head_dim).",
            lambda x, s, H, cl: fused_outputs(x, s, H, cl, stack=interleaved)
            if H > 1 and s["heads.0.W_query.weight"].shape[0] > 1 else None),
    # Heads stacked along the columns, or transposed, give W_query, W_key and W_value another
    # shape than out_proj's d_out: MultiHeadAttention's constructor refuses them, and the test
    # (tests/test_20_fuse_heads.cpp, wrong_layer) names the layer from the wrapper's shapes.
    Mistake("biases_not_stacked", "the heads' biases left out of the fused layers",
            "with qkv_bias=True every head's layers have biases: stack them the way the "
            "weights are stacked, head h's into entries [h * head_dim, (h + 1) * head_dim).",
            lambda x, s, H, cl: fused_outputs(x, s, H, cl, biases=False)
            if "heads.0.W_query.bias" in s else None),
    Mistake("out_proj_zeros", "out_proj's weight left at zeros",
            "the wrapper mixes nothing after the heads: out_proj must pass the merged heads "
            "through unchanged, weight the identity (xt::eye).",
            lambda x, s, H, cl: fused_outputs(x, s, H, cl, out_proj=lambda n: torch.zeros(n, n)),
            # every output but out_proj's weight is right, yet that output and the context
            # are the zeros "returned all zeros" gives too: named as both.
            named_when_shared=True),
    Mistake("out_proj_ones", "out_proj's weight all ones",
            "the identity has ones on the diagonal only (xt::eye): all ones adds every "
            "feature into every other.",
            lambda x, s, H, cl: fused_outputs(x, s, H, cl, out_proj=lambda n: torch.ones(n, n))
            if s["heads.0.W_query.weight"].shape[0] * H > 1 else None),
]


def fuse_kind(num_heads, qkv_bias=False):
    names = mh.head_names(num_heads, qkv_bias)
    parameters = mh.mha_names(qkv_bias)

    def call(function):
        def wrong(x, *rest):
            *weights, heads, context_length = rest
            return function(x, dict(zip(names, weights)), heads, context_length)
        return wrong

    def outputs(x, state, heads, context_length):
        made = fused_outputs(x, state, heads, context_length)
        check_same_output(x, state, heads, context_length, made)
        return made

    def scale(x, *rest):
        *weights, heads, context_length = rest
        state = dict(zip(names, (w.value for w in weights)))
        fused = mh.fuse(state, heads)
        return {**{name: Tracked(tensor, torch.zeros_like(tensor))
                   for name, tensor in fused.items()},
                "context": mh.mha_scale(x, fused, heads)}

    return Kind(
        name="fuse_heads_bias" if qkv_bias else "fuse_heads",
        inputs=("x", *names, "num_heads", "context_length"),
        outputs=(*parameters, "context"),
        function=call(outputs), scale=scale,
        reduction=lambda x, *rest: {**{name: 1 for name in parameters},
                                    "context": max(x.shape[1], x.shape[2] + int(qkv_bias),
                                                   rest[0].shape[0] * rest[-2] + 1)},
        mistakes=lambda *arguments: [replace(m, wrong=call(m.wrong)) for m in MISTAKES],
        # a placeholder that returns one tensor (an input) gives none of these outputs
        derive=lambda made: made if isinstance(made, dict) else {})


@recorder("20")
def record(exercise):
    batch = mh.cells.journey_batch()
    exercise.notebook("notebook", fuse_kind(2),
                      "ch03.ipynb In [35] and In [36]: the wrapper of In [35] (seed 123, d_out "
                      "2, 2 heads) fused into one MultiHeadAttention",
                      x=batch, num_heads=2, context_length=6, **seeded_heads(123, 2))
    seeded = "ch03.ipynb In [35] and In [36]: a wrapper of seeded randn weights, fused"
    for name, heads, sizes, qkv_bias, seed in (
            ("three_heads", 3, ((2, (1, 3)), (5, (1, 9)), (4, (1, 6)), (2, (1, 4)),
                                (2, (0, 4))), False, 2001),
            ("one_head", 1, ((2, (1, 3)), (4, (1, 9)), (3, (1, 6)), (3, (1, 4)), (0, (0, 4))),
             False, 2002),
            ("bias", 2, ((2, (1, 3)), (6, (1, 9)), (3, (1, 6)), (2, (1, 4)), (1, (0, 4))),
             True, 2003)):
        B, T, d_in, d_out, extra = sizes
        exercise.drawn(name, fuse_kind(heads, qkv_bias), f"{seeded}, {heads} head(s)"
                       + (", qkv_bias=True" if qkv_bias else ""),
                       drawn_wrapper(B, T, d_in, d_out, (heads, (heads, heads)), extra, qkv_bias),
                       seed=seed)

"""Exercise 18, unmasked_multi_head_attention: seed 000's solution of the book's Exercise 3.2,
multi-head attention with one projection per Q/K/V split into heads (view, transpose), no
causal mask, no biases, and fc_out over the merged heads (notebooks.UnmaskedMultiHeadAttention).

Sources: seed 000 In [12], the exercise solutions. The public exercise-solutions.ipynb solves
Exercise 3.2 by changing d_out of ch03.ipynb's wrapper (exercise 17) and has no such cell, so
cases cite its Exercise 3.2 and say the module is the course's variant.
Reproduced at the printed decimals (check_printed): seed 42, inputs = torch.randn(1, 5, 4),
MultiHeadAttentionWrapper(d_in=4, d_out=2, num_heads=2) (000 In [12]):
  [[-0.0267, -0.0087], [-0.0919, -0.0284], [-0.0792, -0.0155], [-0.0848, -0.0206],
   [-0.0685, -0.0139]], shape (1, 5, 2).

The mistakes are one forward written with the steps a student may get wrong as parameters
(forward_with): how heads are split and merged, the scale (and where), a mask, the softmax
axis, which weight projects what, fc_out. The module has no bias (its constructor refuses one),
so no bias slip can be made here.
"""

import math

import torch

from .. import causal
from .. import modules
from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import Mistake

WEIGHTS = ("W_query.weight", "W_key.weight", "W_value.weight", "fc_out.weight")
SOURCE = "exercise-solutions.ipynb, Exercise 3.2 (the course's variant: heads split, no mask)"


def forward(x, W_query, W_key, W_value, fc_out, num_heads):
    """000 In [12]: the notebook's module holding these weights, on x (B, T, d_in)."""
    d_out, d_in = W_query.shape
    module = modules._module(notebooks.UnmaskedMultiHeadAttention,
                             dict(zip(WEIGHTS, (W_query, W_key, W_value, fc_out))),
                             d_in, d_out, num_heads)
    with torch.no_grad():
        return module(x)


# ---- the same forward with a step done wrong (the mistakes) ---------------------------------

def split_heads(t, num_heads, how):
    """(B, T, d_out) -> (B, num_heads, T, head_dim), done `how`."""
    B, T, d_out = t.shape
    head_dim = d_out // num_heads
    if how == "no_transpose":   # the memory of (B, T, d_out) read as (B, num_heads, T, hd)
        return t.reshape(B, num_heads, T, head_dim)
    if how == "interleaved":    # head h takes columns h, h + num_heads, ...
        return t.reshape(B, T, head_dim, num_heads).permute(0, 3, 1, 2)
    if how == "first_head":     # every head reads columns 0 .. head_dim - 1
        return t[..., :head_dim].unsqueeze(1).expand(B, num_heads, T, head_dim)
    return t.reshape(B, T, num_heads, head_dim).transpose(1, 2)


def merge_heads(context, how):
    """(B, num_heads, T, head_dim) -> (B, T, d_out), done `how`; "no_transpose" and
    "interleaved" undo split_heads' of the same name."""
    B, H, T, head_dim = context.shape
    if how == "no_transpose":
        return context.reshape(B, T, H * head_dim)
    if how == "interleaved":
        return context.permute(0, 2, 3, 1).reshape(B, T, H * head_dim)
    if how == "reversed":       # head h written into head num_heads - 1 - h's columns
        return context.flip(1).transpose(1, 2).reshape(B, T, H * head_dim)
    if how == "last_left_out":  # the loop over heads stopped one early: zeros stay
        merged = context.transpose(1, 2).reshape(B, T, H * head_dim).clone()
        merged[..., (H - 1) * head_dim:] = 0
        return merged
    if how == "from_column_h":  # head h written from column h, not h * head_dim: they overlap
        merged = torch.zeros(B, T, H * head_dim)
        for h in range(H):
            merged[..., h:h + head_dim] = context[:, h]
        return merged
    return context.transpose(1, 2).reshape(B, T, H * head_dim)


def forward_with(split="right", merge="right", scale=lambda head_dim, d_out: head_dim,
                 causal_mask=False, dim=-1, with_fc_out=True, fc_out_transposed=True,
                 projection=lambda x, W: x @ W.T, layers=(0, 1, 2), scale_after_softmax=False,
                 scores_transposed=False, heads=lambda num_heads: num_heads,
                 mask_after_softmax=False):
    """A forward(x, W_query, W_key, W_value, fc_out, num_heads) written as 000 In [12] with
    one step changed: scores divided by sqrt(scale(head_dim, d_out)) (after the softmax with
    `scale_after_softmax`); the queries, keys and values projected with the weights at
    `layers` of (W_query, W_key, W_value); split into heads(num_heads) heads; None where the
    projection cannot run (it returns None)."""
    def wrong(x, W_query, W_key, W_value, fc_out, num_heads):
        weights = (W_query, W_key, W_value)
        projected = [projection(x, weights[at]) for at in layers]
        if any(p is None for p in projected):
            return None
        d_out = projected[0].shape[-1]
        Q, K, V = (split_heads(p, heads(num_heads), split) for p in projected)
        divisor = math.sqrt(scale(d_out // num_heads, d_out))
        scores = K @ Q.transpose(-2, -1) if scores_transposed else Q @ K.transpose(-2, -1)
        if not scale_after_softmax:
            scores = scores / divisor
        if causal_mask:
            scores = scores.masked_fill(causal.future_mask(x.shape[1]).bool(), -math.inf)
        weights = torch.softmax(scores, dim=dim)
        if mask_after_softmax:  # the future's weights zeroed, the rows not renormalised
            weights = weights * (1 - causal.future_mask(x.shape[1]))
        if scale_after_softmax:
            weights = weights / divisor
        context = merge_heads(weights @ V, merge)
        if not with_fc_out:
            return context
        return context @ (fc_out.T if fc_out_transposed else fc_out)
    return wrong


def untransposed_projection(x, W):
    """x @ weight without the transpose: only where the weight is square does it run."""
    return x @ W if W.shape[0] == W.shape[1] else None


def first_item_only(x, *parameters):
    """Every batch item computed from x[0] (the loop reads x[0] for every b)."""
    if x.shape[0] < 2:
        return None
    return forward(x[:1], *parameters).expand(x.shape[0], -1, -1).clone()


MISTAKES = [
    Mistake("split_without_transpose", "split into heads without the transpose "
            "(view(B, num_heads, T, head_dim))",
            "split with view(B, T, num_heads, head_dim).transpose(1, 2): head h of token t is "
            "columns h * head_dim .. (h + 1) * head_dim - 1 of row t of the projection. "
            "Reading the (T, d_out) memory as (num_heads, T, head_dim) mixes tokens.",
            forward_with(split="no_transpose", merge="no_transpose")),
    Mistake("merged_without_transpose", "merged the heads without the transpose "
            "(context.view(B, T, d_out) of (B, num_heads, T, head_dim))",
            "merge with transpose(1, 2) then view(B, T, d_out): row t of the merged context "
            "is head 0's row t, then head 1's row t, ... side by side.",
            forward_with(merge="no_transpose")),
    Mistake("heads_interleaved", "heads interleaved (head h took columns h, h + num_heads, ...)",
            "head h owns a block of head_dim neighbouring columns, h * head_dim to "
            "(h + 1) * head_dim - 1, in the split and in the merge.",
            forward_with(split="interleaved", merge="interleaved")),
    Mistake("merged_interleaved", "merged the heads interleaved (head h's feature i into "
            "column i * num_heads + h)",
            "head h's context goes back into its own block of columns, h * head_dim + i: the "
            "block it was split from.",
            forward_with(merge="interleaved")),
    Mistake("heads_reversed", "heads merged in reverse order (head h into the last head's "
            "columns first)",
            "head h's context goes back into its own columns, h * head_dim to (h + 1) * "
            "head_dim - 1: head 0 first, as transpose(1, 2).contiguous().view(B, T, d_out) "
            "puts them.",
            forward_with(merge="reversed")),
    Mistake("merged_from_column_h", "head h written into the context from column h instead "
            "of h * head_dim",
            "each head is head_dim columns wide: head h goes into columns h * head_dim to "
            "(h + 1) * head_dim - 1 (xt::range(h * hd, (h + 1) * hd)); from column h they "
            "overlap.",
            forward_with(merge="from_column_h")),
    Mistake("last_head_left_out", "the last head left out (its columns of the context stay 0)",
            "loop h from 0 to num_heads - 1 inclusive (h < num_heads): every head fills its "
            "columns of the context.",
            forward_with(merge="last_left_out")),
    Mistake("first_head_columns", "every head used the first head's columns (the offset "
            "h * head_dim left out)",
            "head h reads columns h * head_dim + i, i < head_dim, of the queries, keys and "
            "values: add the head's offset.",
            forward_with(split="first_head")),
    Mistake("scaled_by_d_out", "divided by sqrt(d_out) instead of sqrt(head_dim)",
            "each head's keys have head_dim = d_out / num_heads features: divide its scores "
            "by sqrt(head_dim).",
            forward_with(scale=lambda head_dim, d_out: d_out)),
    Mistake("not_scaled", "left out the / sqrt(head_dim)",
            "divide every head's scores by sqrt(head_dim) before softmax.",
            forward_with(scale=lambda head_dim, d_out: 1.0)),
    Mistake("scaled_by_num_heads", "divided by sqrt(num_heads) instead of sqrt(head_dim)",
            "the scale is the square root of a head's key size, head_dim() = d_out / "
            "num_heads, not of the number of heads.",
            forward_with(scale=lambda head_dim, d_out: d_out // head_dim)),
    Mistake("multiplied_by_sqrt", "multiplied the scores by sqrt(head_dim) instead of "
            "dividing",
            "divide every head's scores by sqrt(head_dim): scores / sqrt(head_dim).",
            forward_with(scale=lambda head_dim, d_out: 1.0 / head_dim)),
    Mistake("scaled_after_softmax", "divided the attention weights by sqrt(head_dim) after "
            "the softmax",
            "the scale belongs inside the softmax: softmax(q_h @ k_h.T / sqrt(head_dim)); "
            "divided afterwards, the weights no longer sum to 1.",
            forward_with(scale_after_softmax=True)),
    Mistake("divided_by_head_dim", "divided by head_dim instead of sqrt(head_dim)",
            "the scale is the SQUARE ROOT of the head's key size: / sqrt(head_dim).",
            forward_with(scale=lambda head_dim, d_out: head_dim ** 2)),
    Mistake("heads_not_split", "attention over all d_out features at once (the heads never "
            "split)",
            "each head attends on its own head_dim columns: softmax(q_h @ k_h.T / "
            "sqrt(head_dim)) @ v_h for the columns h * head_dim .. (h + 1) * head_dim - 1.",
            forward_with(heads=lambda num_heads: 1)),
    Mistake("scores_transposed", "computed k_h @ q_h.T (keys and queries swapped)",
            "row t of a head's scores is query t against every key: q_h @ k_h.T.",
            forward_with(scores_transposed=True)),
    Mistake("keys_from_W_query", "projected the keys with W_query (a copied line)",
            "keys = x @ W_key.weight.T: each of queries, keys and values has its own weight.",
            forward_with(layers=(0, 0, 2))),
    Mistake("values_from_W_key", "projected the values with W_key (a copied line)",
            "values = x @ W_value.weight.T: each of queries, keys and values has its own "
            "weight.",
            forward_with(layers=(0, 1, 1))),
    Mistake("values_from_W_query", "projected the values with W_query (a copied line)",
            "values = x @ W_value.weight.T: each of queries, keys and values has its own "
            "weight.",
            forward_with(layers=(0, 1, 0))),
    Mistake("causal_mask_applied", "applied a causal mask (this module has none)",
            "000's module lets every token attend to every token, the future included: no "
            "-inf above the diagonal.",
            forward_with(causal_mask=True)),
    Mistake("causal_mask_after_softmax", "zeroed the future's attention weights after the "
            "softmax (this module has no mask)",
            "000's module lets every token attend to every token: keep every weight of the "
            "softmax.",
            forward_with(mask_after_softmax=True)),
    Mistake("column_softmax", "softmax over the columns (dim=-2)",
            "each ROW of a head's attention weights sums to 1: softmax along the last dim.",
            forward_with(dim=-2)),
    Mistake("fc_out_left_out", "left out fc_out (returned the merged heads)",
            "the last step is fc_out: context @ fc_out.weight.T, (B, T, d_out).",
            forward_with(with_fc_out=False)),
    Mistake("fc_out_not_transposed", "multiplied by fc_out.weight without transposing it",
            "a Linear layer computes x @ weight.T; fc_out's weight is square, so the "
            "untransposed product runs, and gives another answer.",
            forward_with(fc_out_transposed=False)),
    Mistake("weights_not_transposed", "projected with W_query.weight (and W_key, W_value) "
            "without transposing it",
            "a Linear layer's weight is (d_out, d_in) and computes x @ weight.T.",
            forward_with(projection=untransposed_projection)),
    Mistake("first_item_only", "every batch item computed from the first one",
            "run the attention for each batch item b on x[b]: the batch items differ.",
            first_item_only),
]


def forward_scale(x, W_query, W_key, W_value, fc_out, num_heads):
    """The Tracked result: per batch item, each head's attention on its head_dim columns
    (modules.attention_scale), the heads side by side, then fc_out."""
    head_dim = W_query.shape[0] // num_heads
    contexts = []
    for b in range(x.shape[0]):
        queries, keys, values = (x[b] @ W.T for W in (W_query, W_key, W_value))
        heads = [modules.attention_scale(*(t[:, h * head_dim:(h + 1) * head_dim]
                                           for t in (queries, keys, values)))
                 for h in range(num_heads)]
        contexts.append(causal.cat(heads) @ fc_out.T)
    return causal.stack(contexts)


UNMASKED_MULTI_HEAD_ATTENTION = Kind(
    name="unmasked_multi_head_attention", inputs=("x", *WEIGHTS, "num_heads"),
    outputs=("context",), function=forward, scale=forward_scale,
    # projections sum d_in terms, a head's scores head_dim <= d_out, its weighted values T,
    # fc_out d_out
    reduction=lambda x, W_query, *rest: {"context": max(x.shape[1], x.shape[2],
                                                        W_query.shape[0])},
    mistakes=lambda *arguments: MISTAKES,
)


def seeded_notebook_case():
    """000 In [12]: torch.manual_seed(42), inputs = torch.randn(1, 5, 4), then the module
    MultiHeadAttentionWrapper(d_in=4, d_out=2, num_heads=2) draws its weights."""
    torch.manual_seed(42)
    x = torch.randn(1, 5, 4)
    module = notebooks.UnmaskedMultiHeadAttention(d_in=4, d_out=2, num_heads=2)
    return {"x": x, **modules.detached_state(module), "num_heads": module.num_heads}


def check_printed(case):
    arguments = [case[name] for name in UNMASKED_MULTI_HEAD_ATTENTION.inputs]
    modules.check_printed("000 In [12] at seed 42", forward(*arguments)[0],
                          [[-0.0267, -0.0087], [-0.0919, -0.0284], [-0.0792, -0.0155],
                           [-0.0848, -0.0206], [-0.0685, -0.0139]])


def drawn_module(batch, tokens, d_in, num_heads, head_dim, spread=0.7):
    """make(draw): x (B, T, d_in) and the four weights, d_out = num_heads * head_dim; each
    size is (public size, hidden range)."""
    def make(draw):
        B, T, din = draw.size(*batch), draw.size(*tokens), draw.size(*d_in)
        heads, hd = draw.size(*num_heads), draw.size(*head_dim)
        d_out = heads * hd
        made = {"x": draw.randn(B, T, din)}
        for name in WEIGHTS:
            made[name] = draw.randn(d_out, d_out if name == "fc_out.weight" else din) * spread
        return {**made, "num_heads": heads}
    return make


@recorder("18")
def record(exercise):
    case = seeded_notebook_case()
    check_printed(case)
    exercise.notebook("notebook", UNMASKED_MULTI_HEAD_ATTENTION,
                      SOURCE + ": seed 42, randn(1, 5, 4), d_in=4, d_out=2, num_heads=2", **case)
    seeded = SOURCE + " on a seeded randn batch and weights"
    exercise.drawn("notebook_shape", UNMASKED_MULTI_HEAD_ATTENTION,
                   seeded + ", the notebook's shapes",
                   drawn_module((1, (1, 3)), (5, (2, 8)), (4, (1, 6)), (2, (2, 4)), (1, (1, 3))),
                   seed=1801)
    exercise.drawn("three_heads", UNMASKED_MULTI_HEAD_ATTENTION,
                   seeded + ", two items, 3 heads of head_dim 2",
                   drawn_module((2, (2, 3)), (5, (2, 8)), (4, (1, 6)), (3, (2, 4)), (2, (2, 4))),
                   seed=1802)
    exercise.drawn("four_heads", UNMASKED_MULTI_HEAD_ATTENTION,
                   seeded + ", 4 heads of head_dim 3, d_in 5",
                   drawn_module((2, (1, 3)), (7, (2, 9)), (5, (1, 8)), (4, (3, 5)), (3, (2, 4))),
                   seed=1803)
    exercise.drawn("one_token", UNMASKED_MULTI_HEAD_ATTENTION, seeded + ", one token",
                   drawn_module((2, (1, 3)), (1, (1, 1)), (3, (1, 6)), (2, (1, 4)), (2, (1, 4))),
                   seed=1804)
    exercise.drawn("one_head", UNMASKED_MULTI_HEAD_ATTENTION,
                   seeded + ", one head of head_dim 3",
                   drawn_module((2, (1, 3)), (4, (2, 8)), (3, (1, 6)), (1, (1, 1)), (3, (1, 4))),
                   seed=1805)

"""Exercise 19, multi_head_attention: MultiHeadAttention with weight splits (ch03.ipynb In [36];
002 In [7], In [8]), and its pieces as cases of their own: split_heads (view ->
transpose), merge_heads (transpose -> contiguous -> view) and truncated_mask
(mask.bool()[:T, :T], a bool golden).

Reproduced at the printed decimals (check_printed): 002 In [8], seed 123:
[[0.3190, 0.4858], [0.2943, 0.3897], ...]; 001 In [38] (ch03.ipynb's cell), whose generator
has drawn In [35]'s and In [36]'s wrappers since torch.manual_seed(42):
[[-0.6380, 0.3370], [-0.7576, 0.2926], ...]."""

import torch

from .. import multihead as mh
from .. import notebooks
from ..bounds import Tracked
from ..cases import Kind, recorder
from ..mistakes import Mistake


# ---- split_heads, merge_heads ------------------------------------------------------------

def permuted(function):
    """The scale of a reshaping: every value moves, none is rounded."""
    def scale(tracked, *rest):
        value = function(tracked.value, *rest)
        return Tracked(value, torch.zeros_like(value))
    return scale


def split_no_transpose(projected, num_heads):
    """view(b, num_heads, T, head_dim) at once: the right shape, the wrong numbers."""
    b, T, d_out = projected.shape
    return None if num_heads == 1 or T == 1 else projected.reshape(b, num_heads, T,
                                                                   d_out // num_heads)


def split_interleaved(projected, num_heads):
    """Head h takes every num_heads-th feature: view(b, T, head_dim, num_heads)."""
    b, T, d_out = projected.shape
    if num_heads == 1 or d_out == num_heads:
        return None
    return projected.view(b, T, d_out // num_heads, num_heads).permute(0, 3, 1, 2).contiguous()


SPLIT_MISTAKES = [
    Mistake("split_without_transpose", "split without the transpose: view(b, num_heads, T, "
            "head_dim) straight away",
            "view() only regroups the numbers in memory order: (B, T, d_out) viewed as (B, T, "
            "num_heads, head_dim) keeps token t's features together; then transpose(1, 2) "
            "moves the heads before the tokens. heads[b, h, t, k] = projected[b, t, h * "
            "head_dim + k].", split_no_transpose),
    Mistake("split_interleaved", "heads take every num_heads-th feature (view(b, T, head_dim, "
            "num_heads))",
            "head h owns a block of head_dim features, [h * head_dim, (h + 1) * head_dim), "
            "not every num_heads-th one.", split_interleaved),
    Mistake("split_tokens_last", "tokens and features swapped: (B, num_heads, head_dim, T)",
            "the order is (B, num_heads, T, head_dim): transpose(1, 2) of (B, T, num_heads, "
            "head_dim) swaps the tokens and the heads only.",
            lambda p, h: mh.split(p, h).transpose(2, 3).contiguous()
            if p.shape[1] > 1 else None),
]

SPLIT = Kind(name="split_heads", inputs=("projected", "num_heads"), outputs=("heads",),
             function=mh.split, scale=permuted(mh.split),
             reduction=lambda projected, num_heads: {"heads": 1},
             mistakes=lambda *arguments: SPLIT_MISTAKES)


def merge_no_transpose(heads):
    b, H, T, head_dim = heads.shape
    return None if H == 1 or T == 1 else heads.reshape(b, T, H * head_dim)


def merge_interleaved(heads):
    b, H, T, head_dim = heads.shape
    if H == 1 or head_dim == 1:
        return None
    return heads.permute(0, 2, 3, 1).reshape(b, T, H * head_dim)


MERGE_MISTAKES = [
    Mistake("merged_without_transpose", "merged without transposing back: view(b, T, d_out) "
            "of (B, num_heads, T, head_dim)",
            "transpose(1, 2) first, so token t's heads sit side by side, then view(b, T, "
            "d_out): merged[b, t, h * head_dim + k] = heads[b, h, t, k].", merge_no_transpose),
    Mistake("merged_in_the_wrong_order", "heads' features interleaved when merged (feature k "
            "of head h at k * num_heads + h)",
            "head h's head_dim features are one block of the merged token: [h * head_dim, "
            "(h + 1) * head_dim).", merge_interleaved),
    Mistake("merged_heads_reversed", "heads merged in reverse order (head 0's features last)",
            "head 0's head_dim features come first in each token, then head 1's: merged[b, t, "
            "h * head_dim + k] = heads[b, h, t, k].",
            lambda heads: None if heads.shape[1] == 1 else mh.merge(heads.flip(1))),
]

MERGE = Kind(name="merge_heads", inputs=("heads",), outputs=("merged",), function=mh.merge,
             scale=permuted(mh.merge), reduction=lambda heads: {"merged": 1},
             mistakes=lambda *arguments: MERGE_MISTAKES)


# ---- truncated_mask ------------------------------------------------------------------------

def buffer(context_length):
    """The module's mask buffer: torch.triu(torch.ones(context_length, context_length),
    diagonal=1). The case stores context_length; the C++ case builds the same buffer."""
    return torch.triu(torch.ones(context_length, context_length), diagonal=1)


def truncated(context_length, T):
    return buffer(context_length).bool()[:T, :T]


MASK_MISTAKES = [
    Mistake("mask_not_truncated", "mask not truncated to T (the whole context_length x "
            "context_length buffer)",
            "the buffer was built for context_length tokens; x has T: take its first T rows "
            "and columns, mask[:T, :T].",
            lambda cl, T: buffer(cl).bool() if T < cl else None),
    Mistake("mask_inverted", "true where a token may be seen (the mask inverted)",
            "true marks what is HIDDEN: the entries above the diagonal, where mask is 1.",
            lambda cl, T: ~truncated(cl, T)),
    Mistake("diagonal_hidden", "the diagonal hidden too (a token may not see itself)",
            "a token attends to itself: only j > i is hidden, as triu(..., diagonal=1) built "
            "the mask.",
            lambda cl, T: truncated(cl, T) | torch.eye(T, dtype=torch.bool)),
    Mistake("last_rows", "the last T rows and columns instead of the first",
            "the first T tokens are x's: mask[:T, :T], starting at 0.",
            lambda cl, T: buffer(cl).bool()[-T:, :T] if T < cl else None),
]

MASK = Kind(name="truncated_mask", inputs=("context_length", "T"), outputs=("mask_bool",),
            function=truncated, scale=None, reduction=None,
            mistakes=lambda *arguments: MASK_MISTAKES)


# ---- the module ----------------------------------------------------------------------------

def with_state(function, names):
    """A function of (x, *parameters, num_heads, context_length) as `function`(x, state,
    num_heads, context_length)."""
    def call(x, *rest):
        *parameters, num_heads, context_length = rest
        return function(x, dict(zip(names, parameters)), num_heads, context_length)
    return call


def step(**changed):
    """A forward with one step changed (multihead.mha_forward's keyword arguments)."""
    return lambda x, state, heads, cl: mh.mha_forward(x, state, heads, cl, **changed)


def more_than_one_head(function):
    return lambda x, state, heads, cl: function(x, state, heads, cl) if heads > 1 else None


def mask_loop_past_t(x, state, heads, cl):
    """The mask not truncated: a loop over the buffer's context_length rows. With T > 1 the
    Debug build throws on the scores' index; with T = 1 the one score is broadcast, masked,
    and softmax gives nan (exercise 15's mask_not_truncated)."""
    if x.shape[1] != 1 or cl == 1:
        return None
    out = mh.mha_forward(x, state, heads, cl, scale=lambda head_dim, d_out: float("inf"))
    return torch.full_like(out, float("nan"))


def merge_reversed(heads):
    """The heads merged last first: head h's features in block num_heads - 1 - h."""
    return None if heads.shape[1] == 1 else mh.merge(heads.flip(1))


def masked_after_softmax(weights, hidden, divisor):
    """softmax of the unmasked scores, the future's weights then set to 0 (rows no longer
    sum to 1)."""
    return weights.masked_fill(hidden, 0.0)


def several_tokens(function):
    return lambda x, state, heads, cl: function(x, state, heads, cl) if x.shape[1] > 1 else None


def with_qkv_bias(function):
    return lambda x, state, heads, cl: (function(x, state, heads, cl)
                                        if "W_query.bias" in state else None)


FORWARD = [
    Mistake("split_without_transpose", "heads split without the transpose",
            "view(b, T, num_heads, head_dim).transpose(1, 2): each head gets the same tokens, "
            "in order, and a block of head_dim features.",
            more_than_one_head(step(split_heads=lambda p, h: split_no_transpose(p, h)))),
    Mistake("merged_in_the_wrong_order", "heads' features interleaved when merged (feature k "
            "of head h at k * num_heads + h)",
            "transpose(1, 2) then view(b, T, d_out): head h's features are the block [h * "
            "head_dim, (h + 1) * head_dim) of each token.",
            more_than_one_head(step(merge_heads=merge_interleaved))),
    Mistake("merged_without_transpose", "heads merged without transposing back (by head "
            "instead of by token)",
            "transpose(1, 2) before the view: merged[b, t, h * head_dim + k] = heads[b, h, t, "
            "k].", more_than_one_head(step(merge_heads=merge_no_transpose))),
    Mistake("merged_heads_reversed", "heads merged in reverse order (head 0's features last)",
            "head 0's head_dim features come first in each token, then head 1's: merged[b, t, "
            "h * head_dim + k] = heads[b, h, t, k].",
            more_than_one_head(step(merge_heads=merge_reversed))),
    Mistake("scaled_by_sqrt_d_out", "scaled by sqrt(d_out) instead of sqrt(head_dim)",
            "each head's keys have head_dim features: divide its scores by sqrt(head_dim) "
            "(keys.shape[-1] in the cell), not by sqrt(d_out).",
            more_than_one_head(step(scale=lambda head_dim, d_out: d_out ** 0.5))),
    Mistake("scaled_after_softmax", "scaled after softmax (the weights divided by "
            "sqrt(head_dim))",
            "divide the SCORES by sqrt(head_dim), then softmax: dividing the weights afterwards "
            "leaves rows that sum to 1 / sqrt(head_dim).",
            step(scale=lambda head_dim, d_out: 1.0,
                 after_softmax=lambda weights, hidden, divisor: weights / divisor)),
    Mistake("not_scaled", "left out the / sqrt(head_dim)",
            "divide each head's scores by sqrt(head_dim) before softmax.",
            step(scale=lambda head_dim, d_out: 1.0)),
    Mistake("no_mask", "no causal mask (every token sees the future)",
            "fill the scores where truncated_mask(mask, T) is true with -inf before softmax.",
            several_tokens(step(masked=False))),
    Mistake("masked_after_softmax", "masked after softmax without renormalising",
            "put -inf into the scores where truncated_mask is true BEFORE softmax; zeroing the "
            "weights afterwards leaves rows that no longer sum to 1.",
            several_tokens(step(masked=False, after_softmax=masked_after_softmax))),
    Mistake("out_proj_left_out", "out_proj left out",
            "after merging the heads, apply out_proj: merged @ out_proj.weight.T + "
            "out_proj.bias.", step(project_out=False)),
    Mistake("out_proj_bias_left_out", "out_proj's bias left out",
            "out_proj always has a bias (nn.Linear(d_out, d_out)): merged @ out_proj.weight.T "
            "+ out_proj.bias.", step(out_bias=False)),
    Mistake("qkv_bias_ignored", "left out the biases of W_query, W_key and W_value",
            "with qkv_bias=True each projection adds its bias: x @ weight.T + bias (check "
            "layer.has_bias()).", with_qkv_bias(step(qkv_bias=False))),
    Mistake("column_softmax", "softmax over the columns (dim=-2)",
            "each row of a head's weights sums to 1: softmax along the last dim.",
            several_tokens(step(dim=-2))),
    Mistake("mask_not_truncated", "mask not truncated to T (with T = 1 the one score is "
            "broadcast and masked: nan)",
            "use the mask's first T rows and columns only (truncated_mask(mask, T)).",
            mask_loop_past_t),
]


def mha_kind(qkv_bias=False):
    names = mh.mha_names(qkv_bias)
    return Kind(
        name="multi_head_attention", inputs=("x", *names, "num_heads", "context_length"),
        outputs=("context",),
        function=with_state(mh.mha_forward, names),
        scale=lambda x, *rest: mh.mha_scale(x, dict(zip(names, rest[:-2])), rest[-2]),
        # the projections' d_in products (+ a bias), T weighted values, out_proj's d_out + 1
        reduction=lambda x, *rest: {"context": max(x.shape[1], x.shape[2] + int(qkv_bias),
                                                   rest[0].shape[0] + 1)},
        mistakes=lambda *arguments: [Mistake(m.slug, m.name, m.hint, with_state(m.wrong, names))
                                     for m in FORWARD])


def hashed_state(x, seed, d_out, num_heads, context_length, qkv_bias):
    return mh.state_of(mh.hashed_mha(seed, x.shape[-1], d_out, context_length, num_heads,
                                     bool(qkv_bias)))


def hashed_call(function):
    return lambda x, *rest: function(x, hashed_state(x, *rest), rest[2], rest[3])


HASHED = Kind(
    name="multi_head_attention_hashed",
    inputs=("x", "init_seed", "d_out", "num_heads", "context_length", "qkv_bias"),
    outputs=("context",),
    function=hashed_call(mh.mha_forward),
    scale=lambda x, *rest: mh.mha_scale(x, hashed_state(x.value, *rest), rest[2]),
    reduction=lambda x, seed, d_out, heads, cl, qkv_bias: {
        "context": max(x.shape[1], x.shape[2] + qkv_bias, d_out + 1)},
    mistakes=lambda *arguments: [Mistake(m.slug, m.name, m.hint, hashed_call(m.wrong))
                                 for m in FORWARD])


def seeded_mha(seed, d_out=2, num_heads=2, before=()):
    """MultiHeadAttention(3, d_out, 6, 0.0, num_heads)'s parameters right after
    torch.manual_seed(seed) and the modules `before` (callables) drawn first."""
    torch.manual_seed(seed)
    for make in before:
        make()
    return mh.state_of(notebooks.MultiHeadAttention(3, d_out, 6, 0.0, num_heads))


def after_the_wrappers_of_ch03():
    """001 In [35], In [36]: the two wrappers drawn from seed 42 before In [38]'s module."""
    return (lambda: notebooks.MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2),
            lambda: notebooks.MultiHeadAttentionWrapper(3, 1, 6, 0.0, num_heads=2))


def check_printed():
    batch = mh.cells.journey_batch()
    for state, want, where in (
            (seeded_mha(123), [[0.3190, 0.4858], [0.2943, 0.3897], [0.2856, 0.3593]],
             "002 In [8]"),
            (seeded_mha(42, before=after_the_wrappers_of_ch03()),
             [[-0.6380, 0.3370], [-0.7576, 0.2926], [-0.7891, 0.2779]], "001 In [38]")):
        with torch.no_grad():
            got = mh.mha_forward(batch, state, 2, 6)
        if not torch.allclose(got[0, :3], torch.tensor(want), atol=5e-5):
            raise AssertionError(f"{where}: {got}")
        reference = mh.mha_module(state, 2, 6)(batch)
        if not torch.allclose(got, reference, atol=1e-6):
            raise AssertionError(f"{where}: mha_forward differs from the notebook's class")


def drawn_projected(batch, tokens, head_dim, num_heads):
    def make(draw):
        B, T, D, H = (draw.size(*s) for s in (batch, tokens, head_dim, num_heads))
        return {"projected": draw.randn(B, T, H * D), "num_heads": H}
    return make


def drawn_heads(batch, num_heads, tokens, head_dim):
    def make(draw):
        return {"heads": draw.randn(*(draw.size(*s) for s in (batch, num_heads, tokens,
                                                              head_dim)))}
    return make


def drawn_mask(context_length, tokens):
    def make(draw):
        cl = draw.size(*context_length)
        return {"context_length": cl, "T": min(cl, draw.size(*tokens))}
    return make


def drawn_module(batch, tokens, d_in, head_dim, num_heads, extra, qkv_bias=False):
    def make(draw):
        B, T, din, D, H = (draw.size(*s) for s in (batch, tokens, d_in, head_dim, num_heads))
        d_out = H * D
        made = {"x": draw.randn(B, T, din)}
        for name in mh.mha_names(qkv_bias):
            rows, cols = (d_out, d_out) if name.startswith("out_proj") else (d_out, din)
            made[name] = (draw.randn(rows, cols) * 0.6 if name.endswith(".weight")
                          else draw.randn(rows) * 0.5)
        return {**made, "num_heads": H, "context_length": T + draw.size(*extra)}
    return make


def drawn_hashed(batch, tokens, d_in, head_dim, num_heads, extra, qkv_bias):
    def make(draw):
        B, T, din, D, H = (draw.size(*s) for s in (batch, tokens, d_in, head_dim, num_heads))
        return {"x": draw.randn(B, T, din), "init_seed": draw.integer(0, 2**62),
                "d_out": H * D, "num_heads": H, "context_length": T + draw.size(*extra),
                "qkv_bias": int(qkv_bias)}
    return make


@recorder("19")
def record(exercise):
    check_printed()
    batch = mh.cells.journey_batch()
    cell = "ch03.ipynb In [36]"
    exercise.notebook("split_notebook", SPLIT, f"{cell}: queries.view(b, T, num_heads, "
                      "head_dim).transpose(1, 2) at In [36]'s shapes (2, 6, 2), 2 heads",
                      projected=torch.arange(24, dtype=torch.float32).view(2, 6, 2) / 10,
                      num_heads=2)
    exercise.drawn("split_three_heads", SPLIT, f"{cell}: the split on seeded randn values",
                   drawn_projected((2, (1, 3)), (5, (1, 8)), (2, (1, 4)), (3, (2, 5))), seed=1901)
    exercise.drawn("split_one_token", SPLIT, f"{cell}: the split of one token",
                   drawn_projected((2, (1, 3)), (1, (1, 1)), (3, (1, 4)), (2, (2, 5))), seed=1902)
    exercise.drawn("merge_three_heads", MERGE, f"{cell}: context_vec.transpose(1, 2)"
                   ".contiguous().view(b, T, d_out) on seeded randn values",
                   drawn_heads((2, (1, 3)), (3, (2, 5)), (4, (2, 8)), (2, (2, 4))), seed=1903)
    exercise.drawn("merge_gpt2_head_dim", MERGE, f"{cell}: the merge of 4 heads of head_dim 64",
                   drawn_heads((1, (1, 2)), (4, (2, 6)), (3, (2, 5)), (64, (8, 64))), seed=1904)
    exercise.drawn("mask_truncated", MASK, f"{cell}: self.mask.bool()[:num_tokens, "
                   ":num_tokens], T < context_length",
                   drawn_mask((8, (4, 12)), (5, (2, 4))))
    exercise.drawn("mask_whole", MASK, f"{cell}: T = context_length",
                   drawn_mask((6, (1, 8)), (6, (8, 8))))

    for seed_case, state, source in (
            ("notebook", seeded_mha(123), "ch03.ipynb In [36]: MultiHeadAttention(3, 2, 6, "
             "0.0, num_heads=2) made right after torch.manual_seed(123), on In [33]'s batch"),
            ("notebook_ch03", seeded_mha(42, before=after_the_wrappers_of_ch03()),
             "ch03.ipynb In [36] as the course's copy runs it: MultiHeadAttention(3, 2, 6, 0.0, "
             "num_heads=2) after its two wrappers drew from torch.manual_seed(42)")):
        exercise.notebook(seed_case, mha_kind(), source, x=batch, num_heads=2,
                          context_length=6, **state)
    seeded = f"{cell} on a seeded randn batch and parameters"
    exercise.drawn("three_heads", mha_kind(), seeded + ", three heads of head_dim 2",
                   drawn_module((2, (1, 3)), (5, (2, 9)), (4, (1, 6)), (2, (1, 4)), (3, (2, 4)),
                                (2, (0, 4))), seed=1907)
    exercise.drawn("one_token", mha_kind(), seeded + ", one token",
                   drawn_module((2, (1, 3)), (1, (1, 1)), (3, (1, 6)), (2, (1, 4)), (2, (2, 4)),
                                (3, (1, 4))), seed=1908)
    exercise.drawn("bias", mha_kind(True), seeded + ", qkv_bias=True",
                   drawn_module((2, (1, 3)), (6, (2, 9)), (3, (1, 6)), (2, (1, 4)), (2, (2, 4)),
                                (0, (0, 4)), qkv_bias=True), seed=1909)
    hashed = (f"{cell}: MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads) built "
              "by attn::HashedUniform(init_seed)")
    exercise.drawn("hashed_four_heads", HASHED, hashed + ", four heads of head_dim 8",
                   drawn_hashed((2, (1, 3)), (7, (2, 12)), (16, (4, 32)), (8, (2, 16)),
                                (4, (2, 6)), (3, (0, 4)), False), seed=1910)
    exercise.drawn("hashed_bias", HASHED, hashed + ", qkv_bias=True, three heads of head_dim 2",
                   drawn_hashed((2, (1, 3)), (6, (2, 12)), (5, (2, 16)), (2, (2, 8)),
                                (3, (2, 4)), (1, (0, 4)), True), seed=1911)

"""Exercise 16, multi_head_wrapper: MultiHeadAttentionWrapper, num_heads CausalAttention heads
whose contexts are concatenated along the last axis (ch03.ipynb In [35]; 002 In [7]).

Kinds: `wrapper` loads the heads from the case's state_dict (heads.0.W_query.weight, ...;
any number of heads, with or without biases); `wrapper_hashed` builds the module from its
sizes and attn::HashedUniform(init_seed) (init.py), as `torch.manual_seed(s);
MultiHeadAttentionWrapper(d_in, d_out, ...)` does, so the case stores no weights.
Mistakes: the heads combined wrongly (axis, order, interleaved, copied by head instead of by
token), and a head written out by hand instead of calling CausalAttention with one step wrong
(no mask, biases dropped, mask or scale after softmax, the wrapper's d_out() as the scale).
Reproduced at the printed decimals (check_printed): ch03.ipynb In [35] / 002 In [7], seed 123,
d_out 2, 2 heads: shape (2, 6, 4), first row [-0.4519, 0.2216, 0.4772, 0.1063]. 001's own
In [35] prints the stale-`masked` output (exercise 15's recorder shows it is that bug)."""

import torch

from .. import multihead as mh
from ..cases import Kind, recorder
from ..mistakes import Mistake
from .ex15_causal_attention import seeded_heads


def heads_of(x, state, num_heads, context_length):
    """Every head's context (B, T, d_out), in head order."""
    return [mh.wrapper_module(state, num_heads, context_length).heads[h](x)
            for h in range(int(num_heads))]


def combined(how):
    """A wrong forward(x, state, num_heads, context_length) that combines the heads' contexts
    by how(list of contexts); None where it gives the answer's combination anyway."""
    def wrong(x, state, num_heads, context_length):
        with torch.no_grad():
            return how(heads_of(x, state, num_heads, context_length))
    return wrong


def interleaved(contexts):
    """Feature k of head h at k * num_heads + h: torch.stack(dim=-1) then flattened."""
    return torch.stack(contexts, dim=-1).flatten(-2) if len(contexts) > 1 else None


def by_head(contexts):
    """The heads' contexts laid one after another in memory and viewed as (B, T, H * d_out):
    merged by head instead of by token (the flat copy of a head to offset h * B * T * d_out)."""
    if len(contexts) == 1:
        return None
    B, T, d = contexts[0].shape
    return torch.stack(contexts).reshape(B, T, len(contexts) * d)


def head_by_hand(x, layers, context_length, masked=True, biases=True, divisor=None,
                 after_softmax=None):
    """One CausalAttention head written out (x (B, T, d_in), layers (weight, bias or None) x 3):
    the steps as arguments, so that a mistake is one step changed. `divisor` the scores'
    (default sqrt(d_out)); `after_softmax`(weights, hidden, sqrt(d_out)) -> the weights."""
    q, k, v = (x @ w.T + (b if biases and b is not None else 0) for w, b in layers)
    T, d = x.shape[1], q.shape[-1]
    hidden = torch.triu(torch.ones(int(context_length), int(context_length)),
                        diagonal=1).bool()[:T, :T]
    scores = q @ k.transpose(1, 2)
    if masked:
        scores = scores.masked_fill(hidden, -torch.inf)
    weights = torch.softmax(scores / (d ** 0.5 if divisor is None else divisor), dim=-1)
    if after_softmax is not None:
        weights = after_softmax(weights, hidden, d ** 0.5)
    return weights @ v


def by_hand(applies=lambda x, state, num_heads: True, **how):
    """A wrong forward whose heads are written out by hand with `how` changed (head_by_hand);
    None where `applies` says the slip changes nothing on this case."""
    def wrong(x, state, num_heads, context_length):
        if not applies(x, state, int(num_heads)):
            return None
        with torch.no_grad():
            return torch.cat([head_by_hand(x, mh.head_layers(state, h), context_length,
                                           **{key: value(x, state, int(num_heads))
                                              if key == "divisor" else value
                                              for key, value in how.items()})
                              for h in range(int(num_heads))], dim=-1)
    return wrong


BY_HAND = ("a head written by hand: call heads[h].forward(x), exercise 15's CausalAttention, "
           "or ")

FORWARD_BY_HAND = [
    Mistake("head_no_mask", "a head written by hand without the causal mask (every token "
            "sees the future)",
            BY_HAND + "fill the scores above the diagonal with -inf before softmax.",
            by_hand(lambda x, state, H: x.shape[1] > 1, masked=False)),
    Mistake("head_bias_ignored", "a head written by hand without the biases of W_query, W_key "
            "and W_value",
            BY_HAND + "add each layer's bias: x @ weight.T + bias (qkv_bias=True).",
            by_hand(lambda x, state, H: "heads.0.W_query.bias" in state, biases=False)),
    Mistake("head_masked_after_softmax", "a head written by hand, masked after softmax "
            "without renormalising",
            BY_HAND + "put -inf into the future's scores BEFORE softmax; zeroing weights "
            "afterwards leaves rows that no longer sum to 1.",
            by_hand(lambda x, state, H: x.shape[1] > 1, masked=False,
                    after_softmax=lambda w, hidden, c: w.masked_fill(hidden, 0.0))),
    Mistake("head_scaled_after_softmax", "a head written by hand, scaled after softmax (the "
            "weights divided by sqrt(d_out))",
            BY_HAND + "divide the SCORES by sqrt(d_out) of the head, then softmax.",
            by_hand(divisor=lambda x, state, H: 1.0,
                    after_softmax=lambda w, hidden, c: w / c)),
    Mistake("head_scaled_by_wrapper_d_out", "scores divided by sqrt(d_out()), the wrapper's "
            "num_heads * d_out, not the head's sqrt(d_out)",
            BY_HAND + "a head's keys have heads[h].d_out() features: divide by the square "
            "root of that; the wrapper's d_out() counts every head's.",
            by_hand(lambda x, state, H: H > 1,
                    divisor=lambda x, state, H: (H * state["heads.0.W_query.weight"].shape[0])
                    ** 0.5)),
]


FORWARD = [
    Mistake("cat_tokens_axis", "concatenated along the tokens axis (dim=1), not the last",
            "the heads' features go side by side: concatenate along the LAST axis, so the "
            "result is (B, T, num_heads * d_out).",
            combined(lambda c: torch.cat(c, dim=1) if len(c) > 1 else None)),
    Mistake("cat_batch_axis", "concatenated along the batch axis (dim=0), not the last",
            "the heads' features go side by side: concatenate along the LAST axis, so the "
            "result is (B, T, num_heads * d_out).",
            combined(lambda c: torch.cat(c, dim=0) if len(c) > 1 else None)),
    Mistake("heads_reversed", "heads concatenated in reverse order",
            "head 0's features come first, then head 1's, ...: loop over the heads in order.",
            combined(lambda c: torch.cat(c[::-1], dim=-1) if len(c) > 1 else None)),
    Mistake("head_0_only", "returned head 0's context only",
            "every head contributes d_out features: run each head and concatenate them all.",
            combined(lambda c: c[0] if len(c) > 1 else None)),
    Mistake("heads_summed", "added the heads' contexts instead of concatenating them",
            "the heads are not averaged or added: their features are put side by side "
            "(xt::concatenate along the last axis).",
            combined(lambda c: sum(c[1:], c[0]) if len(c) > 1 else None)),
    Mistake("heads_interleaved", "heads' features interleaved (feature k of head h at "
            "k * num_heads + h)",
            "head h's d_out features are one block: [head 0's features, head 1's, ...], as "
            "torch.cat along the last axis gives.", combined(interleaved)),
    Mistake("last_head_repeated", "every block holds the last head's context",
            "each head's own context goes into its own block: keep every head's result, not "
            "just the last one computed.",
            combined(lambda c: torch.cat([c[-1]] * len(c), dim=-1) if len(c) > 1 else None)),
    Mistake("heads_merged_by_head", "heads copied one after another (merged by head instead "
            "of by token)",
            "head h's context goes into columns [h * d_out, (h + 1) * d_out) of EVERY token: "
            "context[b, t, h * d_out + k] = heads[h].forward(x)[b, t, k], not a flat copy of "
            "the whole head to offset h * B * T * d_out.", combined(by_head)),
    *FORWARD_BY_HAND,
]


def wrapper_kind(num_heads, qkv_bias=False):
    """The `wrapper` kind for a state_dict of num_heads heads (the C++ case reads num_heads)."""
    names = mh.head_names(num_heads, qkv_bias)

    def state(arguments):
        return dict(zip(names, arguments))

    def call(how):
        return lambda x, *rest: how(x, state(rest[:-2]), rest[-2], rest[-1])

    return Kind(
        name="wrapper", inputs=("x", *names, "num_heads", "context_length"),
        outputs=("context",),
        function=call(mh.wrapper_forward),
        scale=lambda x, *rest: mh.wrapper_scale(x, state(rest[:-2]), rest[-2]),
        reduction=lambda x, *rest: {"context": mh.wrapper_reduction(
            x, rest[0].shape[0], qkv_bias)},
        mistakes=lambda *arguments: [Mistake(m.slug, m.name, m.hint, call(m.wrong))
                                     for m in FORWARD],
    )


def hashed_forward(x, init_seed, d_out, num_heads, context_length, qkv_bias):
    module = mh.hashed_wrapper(init_seed, x.shape[-1], d_out, context_length, num_heads,
                               bool(qkv_bias))
    with torch.no_grad():
        return module(x)


def hashed_state(x, init_seed, d_out, num_heads, context_length, qkv_bias):
    return mh.state_of(mh.hashed_wrapper(init_seed, x.shape[-1], d_out, context_length,
                                         num_heads, bool(qkv_bias)))


HASHED = Kind(
    name="wrapper_hashed",
    inputs=("x", "init_seed", "d_out", "num_heads", "context_length", "qkv_bias"),
    outputs=("context",),
    function=hashed_forward,
    scale=lambda x, seed, d_out, num_heads, context_length, qkv_bias: mh.wrapper_scale(
        x, hashed_state(x.value, seed, d_out, num_heads, context_length, qkv_bias), num_heads),
    reduction=lambda x, seed, d_out, num_heads, context_length, qkv_bias: {
        "context": mh.wrapper_reduction(x, d_out, bool(qkv_bias))},
    mistakes=lambda x, seed, d_out, num_heads, context_length, qkv_bias: [
        Mistake(m.slug, m.name, m.hint,
                lambda *a, wrong=m.wrong: wrong(a[0], hashed_state(*a), a[3], a[4]))
        for m in FORWARD],
)


def drawn_wrapper(batch, tokens, d_in, d_out, num_heads, extra, qkv_bias=False):
    """make(draw) for `wrapper`: x (B, T, d_in) and num_heads heads' weights (and biases);
    sizes are (public size, hidden range); context_length is T + extra."""
    def make(draw):
        B, T, din, dout = (draw.size(*s) for s in (batch, tokens, d_in, d_out))
        heads = draw.size(*num_heads)
        made = {"x": draw.randn(B, T, din)}
        for name in mh.head_names(heads, qkv_bias):
            made[name] = (draw.randn(dout, din) * 0.7 if name.endswith(".weight")
                          else draw.randn(dout) * 0.5)
        return {**made, "num_heads": heads, "context_length": T + draw.size(*extra)}
    return make


def drawn_hashed(batch, tokens, d_in, d_out, num_heads, extra, qkv_bias):
    def make(draw):
        B, T, din = (draw.size(*s) for s in (batch, tokens, d_in))
        return {"x": draw.randn(B, T, din), "init_seed": draw.integer(0, 2**62),
                "d_out": draw.size(*d_out), "num_heads": draw.size(*num_heads),
                "context_length": T + draw.size(*extra), "qkv_bias": int(qkv_bias)}
    return make


def check_printed():
    """ch03.ipynb In [35] / 002 In [7] at seed 123: the first rows, at 4 decimals."""
    batch = mh.cells.journey_batch()
    got = mh.wrapper_forward(batch, seeded_heads(123, 2), 2, 6)
    want = torch.tensor([[-0.4519, 0.2216, 0.4772, 0.1063], [-0.5874, 0.0058, 0.5891, 0.3257]])
    if got.shape != (2, 6, 4) or not torch.allclose(got[0, :2], want, atol=5e-5):
        raise AssertionError(f"ch03.ipynb In [35] at seed 123: {got}")


@recorder("16")
def record(exercise):
    check_printed()
    batch = mh.cells.journey_batch()
    for seed, tag in ((123, "notebook"), (42, "notebook_seed42")):
        exercise.notebook(tag, wrapper_kind(2),
                          f"ch03.ipynb In [35]: MultiHeadAttentionWrapper(3, 2, 6, 0.0, "
                          f"num_heads=2) at seed {seed} on the batch",
                          x=batch, num_heads=2, context_length=6, **seeded_heads(seed, 2))
    seeded = "ch03.ipynb In [35] on a seeded randn batch and weights"
    # name, heads, source, sizes (B, T, d_in, d_out, extra), qkv_bias, seed. The number of
    # heads fixes the case's input names, so a hidden set keeps it.
    cases = [
        ("three_heads", 3, seeded + ", three heads, d_in 4, d_out 3",
         ((2, (1, 3)), (5, (1, 9)), (4, (1, 6)), (3, (1, 5)), (2, (0, 4))), False, 1601),
        ("one_head", 1, seeded + ", one head (the wrapper is its head)",
         ((2, (1, 3)), (4, (1, 9)), (3, (1, 6)), (2, (1, 5)), (0, (0, 4))), False, 1602),
        ("one_token", 2, seeded + ", one token",
         ((2, (1, 3)), (1, (1, 1)), (3, (1, 6)), (2, (1, 5)), (3, (0, 4))), False, 1603),
        ("bias_two_heads", 2, seeded + " and biases (qkv_bias=True)",
         ((2, (1, 3)), (6, (1, 9)), (3, (1, 6)), (2, (1, 5)), (2, (0, 4))), True, 1604),
    ]
    for name, heads, source, sizes, qkv_bias, seed in cases:
        # The number of heads fixes the case's input names: a hidden set keeps it.
        B, T, d_in, d_out, extra = sizes
        exercise.drawn(name, wrapper_kind(heads, qkv_bias), source,
                       drawn_wrapper(B, T, d_in, d_out, (heads, (heads, heads)), extra, qkv_bias),
                       seed=seed)
    hashed = ("ch03.ipynb In [35]: MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, "
              "num_heads) built by attn::HashedUniform(init_seed)")
    exercise.drawn("hashed_four_heads", HASHED, hashed + ", four heads",
                   drawn_hashed((2, (1, 3)), (5, (1, 9)), (6, (2, 8)), (2, (1, 4)), (4, (2, 5)),
                                (1, (0, 4)), False), seed=1611)
    exercise.drawn("hashed_bias", HASHED, hashed + ", qkv_bias=True",
                   drawn_hashed((1, (1, 3)), (7, (1, 9)), (5, (2, 8)), (3, (1, 4)), (2, (2, 5)),
                                (0, (0, 4)), True), seed=1612)

"""Exercise 15, causal_attention: the CausalAttention module on a batch (B, T, d_in), its mask
built for context_length and truncated to T (ch03.ipynb In [34]); two heads with different
weights side by side (In [35]).

Sources cite the public notebook cells: seed 001 §3.5 In [33] = ch03.ipynb In [34] (the
class); 001 §3.6 In [35] = ch03.ipynb In [35] (two heads). 001's CausalAttention.forward
softmaxes `masked`, a global left over from its In [27], instead of its own scores, so every
head shares the weights of 001's SelfAttention_v2 at seed 42: what 001 prints in In [35]
(and for Exercise 3.2) is wrong. The goldens come from the corrected class
(notebooks.CausalAttention); the case two_heads_notebook_seed42 records 001's bug as the
mistake `stale_weights` (head 1 reuses head 0's attention weights), and check_printed shows
that this mistake is exactly what 001 prints while the corrected head 1 is not.
Reproduced at the printed decimals (check_printed): ch03.ipynb In [34] and 002 In [6]
(seed 123) [-0.4519, 0.2216], [-0.5874, 0.0058], ...; In [35] head 1 [0.4772, 0.1063], ...;
001 In [35] head 0 (seed 42, right in 001 too) [0.4429, 0.1077], ...; 001's own
CausalAttention cell (In [None]) prints only the shape (2, 6, 2), the notebook cases' shape.
No notebook prints a CausalAttention with qkv_bias=True: the kind causal_attention_bias (the
biases as inputs, W_query.bias, ...) has In [34]'s cell with qkv_bias=True at seed 123, and
drawn cases.

The mask-loop mistakes are what xtensor runs (xt_at): in the Debug build an index past an
axis throws unless the axis has length 1, where it is broadcasting and lands on element 0."""

import math
from dataclasses import replace

import torch

from .. import causal as cells
from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import THROWS, Mistake

WEIGHTS = ("W_query.weight", "W_key.weight", "W_value.weight")
HEAD_WEIGHTS = tuple(f"heads.{h}.{name}" for h in (0, 1) for name in WEIGHTS)
# qkv_bias=True: the parameters in state_dict() order.
BIASED = ("W_query.weight", "W_query.bias", "W_key.weight", "W_key.bias", "W_value.weight",
          "W_value.bias")


class OutOfRange(Exception):
    """An index xtensor's Debug build refuses (XTENSOR_ENABLE_ASSERT): the C++ call throws."""


def xt_at(shape, index):
    """Where xtensor's `m(i, j)` lands in a tensor of `shape`: an index past the end of an
    axis of length 1 is broadcasting and reads element 0; past the end of a longer axis the
    Debug build throws (OutOfRange)."""
    if any(i >= n and n != 1 for i, n in zip(index, shape)):
        raise OutOfRange(index)
    return tuple(i if i < n else 0 for i, n in zip(index, shape))


def project(x_row, layer):
    """A Linear layer (weight, bias or None) on the rows of x_row: x @ weight.T (+ bias)."""
    weight, bias = layer
    projected = x_row @ weight.T
    return projected if bias is None else projected + bias


def batched(weights_of, projections=project):
    """A forward(x, layers, context_length), `layers` the (weight, bias) of W_query, W_key and
    W_value, whose attention weights for each batch item are weights_of(queries, keys, x, b,
    context_length) (T, T); the context is weights @ values. THROWS where a projection or an
    index fails (the C++ call throws)."""
    def forward(x, layers, context_length):
        contexts = []
        for b in range(x.shape[0]):
            queries, keys, values = (projections(x[b], layer) for layer in layers)
            if queries is None:
                return THROWS
            try:
                contexts.append(weights_of(queries, keys, x, b, context_length) @ values)
            except OutOfRange:
                return THROWS
        return torch.stack(contexts)
    return forward


def masked_softmax(fill=-math.inf, scale=lambda keys: math.sqrt(keys.shape[-1]), dim=-1,
                   mask_of=cells.future_mask):
    """weights_of for batched(): softmax(scores.masked_fill(mask, fill) / scale, dim)."""
    def weights_of(queries, keys, x, b, context_length):
        scores = queries @ keys.T
        masked = scores.masked_fill(mask_of(scores.shape[0]).bool(), fill)
        return torch.softmax(masked / scale(keys), dim=dim)
    return weights_of


def mask_loop(bound):
    """weights_of for batched(): the mask applied by `for i, j < n: if (mask(i, j) != 0)
    scores(i, j) = -inf` with n = bound(T, context_length), as xtensor runs it (xt_at): the
    mask is the module's buffer, (context_length, context_length)."""
    def weights_of(queries, keys, x, b, context_length):
        scores = queries @ keys.T
        mask = cells.future_mask(context_length)
        n = bound(scores.shape[0], context_length)
        for i in range(n):
            for j in range(n):
                if mask[xt_at(mask.shape, (i, j))] != 0:
                    scores[xt_at(scores.shape, (i, j))] = -math.inf
        return torch.softmax(scores / math.sqrt(keys.shape[-1]), dim=-1)
    return weights_of


def transposed_projection(x_row, layer):
    """x @ weight (+ bias) without the transpose: only where the weight is square does it
    run."""
    weight, bias = layer
    return project(x_row, (weight.T, bias)) if weight.shape[0] == weight.shape[1] else None


def first_item_only(x, layers, context_length):
    """Every batch item computed from x[0] (the loop reads x[0] for every b)."""
    if x.shape[0] < 2:
        return None
    (W_query, b_query), (W_key, b_key), (W_value, b_value) = layers
    biases = None if b_query is None else (b_query, b_key, b_value)
    with torch.no_grad():
        one = cells.causal_attention_module(W_query, W_key, W_value, context_length,
                                            biases)(x[:1])
    return one.expand(x.shape[0], -1, -1).clone()


def scaled_by_d_in(x, layers, context_length):
    """The scores divided by sqrt(d_in); None where d_in = d_out (the same answer)."""
    if x.shape[-1] == layers[0][0].shape[0]:
        return None
    return batched(masked_softmax(scale=lambda keys: math.sqrt(x.shape[-1])))(
        x, layers, context_length)


# forward(x, layers, context_length) -> (B, T, d_out), `layers` (weight, bias) x 3.
FORWARD = [
    Mistake("no_mask", "no causal mask (every token sees the future)",
            "fill the scores above the diagonal (j > i) with -inf before softmax, with the "
            "mask truncated to T x T.",
            batched(masked_softmax(mask_of=lambda T: torch.zeros(T, T)))),
    Mistake("not_scaled", "left out the / sqrt(d_k)",
            "divide the masked scores by sqrt(d_k) = sqrt(d_out) before softmax.",
            batched(masked_softmax(scale=lambda keys: 1.0))),
    Mistake("masked_after_softmax", "masked after softmax without renormalising",
            "put -inf into the scores BEFORE softmax; zeroing weights afterwards leaves rows "
            "that no longer sum to 1.",
            batched(lambda q, k, x, b, cl: cells.apply_tril_mask(
                torch.softmax(q @ k.T / math.sqrt(k.shape[-1]), dim=-1)))),
    Mistake("filled_zero", "masked with 0 instead of -inf",
            "exp(0) = 1, so a 0 score still gives the future weight: fill with -infinity.",
            batched(masked_softmax(fill=0.0))),
    Mistake("column_softmax", "softmax over the columns (dim=0)",
            "each ROW of the attention weights sums to 1: softmax along the last dim.",
            batched(masked_softmax(dim=0))),
    Mistake("keys_queries_swapped", "computed keys @ queries.T",
            "scores[i, j] = dot(query i, key j): queries @ keys.T. Swapped, the mask hides the "
            "wrong half.",
            batched(lambda q, k, x, b, cl: masked_softmax()(k, q, x, b, cl))),
    Mistake("weights_not_transposed", "multiplied by the weight without transposing it",
            "a Linear layer's weight is (d_out, d_in) and computes x @ weight.T.",
            batched(masked_softmax(), projections=transposed_projection)),
    Mistake("scaled_by_d_in", "divided by sqrt(d_in) instead of sqrt(d_k)",
            "d_k is the keys' dimension, d_out (keys.shape[-1]), not the input's d_in.",
            scaled_by_d_in),
    Mistake("first_item_only", "every batch item computed from the first one",
            "run the attention for each batch item b on x[b]: the batch items differ.",
            first_item_only),
    # The mask loop past T (to context_length, or one past the end): in the Debug build an
    # index past T throws where T > 1, but with T = 1 every index of the (1, 1) scores is
    # broadcasting to xtensor and lands on the one score, which becomes -inf: softmax gives
    # nan. (A mask that covers the diagonal gives that nan too; it is left out here, so that
    # the nan of the one-token cases has this one name.)
    Mistake("mask_not_truncated", "mask loop ran past T, to context_length (the mask not "
            "truncated to T x T; with T = 1 the one score is broadcast and masked: nan)",
            "use the mask's first T rows and columns only (mask[:T, :T]): loop i, j < T, the "
            "tokens of x. Past T, xtensor's Debug build throws where T > 1; with T = 1 the "
            "scores are (1, 1), an axis of length 1 broadcasts, scores(0, j) is the one score "
            "for every j, and masking it leaves softmax nothing but -inf: nan.",
            batched(mask_loop(lambda T, context_length: context_length))),
    Mistake("first_6_tokens_masked", "mask loop fixed to the notebook's 6 tokens (tokens from "
            "6 on see the future)",
            "loop i, j < T, the number of tokens of x (x.shape(1)), never the notebook's 6.",
            batched(mask_loop(lambda T, context_length: 6)), family="fixed_token_count",
            named_when_shared=True),
]


def without_bias(mistake):
    """A forward mistake of the kind without biases: (x, W_query, W_key, W_value,
    context_length)."""
    return replace(mistake, wrong=lambda x, q, k, v, context_length: mistake.wrong(
        x, [(q, None), (k, None), (v, None)], context_length))


def with_bias(mistake):
    """A forward mistake of the qkv_bias=True kind: (x, W_query.weight, W_query.bias, ...)."""
    return replace(mistake, wrong=lambda x, q, bq, k, bk, v, bv, context_length: mistake.wrong(
        x, [(q, bq), (k, bk), (v, bv)], context_length))


FORWARD_BIAS = [
    Mistake("bias_ignored", "left out the biases",
            "with qkv_bias=True each layer adds its bias after the product: x @ weight.T + "
            "bias (check layer.has_bias()).",
            lambda x, layers, cl: batched(masked_softmax())(
                x, [(weight, None) for weight, _ in layers], cl)),
    Mistake("bias_subtracted", "subtracted the biases",
            "a Linear layer ADDS its bias: x @ weight.T + bias.",
            lambda x, layers, cl: batched(masked_softmax())(
                x, [(weight, -bias) for weight, bias in layers], cl)),
    *FORWARD,
]


def stale_weights(x, q0, k0, v0, q1, k1, v1, context_length):
    """001's bug in CausalAttention.forward: head 1 softmaxes weights left over from head 0
    (001: the global `masked` of In [27], which are head 0's at seed 42) and mixes its own
    values with them."""
    head_0 = cells.causal_attention_forward(x, q0, k0, v0, context_length)
    head_1 = batched(lambda q, k, x_, b, cl: masked_softmax()(x_[b] @ q0.T, x_[b] @ k0.T, x_,
                                                              b, cl))(
        x, [(q1, None), (k1, None), (v1, None)], context_length)
    return torch.cat([head_0, head_1], dim=-1)


def per_head(mistake):
    """A single-head mistake (of FORWARD) made in both heads."""
    def wrong(x, q0, k0, v0, q1, k1, v1, context_length):
        heads = [mistake.wrong(x, [(q0, None), (k0, None), (v0, None)], context_length),
                 mistake.wrong(x, [(q1, None), (k1, None), (v1, None)], context_length)]
        if any(h is THROWS for h in heads):
            return THROWS
        return None if any(h is None for h in heads) else torch.cat(heads, dim=-1)
    return replace(mistake, wrong=wrong)


TWO_HEADS = [
    Mistake("stale_weights", "head 1 attends exactly like head 0 (stale attention weights)",
            "the book's first CausalAttention.forward softmaxed `masked`, a global variable "
            "left over from an earlier cell, instead of its own attn_scores: every head reused "
            "those weights, and the two-head outputs it printed were wrong. In C++ the same "
            "happens when forward keeps its weights in a `static` or another variable that "
            "outlives the call: compute every head's weights from its own queries and keys.",
            stale_weights),
    Mistake("same_head_twice", "ran head 0 twice",
            "head 1 has its own W_query, W_key and W_value: use them.",
            lambda x, q0, k0, v0, q1, k1, v1, cl: torch.cat(
                [cells.causal_attention_forward(x, q0, k0, v0, cl)] * 2, dim=-1)),
    *(per_head(mistake) for mistake in FORWARD),
]

CAUSAL_ATTENTION = Kind(
    name="causal_attention", inputs=("x", *WEIGHTS, "context_length"), outputs=("context",),
    function=cells.causal_attention_forward,
    scale=lambda x, W_query, W_key, W_value, context_length: cells.forward_scale(
        x, W_query, W_key, W_value),
    reduction=lambda x, W_query, *rest: {"context": max(x.shape[1], x.shape[2],
                                                        W_query.shape[0])},
    mistakes=lambda *arguments: [without_bias(mistake) for mistake in FORWARD],
)

CAUSAL_ATTENTION_BIAS = Kind(
    name="causal_attention_bias", inputs=("x", *BIASED, "context_length"),
    outputs=("context",),
    function=cells.causal_attention_forward_bias,
    scale=lambda x, q, bq, k, bk, v, bv, context_length: cells.forward_scale(
        x, q, k, v, biases=(bq, bk, bv)),
    # the projections add a bias to d_in products: d_in + 1 terms
    reduction=lambda x, W_query, *rest: {"context": max(x.shape[1], x.shape[2] + 1,
                                                        W_query.shape[0])},
    mistakes=lambda *arguments: [with_bias(mistake) for mistake in FORWARD_BIAS],
)

TWO_HEADS_KIND = Kind(
    name="two_heads", inputs=("x", *HEAD_WEIGHTS, "context_length"), outputs=("context",),
    function=cells.two_heads,
    scale=lambda x, q0, k0, v0, q1, k1, v1, context_length: cells.cat(
        [cells.forward_scale(x, q0, k0, v0), cells.forward_scale(x, q1, k1, v1)]),
    reduction=lambda x, q0, *rest: {"context": max(x.shape[1], x.shape[2], q0.shape[0])},
    mistakes=lambda *arguments: TWO_HEADS,
)


def seeded_heads(seed, heads, d_out=2):
    """The weights of `heads` CausalAttention(3, d_out) made one after the other right after
    torch.manual_seed(seed), as MultiHeadAttentionWrapper makes them (In [35])."""
    torch.manual_seed(seed)
    wrapper = notebooks.MultiHeadAttentionWrapper(3, d_out, 6, 0.0, num_heads=heads)
    return cells.state_dict_of(wrapper)


def seeded_biased(seed):
    """The parameters of CausalAttention(3, 2, 6, 0.0, qkv_bias=True) made right after
    torch.manual_seed(seed): In [34]'s cell with qkv_bias=True (no notebook prints one)."""
    torch.manual_seed(seed)
    return cells.state_dict_of(notebooks.CausalAttention(3, 2, 6, 0.0, qkv_bias=True))


def module_case(x, weights, prefix, context_length):
    return {"x": x, **{name: weights[prefix + name] for name in WEIGHTS},
            "context_length": context_length}


def drawn_module(batch, tokens, d_in, d_out, context_length, spread=0.7, qkv_bias=False):
    """make(draw): a batch x (B, T, d_in) whose items differ and one head's weights
    (d_out, d_in), with `qkv_bias` and biases (d_out,) too; sizes are (public size, hidden
    range), context_length is T + extra."""
    def make(draw):
        B, T = draw.size(*batch), draw.size(*tokens)
        din, dout = draw.size(*d_in), draw.size(*d_out)
        made = {"x": draw.randn(B, T, din)}
        for name in (BIASED if qkv_bias else WEIGHTS):
            made[name] = (draw.randn(dout, din) * spread if name.endswith(".weight")
                          else draw.randn(dout) * 0.5)
        return {**made, "context_length": T + draw.size(*context_length)}
    return make


def drawn_heads(batch, tokens, d_in, d_out):
    def make(draw):
        B, T = draw.size(*batch), draw.size(*tokens)
        din, dout = draw.size(*d_in), draw.size(*d_out)
        return {"x": draw.randn(B, T, din),
                **{name: draw.randn(dout, din) * 0.7 for name in HEAD_WEIGHTS},
                "context_length": T}
    return make


def check_printed():
    """The printed outputs, at their decimals; 001's wrong In [35] is the stale_weights
    mistake, and its head 1 is not the corrected one."""
    batch = cells.journey_batch()
    heads_123 = seeded_heads(123, 2)
    want = torch.tensor([[-0.4519, 0.2216, 0.4772, 0.1063], [-0.5874, 0.0058, 0.5891, 0.3257]])
    got = cells.two_heads(batch, *(heads_123[n] for n in HEAD_WEIGHTS), 6)
    if not torch.allclose(got[1, :2], want, atol=5e-5):
        raise AssertionError(f"ch03.ipynb In [35] at seed 123: {got}")
    printed_001 = torch.tensor([[0.4429, 0.1077, 0.5473, 0.3307],
                                [0.4656, 0.2597, 0.3420, 0.2234],
                                [0.4732, 0.3030, 0.2818, 0.1894],
                                [0.4135, 0.2921, 0.2105, 0.1521],
                                [0.4078, 0.2567, 0.2252, 0.1357],
                                [0.3772, 0.2746, 0.1709, 0.1215]])
    heads_42 = seeded_heads(42, 2)
    arguments = [batch, *(heads_42[n] for n in HEAD_WEIGHTS), 6]
    with torch.no_grad():
        stale, right = stale_weights(*arguments), cells.two_heads(*arguments)
    if not torch.allclose(stale[0], printed_001, atol=5e-5) or torch.allclose(
            right[0], printed_001, atol=5e-3):
        raise AssertionError(f"001 In [35]: stale {stale[0]}, corrected {right[0]}")


@recorder("15")
def record(exercise):
    check_printed()
    batch = cells.journey_batch()
    source = "ch03.ipynb In [34]: CausalAttention(3, 2, 6, 0.0) at seed 123 on the batch"
    exercise.notebook("notebook", CAUSAL_ATTENTION, source,
                      **module_case(batch, seeded_heads(123, 1), "heads.0.", 6))
    exercise.notebook("notebook_seed42", CAUSAL_ATTENTION,
                      "ch03.ipynb In [34]: CausalAttention(3, 2, 6, 0.0) at seed 42 on the batch",
                      **module_case(batch, seeded_heads(42, 1), "heads.0.", 6))
    seeded = "ch03.ipynb In [34] on a seeded randn batch and weights"
    exercise.drawn("truncated_mask", CAUSAL_ATTENTION,
                   seeded + ", context_length 8 > T = 5: the mask truncated",
                   drawn_module((3, (1, 4)), (5, (1, 10)), (4, (1, 8)), (4, (1, 8)), (3, (0, 6))),
                   seed=1501)
    exercise.drawn("odd_shape", CAUSAL_ATTENTION, seeded + ", d_in = 5, d_out = 3",
                   drawn_module((2, (1, 4)), (7, (1, 10)), (5, (1, 8)), (3, (1, 8)), (0, (0, 3))),
                   seed=1502)
    exercise.drawn("one_token", CAUSAL_ATTENTION, seeded + ", one token",
                   drawn_module((2, (1, 4)), (1, (1, 1)), (3, (1, 8)), (2, (1, 8)), (4, (0, 6))),
                   seed=1503)
    # The notebook's shapes with other values (a table of its answers keyed on the shape
    # fails), and nine tokens (a mask loop fixed to the notebook's 6 leaves the last three
    # unmasked).
    exercise.drawn("notebook_shape", CAUSAL_ATTENTION, seeded + ", the notebook's shapes",
                   drawn_module((2, (1, 4)), (6, (1, 10)), (3, (1, 8)), (2, (1, 8)), (0, (0, 3))),
                   seed=1505)
    exercise.drawn("nine_tokens", CAUSAL_ATTENTION,
                   seeded + ", nine tokens, context_length 11",
                   drawn_module((2, (1, 4)), (9, (8, 16)), (3, (1, 8)), (2, (1, 8)), (2, (0, 6))),
                   seed=1506)

    # qkv_bias=True: each layer adds its bias.
    biased = "ch03.ipynb In [34] with qkv_bias=True"
    exercise.notebook("bias_notebook_seed123", CAUSAL_ATTENTION_BIAS,
                      biased + ": CausalAttention(3, 2, 6, 0.0, qkv_bias=True) at seed 123 on "
                      "the batch", x=batch, context_length=6, **seeded_biased(123))
    exercise.drawn("bias_notebook_shape", CAUSAL_ATTENTION_BIAS,
                   biased + " on a seeded randn batch, weights and biases, the notebook's shapes",
                   drawn_module((2, (1, 4)), (6, (1, 10)), (3, (1, 8)), (2, (1, 8)), (0, (0, 3)),
                                qkv_bias=True), seed=1507)
    exercise.drawn("bias_truncated_mask", CAUSAL_ATTENTION_BIAS,
                   biased + " on a seeded randn batch, weights and biases, context_length 8 > "
                   "T = 5", drawn_module((3, (1, 4)), (5, (1, 10)), (4, (1, 8)), (3, (1, 8)),
                                         (3, (0, 6)), qkv_bias=True), seed=1508)
    exercise.drawn("bias_one_token", CAUSAL_ATTENTION_BIAS,
                   biased + " on a seeded randn batch, weights and biases, one token",
                   drawn_module((2, (1, 4)), (1, (1, 1)), (3, (1, 8)), (2, (1, 8)), (4, (0, 6)),
                                qkv_bias=True), seed=1509)

    for seed in (123, 42):
        heads = seeded_heads(seed, 2)
        tag = "notebook" if seed == 123 else "notebook_seed42"
        exercise.notebook(f"two_heads_{tag}", TWO_HEADS_KIND,
                          f"ch03.ipynb In [35]: two CausalAttention(3, 2, 6, 0.0) heads at seed "
                          f"{seed}, side by side", x=batch, context_length=6,
                          **{name: heads[name] for name in HEAD_WEIGHTS})
    exercise.drawn("two_heads_odd_shape", TWO_HEADS_KIND,
                   "ch03.ipynb In [35]: two heads with seeded randn weights",
                   drawn_heads((2, (1, 4)), (5, (1, 10)), (4, (1, 8)), (3, (1, 8))), seed=1504)
    exercise.drawn("two_heads_notebook_shape", TWO_HEADS_KIND,
                   "ch03.ipynb In [35]: two heads with seeded randn weights, the notebook's "
                   "shapes", drawn_heads((2, (1, 4)), (6, (1, 10)), (3, (1, 8)), (2, (1, 8))),
                   seed=1510)

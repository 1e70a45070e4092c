"""Exercise 23, fused_attention: the fused causal attention kernel of the GPU track, one Thrust
functor per query row with an online softmax (ch03.ipynb In [36]'s scores, mask, softmax and
weighted values, per batch item and head, without the T x T tensors).

Two kinds of case. causal_attention: the kernel on queries, keys and values (B, heads, T,
head_dim). multi_head_attention and gpt2_forward: MultiHeadAttention's forward with the kernel
inside (the kit's fused module: projections, split, the student's kernel, merge, out_proj), on
exercise 19's module cases and exercise 22's GPT-2-width case: the same inputs, drawn by the
same functions from the same seeds, so the same goldens. The mistakes are the kernel's: each
is a wrong `attention`(queries, keys, values), used alone and inside the module: its index
slips (the row's token, the (b, h) block's offset) and its update slips (the online softmax's
running maximum, sum and context), recorded on cases of several batch items, heads and tokens
so that each is told apart, and rows whose scores all lie far below or far above zero (a
running maximum started at 0 underflows, exp without the maximum overflows).

A third kind, causal_attention_twice, runs the kernel twice on a case of many rows (enough for
Thrust's OpenMP threads to overlap): both results are outputs with the same golden, and the
test says "results differ from run to run" where the two differ bit for bit (a race)."""

import math
from dataclasses import dataclass

import torch

from .. import causal as cells
from .. import multihead as mh
from ..cases import Kind, recorder
from ..mistakes import Mistake
from . import ex19_multi_head_attention as ex19
from . import ex22_gpt2_sizing as ex22


# ---- the kernel and its mistakes -----------------------------------------------------------

def future(T, diagonal=1):
    """True where row t must not see key j: j > t (diagonal=1), or j >= t (diagonal=0)."""
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=diagonal)


def attention(queries, keys, values, masked=True, diagonal=1, divisor=None):
    """ch03.ipynb In [36] per batch item and head: softmax(masked scores / sqrt(head_dim)) @
    values, (B, heads, T, head_dim) -> (B, heads, T, head_dim)."""
    T, head_dim = queries.shape[-2], queries.shape[-1]
    scores = queries @ keys.transpose(-2, -1)
    if masked:
        scores = scores.masked_fill(future(T, diagonal), -torch.inf)
    divisor = math.sqrt(head_dim) if divisor is None else divisor
    return torch.softmax(scores / divisor, dim=-1) @ values


def attention_scale(queries, keys, values):
    """The Tracked attention, head by head."""
    B, H = queries.shape[0], queries.shape[1]
    return cells.stack([cells.stack([
        cells.causal_softmax_scale(queries[b][h] @ keys[b][h].T, queries.shape[-1])
        @ values[b][h] for h in range(H)]) for b in range(B)])


def scaled_masked_scores(queries, keys):
    T, head_dim = queries.shape[-2], queries.shape[-1]
    scores = (queries @ keys.transpose(-2, -1)) / math.sqrt(head_dim)
    return scores.masked_fill(future(T), -torch.inf)


def without_rescale(queries, keys, values):
    """The online softmax without its correction: key j is weighed by exp(score_j - m_j),
    m_j the running maximum when j was read, and no earlier term is multiplied by
    exp(m_old - m_new) when the maximum grows."""
    scores = scaled_masked_scores(queries, keys)
    running_max = torch.cummax(scores, dim=-1).values  # m_j; -inf entries stay masked
    weights = torch.exp(scores - running_max).masked_fill(future(scores.shape[-1]), 0.0)
    return (weights @ values) / weights.sum(dim=-1, keepdim=True)


def not_normalized(queries, keys, values):
    """The weighted sum of values under the final maximum, never divided by running_sum."""
    scores = scaled_masked_scores(queries, keys)
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return weights @ values


def without_max(queries, keys, values):
    """exp(score) with no maximum subtracted: the same answer until a score passes ~88, where
    float32's exp overflows to inf and the row becomes inf / inf = nan."""
    scores = scaled_masked_scores(queries, keys).float()
    weights = torch.exp(scores)
    return ((weights / weights.sum(dim=-1, keepdim=True)) @ values.float()).to(queries.dtype)


def first_block(queries, keys, values):
    """Every row reads the keys and values of batch item 0, head 0 (the row's (b, h) block
    offset left out): keys + j * head_dim instead of keys + (first_row + j) * head_dim."""
    B, H = queries.shape[0], queries.shape[1]
    if B * H == 1:
        return None
    return attention(queries, keys[:1, :1].expand_as(keys), values[:1, :1].expand_as(values))


def online(queries, keys, values, init_max=-math.inf, update_max=True, rescale_sum=True,
           rescale_context=True):
    """The functor's loop as the stub describes it, every row at once, with one of its
    update steps changed: for each key j, the rows t >= j do
    new_max = max(m, s); c = exp(m - new_max); w = exp(s - new_max);
    l = l * c + w; acc = acc * c + w * v_j; m = new_max; and context = acc / l at the end."""
    B, H, T, D = queries.shape
    scale = 1.0 / math.sqrt(D)
    running_max = torch.full((B, H, T), init_max, dtype=queries.dtype)
    running_sum = torch.zeros(B, H, T, dtype=queries.dtype)
    context = torch.zeros(B, H, T, D, dtype=queries.dtype)
    for j in range(T):
        reads = (torch.arange(T) >= j).view(1, 1, T)  # causal: row t reads key j <= t
        score = (queries * keys[:, :, j:j + 1, :]).sum(-1) * scale
        new_max = torch.maximum(running_max, score)
        correction = torch.exp(running_max - new_max)
        weight = torch.exp(score - new_max)
        summed = running_sum * correction if rescale_sum else running_sum
        kept = context * correction[..., None] if rescale_context else context
        running_sum = torch.where(reads, summed + weight, running_sum)
        context = torch.where(reads[..., None], kept + weight[..., None] * values[:, :, j:j + 1],
                              context)
        if update_max:
            running_max = torch.where(reads, new_max, running_max)
    return context / running_sum[..., None]


def by_rows(queries, keys, values, key_rows):
    """Each flattened row r = (b * heads + h) * T + t attends (softmax of q_r . k_i /
    sqrt(head_dim)) over the key and value rows key_rows(r, T, heads), a wrong index's
    choice; None where a row would read outside the tensors."""
    B, H, T, D = queries.shape
    q, k, v = (tensor.reshape(B * H * T, D) for tensor in (queries, keys, values))
    rows = []
    for r in range(B * H * T):
        index = torch.tensor(key_rows(r, T, H), dtype=torch.long)
        if index.numel() == 0 or int(index.min()) < 0 or int(index.max()) >= B * H * T:
            return None
        weights = torch.softmax((k[index] @ q[r]) / math.sqrt(D), dim=0)
        rows.append(weights @ v[index])
    return torch.stack(rows).reshape(B, H, T, D)


def token_by_division(queries, keys, values):
    """t = row / T (the (b, h) block's number) instead of row % T; first_row = row - t."""
    if queries.shape[-2] == 1 or queries.shape[0] * queries.shape[1] == 1:
        return None  # one block: t = row / T = 0 for every row, running_max_not_updated's v_t
    return by_rows(queries, keys, values,
                   lambda r, T, H: list(range(r - r // T, r + 1)))


def batch_offset_dropped(queries, keys, values):
    """first_row = h * T: batch item b reads the keys and values of batch item 0 (with one
    head or one batch item, first_block_only's answer or none)."""
    if queries.shape[0] == 1 or queries.shape[1] == 1:
        return None
    return by_rows(queries, keys, values,
                   lambda r, T, H: [(r // T) % H * T + j for j in range(r % T + 1)])


def head_offset_dropped(queries, keys, values):
    """first_row = b * heads * T: head h reads the keys and values of head 0 (with one head or
    one batch item, first_block_only's answer or none)."""
    if queries.shape[0] == 1 or queries.shape[1] == 1:
        return None
    return by_rows(queries, keys, values,
                   lambda r, T, H: [r // (T * H) * H * T + j for j in range(r % T + 1)])


def tokens_and_heads_swapped(queries, keys, values):
    """The tensors read as (B, T, heads, head_dim), the layout before the module's
    transpose(1, 2): token t of head h at row (b * T + t) * heads + h."""
    B, H, T, D = queries.shape
    if H == 1 or T == 1:
        return None
    as_read = [tensor.reshape(B, T, H, D).transpose(1, 2) for tensor in (queries, keys, values)]
    return attention(*as_read).transpose(1, 2).reshape(B, H, T, D)


def own_value(queries, keys, values):
    """running_max never updated: it stays -INFINITY, so correction = exp(-inf) = 0 wipes the
    sums at every key and only key t is left: context[t] = v_t."""
    return online(queries, keys, values, update_max=False)


def more_than(count, axis):
    return lambda function: (lambda q, k, v: function(q, k, v) if q.shape[axis] > count
                             else None)


ATTENTION_MISTAKES = [
    Mistake("never_written", "context never written (still the zeros it was allocated with)",
            "the kernel returns nothing: its result is what the functor writes into "
            "context[row * head_dim + k], and thrust::for_each must run it for every row.",
            lambda q, k, v: torch.zeros_like(q)),
    Mistake("token_by_division", "t = row / T instead of row % T (the row's token)",
            "row r = (b * heads + h) * T + t, so its token is t = row % T; row / T is the "
            "(b, h) block's number. The row's keys are rows row - t .. row.",
            token_by_division),
    Mistake("batch_offset_dropped", "every batch item reads the keys and values of batch item 0",
            "the (b, h) block starts at row (b * heads + h) * T = row - t: the b * heads * T "
            "part of the offset is missing.", batch_offset_dropped),
    Mistake("head_offset_dropped", "every head reads the keys and values of head 0",
            "the (b, h) block starts at row (b * heads + h) * T = row - t: the h * T part of "
            "the offset is missing.", head_offset_dropped),
    Mistake("tokens_and_heads_swapped", "the tensors read as (B, T, heads, head_dim): token "
            "and head indices swapped",
            "the kernel's tensors are (B, heads, T, head_dim), already transposed: row r = "
            "(b * heads + h) * T + t, so t = row % T and the keys are rows row - t .. row.",
            tokens_and_heads_swapped),
    Mistake("running_max_not_updated", "only key t counts: context = v_t (running_max never "
            "updated?)",
            "after each key set running_max = new_max: while it stays -INFINITY, correction = "
            "expf(-INFINITY - new_max) = 0 wipes running_sum and the context row at every key, "
            "so only the last key is left.", more_than(1, -2)(own_value)),
    Mistake("no_mask", "no causal mask (each row reads every key, the future too)",
            "row t of a (b, h) block may read keys 0..t only: loop j from 0 to t, not to T - 1.",
            more_than(1, -2)(lambda q, k, v: attention(q, k, v, masked=False))),
    Mistake("diagonal_hidden", "a token cannot see itself (keys 0..t - 1: token 0 reads none)",
            "the loop over keys runs j = 0, 1, ..., t INCLUDING t: `j <= t`. Token 0 reads "
            "itself only; with no key at all its running_sum stays 0 and 0 / 0 is nan.",
            lambda q, k, v: attention(q, k, v, diagonal=0)),
    Mistake("not_scaled", "scores not divided by sqrt(head_dim)",
            "scale each score q_t . k_j by 1 / sqrt(head_dim), as the cell divides the scores "
            "by keys.shape[-1]**0.5 before softmax.",
            more_than(1, -1)(lambda q, k, v: attention(q, k, v, divisor=1.0))),
    Mistake("scaled_by_head_dim", "scores divided by head_dim instead of sqrt(head_dim)",
            "the divisor is the square root: 1 / sqrtf(head_dim).",
            more_than(1, -1)(lambda q, k, v: attention(q, k, v, divisor=q.shape[-1]))),
    Mistake("no_rescale", "online softmax without the rescale: earlier terms not multiplied "
            "by exp(old max - new max)",
            "when a key's score beats the running maximum, what was summed so far was weighed "
            "against the OLD maximum: multiply running_sum and the context row by correction "
            "= expf(running_max - new_max) before adding the new key.",
            more_than(1, -2)(without_rescale)),
    Mistake("sum_not_rescaled", "running_sum not rescaled when the maximum grows (the context "
            "row is)",
            "running_sum = running_sum * correction + weight: what was summed under the old "
            "maximum must be multiplied by correction = expf(running_max - new_max), like the "
            "context row.",
            more_than(1, -2)(lambda q, k, v: online(q, k, v, rescale_sum=False))),
    Mistake("context_not_rescaled", "the context row not rescaled when the maximum grows "
            "(running_sum is)",
            "context_t[k] = context_t[k] * correction + weight * value_j[k]: the values summed "
            "under the old maximum must be multiplied by correction, like running_sum.",
            more_than(1, -2)(lambda q, k, v: online(q, k, v, rescale_context=False))),
    Mistake("not_normalized", "the weighted values never divided by running_sum",
            "softmax's weights sum to 1: after the last key, divide the context row by "
            "running_sum.", not_normalized),
    Mistake("first_block_only", "every row reads the keys and values of batch item 0, head 0",
            "row r's keys are rows first_row .. first_row + t of the same (b, h): first_row = r "
            "- t; key_j = keys + (first_row + j) * head_dim, not keys + j * head_dim.",
            first_block),
    Mistake("max_started_at_zero", "running_max started at 0, not -INFINITY: exp underflows "
            "to 0 and 0 / 0 is nan where every score is far below 0",
            "start running_max at -INFINITY: with 0, a row whose scores all lie below about "
            "-104 gets expf(score - 0) = 0 for every key, running_sum 0 and context 0 / 0 = "
            "nan.", lambda q, k, v: online(q, k, v, init_max=0.0), named_when_shared=True),
    Mistake("max_not_subtracted", "exp(score) without the running maximum subtracted (float32 "
            "overflows: nan)",
            "exp of a score above ~88 is inf in float32: subtract the running maximum before "
            "exp, as torch.softmax does.", without_max),
]


@dataclass(frozen=True)
class KernelKind(Kind):
    """A kind whose result is what a void kernel writes into `context`: an argument passed
    back is no answer it could give, and the zeros it was allocated with are its own mistake
    (never_written), so the placeholder answers are left out."""

    def all_mistakes(self, arguments):
        return list(self.mistakes(*arguments))


ATTENTION = KernelKind(
    name="causal_attention", inputs=("queries", "keys", "values"), outputs=("context",),
    function=attention, scale=attention_scale,
    # a row's T scores of head_dim products each, its T weighted values
    reduction=lambda q, k, v: {"context": max(q.shape[-2], q.shape[-1])},
    mistakes=lambda *arguments: ATTENTION_MISTAKES)

# The kernel run twice on the same inputs: both results must be the golden, bit for bit the
# same (the test compares them: a race between rows makes them differ). Its case is large,
# so no mistake is stored for it: the other cases name them.
ATTENTION_TWICE = KernelKind(
    name="causal_attention_twice", inputs=ATTENTION.inputs, outputs=("context", "context_again"),
    function=attention, scale=lambda q, k, v: attention_scale(q, k, v),
    reduction=lambda q, k, v: {output: max(q.shape[-2], q.shape[-1])
                               for output in ("context", "context_again")},
    mistakes=lambda *arguments: [],
    derive=lambda result: {"context": result, "context_again": result})


# ---- the module: the kit's fused MultiHeadAttention with the kernel inside -----------------

def in_module(wrong):
    """A wrong kernel inside MultiHeadAttention's forward: function(x, state, heads, cl)."""
    return lambda x, state, num_heads, context_length: mh.mha_forward(
        x, state, num_heads, context_length, attention=wrong)


def module_mistakes(call):
    """The kernel's mistakes as mistakes of a module kind; `call`(forward) -> the kind's
    function of its own arguments."""
    return [Mistake(m.slug, m.name, m.hint, call(in_module(m.wrong)),
                    named_when_shared=m.named_when_shared) for m in ATTENTION_MISTAKES]


def module_kind(qkv_bias=False):
    names = mh.mha_names(qkv_bias)
    kind = ex19.mha_kind(qkv_bias)
    return KernelKind(name=kind.name, inputs=kind.inputs, outputs=kind.outputs,
                      function=kind.function, scale=kind.scale, reduction=kind.reduction,
                      mistakes=lambda *arguments: module_mistakes(
                          lambda forward: ex19.with_state(forward, names)))


def gpt2_call(forward):
    """ex22.layer_forward with `forward` in place of MultiHeadAttention's forward."""
    def call(init_seed, x_seed, batch, T, d_in, qkv_bias):
        state, config = ex22.layer_state(init_seed, qkv_bias)
        with torch.no_grad():
            return forward(ex22.x_of(x_seed, batch, T, d_in), state, config["num_heads"],
                           config["context_length"])
    return call


GPT2_FORWARD = KernelKind(
    name=ex22.FORWARD.name, inputs=ex22.FORWARD.inputs, outputs=ex22.FORWARD.outputs,
    function=ex22.FORWARD.function, scale=ex22.FORWARD.scale, reduction=ex22.FORWARD.reduction,
    mistakes=lambda *arguments: module_mistakes(gpt2_call))


# ---- the cases ----------------------------------------------------------------------------

def notebook_heads():
    """The queries, keys and values in heads of ch03.ipynb In [36]'s module (d_in 3, d_out 2,
    2 heads, made right after torch.manual_seed(123)) on In [33]'s batch."""
    state = ex19.seeded_mha(123)
    x = mh.cells.journey_batch()
    with torch.no_grad():
        return {name: mh.split(x @ state[f"{layer}.weight"].T, 2)
                for name, layer in (("queries", "W_query"), ("keys", "W_key"),
                                    ("values", "W_value"))}


def drawn_heads(batch, heads, tokens, head_dim, spread=1.0):
    def make(draw):
        shape = tuple(draw.size(*s) for s in (batch, heads, tokens, head_dim))
        return {name: draw.randn(*shape) * spread for name in ("queries", "keys", "values")}
    return make


def far_from_zero(batch, heads, tokens, head_dim, offset):
    """Queries and keys along one direction u, with every score q . k / sqrt(head_dim) near
    `offset` (within a few units): keys -u for an offset below 0. Every row's scores lie far
    below zero (exp(score) underflows to 0) or far above it (exp overflows to inf)."""
    def make(draw):
        shape = tuple(draw.size(*s) for s in (batch, heads, tokens, head_dim))
        u = draw.randn(shape[-1])
        u = u / u.norm()
        length = math.sqrt(abs(offset) * math.sqrt(shape[-1]))
        sign = 1.0 if offset > 0 else -1.0
        return {"queries": length * u + 0.15 * draw.randn(*shape),
                "keys": sign * length * u + 0.15 * draw.randn(*shape),
                "values": draw.randn(*shape)}
    return make


@recorder("23")
def record(exercise):
    cell = "ch03.ipynb In [36]"
    exercise.notebook("worked_example", ATTENTION, f"{cell}: the stub's worked example, one "
                      "head of head_dim 1, q = k = [[0], [1]], v = [[2], [4]]",
                      queries=torch.tensor([[[[0.0], [1.0]]]]),
                      keys=torch.tensor([[[[0.0], [1.0]]]]),
                      values=torch.tensor([[[[2.0], [4.0]]]]))
    exercise.notebook("notebook_heads", ATTENTION, f"{cell}: the queries, keys and values of "
                      "MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) made right after "
                      "torch.manual_seed(123), on In [33]'s batch", **notebook_heads())
    fused = f"{cell}'s attention fused, on seeded randn queries, keys and values"
    exercise.drawn("three_heads", ATTENTION, fused + ", two batch items of three heads",
                   drawn_heads((2, (1, 3)), (3, (2, 4)), (7, (2, 12)), (4, (2, 8))), seed=2301)
    exercise.drawn("batch_heads_tokens", ATTENTION, fused + ", two batch items of three heads "
                   "and 33 tokens (the index and update slips told apart)",
                   drawn_heads((2, (2, 3)), (3, (2, 4)), (33, (17, 40)), (8, (4, 16))),
                   seed=2305)
    exercise.drawn("one_token", ATTENTION, fused + ", one token",
                   drawn_heads((2, (1, 3)), (2, (1, 3)), (1, (1, 1)), (4, (2, 8))), seed=2302)
    exercise.drawn("gpt2_head_dim", ATTENTION, fused + ", GPT-2's head_dim 64 and 33 tokens",
                   drawn_heads((1, (1, 2)), (2, (2, 4)), (33, (17, 70)), (64, (64, 64))),
                   seed=2303)
    exercise.drawn("large_scores", ATTENTION, fused + ", scores in the hundreds (exp overflows "
                   "float32 without the running maximum)",
                   drawn_heads((1, (1, 2)), (2, (1, 3)), (9, (4, 12)), (16, (8, 16)),
                               spread=10.0), seed=2304)
    exercise.drawn("scores_far_below", ATTENTION, fused + ", every score near -200 (exp(score) "
                   "underflows to 0 unless the running maximum is subtracted)",
                   far_from_zero((2, (1, 3)), (2, (1, 3)), (9, (4, 12)), (16, (8, 16)), -200.0),
                   seed=2306)
    exercise.drawn("scores_far_above", ATTENTION, fused + ", every score near +200 (exp(score) "
                   "overflows to inf unless the running maximum is subtracted)",
                   far_from_zero((2, (1, 3)), (2, (1, 3)), (9, (4, 12)), (16, (8, 16)), 200.0),
                   seed=2307)

    module = f"{cell}: MultiHeadAttention's forward with the fused kernel"
    exercise.notebook("module_notebook", module_kind(), f"{module}, exercise 19's notebook "
                      "case: MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) after "
                      "torch.manual_seed(123), on In [33]'s batch", x=mh.cells.journey_batch(),
                      num_heads=2, context_length=6, **ex19.seeded_mha(123))
    seeded = f"{module}, exercise 19's seeded case"
    exercise.drawn("module_three_heads", module_kind(), seeded + " three_heads",
                   ex19.drawn_module((2, (1, 3)), (5, (2, 9)), (4, (1, 6)), (2, (1, 4)),
                                     (3, (2, 4)), (2, (0, 4))), seed=1907)
    exercise.drawn("module_bias", module_kind(True), seeded + " bias (qkv_bias=True)",
                   ex19.drawn_module((2, (1, 3)), (6, (2, 9)), (3, (1, 6)), (2, (1, 4)),
                                     (2, (2, 4)), (0, (0, 4)), qkv_bias=True), seed=1909)
    exercise.drawn("gpt2_forward_t64", GPT2_FORWARD, f"{module}, exercise 22's GPT-2 small "
                   "layer from attn::HashedUniform, at T = 64 (exercise-solutions.ipynb's "
                   "Exercise 3.3)",
                   lambda draw: {"init_seed": draw.integer(0, 2**62),
                                 "x_seed": draw.integer(0, 2**62), "batch": 1, "T": 64,
                                 "d_in": 768, "qkv_bias": 1}, seed=2201)
    exercise.drawn("many_rows", ATTENTION_TWICE, fused + ", 2048 rows of up to 1024 keys, run "
                   "twice: enough work for the OpenMP backend's threads to overlap, so rows that "
                   "share memory give results that differ from run to run",
                   drawn_heads((1, (1, 1)), (2, (2, 2)), (1024, (900, 1100)), (16, (16, 16))),
                   seed=2308)

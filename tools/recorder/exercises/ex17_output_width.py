"""Exercise 17, output_width: the book's Exercise 3.2, MultiHeadAttentionWrapper with num_heads=2
and a two-dimensional output, by choosing d_out = output_width / num_heads = 1.

Kinds: `output_width` gives the C++ function the parameters PyTorch drew at a seed
(attn::FromStateDict: a wrapper of another d_out asks for weights of another shape and is
refused by name); `output_width_hashed` draws them by attn::HashedUniform(init_seed), so any
d_out builds and a wrong one shows as a named wrong answer: each wrong choice of d_out or
num_heads (the whole width, width * heads, 2 or 1 fixed, num_heads, width / 2, one head,
the two swapped, 2 heads fixed) builds another wrapper on hashed_wide_heads (3 heads of
d_out 4), so each has its own name; on the notebook's 2 features and 2 heads several agree.
001 prints this exercise's output with its stale-`masked` slip (exercise 15's recorder shows
the bug); the goldens come from the corrected CausalAttention (notebooks.py), at seed 123 on
ch03.ipynb's batch, as the book's exercise-solutions.ipynb runs it."""

import torch

from .. import multihead as mh
from ..cases import Kind, recorder
from ..mistakes import Mistake
from .ex15_causal_attention import seeded_heads


def recorded_kind(num_heads):
    names = mh.head_names(num_heads)

    def forward(x, *rest):
        *weights, output_width, heads, context_length = rest
        return mh.wrapper_forward(x, dict(zip(names, weights)), heads, context_length)

    def scale(x, *rest):
        *weights, output_width, heads, context_length = rest
        return mh.wrapper_scale(x, dict(zip(names, weights)), heads)

    return Kind(name="output_width",
                inputs=("x", *names, "output_width", "num_heads", "context_length"),
                outputs=("context",), function=forward, scale=scale,
                reduction=lambda x, *rest: {"context": mh.wrapper_reduction(x, rest[0].shape[0])},
                mistakes=lambda *arguments: [])


def hashed(x, seed, d_out, num_heads, context_length, qkv_bias=False):
    """The wrapper attn::HashedUniform(seed) builds for these sizes, on x."""
    module = mh.hashed_wrapper(seed, x.shape[-1], d_out, context_length, num_heads, qkv_bias)
    with torch.no_grad():
        return module(x)


def hashed_forward(x, init_seed, output_width, num_heads, context_length):
    return hashed(x, init_seed, output_width // num_heads, num_heads, context_length)


def hashed_scale(x, init_seed, output_width, num_heads, context_length):
    module = mh.hashed_wrapper(init_seed, x.shape[-1], output_width // num_heads,
                               context_length, num_heads)
    return mh.wrapper_scale(x, mh.state_of(module), num_heads)


def built(d_out, heads, qkv_bias=False):
    """A mistake's wrong(): the wrapper built with d_out(output_width, num_heads) features per
    head and heads(output_width, num_heads) heads, the rest as the exercise asks. None where
    that wrapper cannot be built (no head, or heads of no features)."""
    def wrong(x, seed, width, num_heads, context_length):
        width, num_heads = int(width), int(num_heads)
        n_out, n_heads = d_out(width, num_heads), heads(width, num_heads)
        if n_out < 1 or n_heads < 1:
            return None
        return hashed(x, seed, n_out, n_heads, context_length, qkv_bias)
    return wrong


def divided(width, heads):
    return width // heads


def given(width, heads):
    return heads


COMPUTE_IT = ("compute d_out from the arguments, d_out = output_width / num_heads: the cases "
              "ask for other widths and head counts than the notebook's.")

# Each wrong choice of the wrapper's sizes a student makes, by what it builds. On the notebook's
# sizes (2 features, 2 heads) several build the same wrapper (d_out 2, or one head of 2): a
# case of 3 heads of d_out 4 (hashed_wide_heads) builds a different one for each.
MISTAKES = [
    Mistake("whole_width_per_head", "every head given the whole output_width as its d_out",
            "the heads' outputs are put side by side, so num_heads heads of d_out features "
            "give num_heads * d_out: each head gets d_out = output_width / num_heads.",
            built(lambda width, heads: width, given)),
    Mistake("width_times_heads", "d_out = output_width * num_heads (multiplied, not divided)",
            "num_heads heads of d_out features give num_heads * d_out = output_width "
            "features: solve for d_out, output_width / num_heads.",
            built(lambda width, heads: width * heads, given)),
    Mistake("d_out_fixed_at_2", "d_out fixed at 2 (the book's d_out before the exercise)",
            COMPUTE_IT, built(lambda width, heads: 2, given)),
    Mistake("d_out_fixed_at_1", "d_out fixed at 1 (the notebook's answer)",
            COMPUTE_IT, built(lambda width, heads: 1, given)),
    Mistake("d_out_num_heads", "d_out = num_heads",
            "d_out is the features of ONE head: output_width / num_heads.",
            built(lambda width, heads: heads, given)),
    Mistake("divided_by_2", "d_out = output_width / 2 (the book's num_heads) instead of "
            "/ num_heads",
            "divide by the num_heads argument: the cases also have 3 heads.",
            built(lambda width, heads: width // 2, given)),
    Mistake("one_wide_head", "one head of the whole width instead of num_heads heads",
            "keep num_heads heads (the exercise keeps num_heads=2) and change their d_out.",
            built(lambda width, heads: width, lambda width, heads: 1)),
    Mistake("one_head", "one head (num_heads = 1) of d_out = output_width / num_heads",
            "pass num_heads heads to the wrapper: num_heads heads of output_width / num_heads "
            "features each.",
            built(divided, lambda width, heads: 1)),
    Mistake("d_out_num_heads_swapped", "d_out and num_heads passed in each other's places",
            "the constructor takes (d_in, d_out, context_length, num_heads, qkv_bias, source): "
            "d_out second, num_heads fourth.",
            built(given, divided)),
    Mistake("num_heads_fixed_at_2", "num_heads fixed at 2 (the book's setting) instead of the "
            "num_heads argument",
            "pass the num_heads argument on: the cases also have 3 heads.",
            built(divided, lambda width, heads: 2)),
    Mistake("with_bias", "heads built with qkv_bias=True",
            "the exercise changes d_out only: the heads have no biases (qkv_bias = false).",
            built(divided, given, qkv_bias=True)),
]

HASHED = Kind(name="output_width_hashed",
              inputs=("x", "init_seed", "output_width", "num_heads", "context_length"),
              outputs=("context",), function=hashed_forward, scale=hashed_scale,
              reduction=lambda x, seed, width, heads, cl: {
                  "context": mh.wrapper_reduction(x, width // heads, True)},
              mistakes=lambda *arguments: MISTAKES)


def drawn_hashed(batch, tokens, d_in, width_per_head, num_heads):
    def make(draw):
        B, T, din = (draw.size(*s) for s in (batch, tokens, d_in))
        heads = draw.size(*num_heads)
        return {"x": draw.randn(B, T, din), "init_seed": draw.integer(0, 2**62),
                "output_width": heads * draw.size(*width_per_head), "num_heads": heads,
                "context_length": T}
    return make


def drawn_recorded(num_heads, batch, tokens, d_in, d_out):
    """make(draw) for `output_width`: num_heads heads' weights of d_out rows, and the
    output_width they make."""
    def make(draw):
        B, T, din, dout = (draw.size(*s) for s in (batch, tokens, d_in, d_out))
        return {"x": draw.randn(B, T, din), "output_width": num_heads * dout,
                "num_heads": num_heads, "context_length": T,
                **{name: draw.randn(dout, din) * 0.7 for name in mh.head_names(num_heads)}}
    return make


@recorder("17")
def record(exercise):
    batch = mh.cells.journey_batch()
    exercise.notebook("notebook", recorded_kind(2),
                      "exercise-solutions.ipynb, Exercise 3.2: MultiHeadAttentionWrapper(3, 1, "
                      "6, 0.0, num_heads=2) at seed 123 on ch03.ipynb's batch",
                      x=batch, output_width=2, num_heads=2, context_length=6,
                      **seeded_heads(123, 2, d_out=1))
    exercise.drawn("recorded_three_heads", recorded_kind(3),
                   "exercise-solutions.ipynb, Exercise 3.2's wrapper at other sizes: three heads "
                   "of d_out 2 (output_width 6), seeded randn weights",
                   drawn_recorded(3, (2, (1, 3)), (5, (1, 9)), (4, (1, 6)), (2, (1, 3))),
                   seed=1704)
    source = ("exercise-solutions.ipynb, Exercise 3.2 with the parameters of "
              "attn::HashedUniform(init_seed): the "
              "wrapper of num_heads heads whose output has output_width features")
    exercise.drawn("hashed_two_heads", HASHED, source + ", two heads of d_out 1",
                   drawn_hashed((2, (1, 3)), (6, (1, 9)), (3, (1, 6)), (1, (1, 3)), (2, (2, 2))),
                   seed=1701)
    exercise.drawn("hashed_three_heads", HASHED, source + ", three heads of d_out 2",
                   drawn_hashed((2, (1, 3)), (5, (1, 9)), (4, (1, 6)), (2, (1, 3)), (3, (2, 4))),
                   seed=1702)
    # Three heads of d_out 4: every wrong choice of d_out or num_heads above builds another
    # wrapper here (2 features and 2 heads cannot tell 2, output_width and num_heads apart).
    exercise.drawn("hashed_wide_heads", HASHED, source + ", three heads of d_out 4",
                   drawn_hashed((2, (1, 3)), (5, (2, 9)), (5, (1, 6)), (4, (4, 6)), (3, (3, 3))),
                   seed=1705)
    exercise.drawn("hashed_one_token", HASHED, source + ", one token",
                   drawn_hashed((1, (1, 3)), (1, (1, 1)), (3, (1, 6)), (2, (1, 3)), (2, (2, 4))),
                   seed=1703)

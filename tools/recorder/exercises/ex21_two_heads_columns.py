"""Exercise 21, two_heads_columns: multi-head self-attention in the column convention, the
heads' outputs stacked along dim 0 and combined by W_c (12_2_Multihead_Self_Attention.ipynb,
multihead_scaled_self_attention -> the 8x6 X_prime).

Sources cite the public notebook. Its PyTorch port, seed 003 Exercise 8, has the cells:
In [61] (mat_X = torch.randn(8, 6) after torch.manual_seed(3)), In [69] (after
torch.manual_seed(0): head 1's W_q1, W_k1, W_v1 (4, 8) and b_q1, b_k1, b_v1 (4, 1), head 2's,
then W_c (8, 8)), In [54] (multi_head_softmax_cols: softmax_cols with keepdim, the same
numbers as notebooks.softmax_cols), In [66] (multihead_scaled_self_attention) and In [72] (its
call, and `true_values`, the 8x6 X_prime at 3 decimals: check_printed reproduces it and
mat_X). The public notebook is numpy: np.random draws other numbers there, so its printed
true values differ; the goldens follow the PyTorch port, as exercise 08's do.

One kind for any number of heads: a case's inputs are X, heads.<h>.W_q ... heads.<h>.b_v for
every head h, and W_c (the C++ case reads heads until there is none). A head is exercise 08's
cell (trainable.scaled_dot_product_self_attention), and most mistakes are exercise 08's, made
in every head, or exercise 08 called with the head's parameters in another order (named where
d_v = d_k: elsewhere exercise 08 refuses the call; three_heads_same_sizes has three such
heads)."""

import math
from dataclasses import replace

import torch

from .. import trainable
from ..causal import cat
from ..cases import Kind, recorder
from ..mistakes import Mistake
from . import ex08_self_attention_columns as ex08

N, D, H = 6, 8, 2  # 003 In [61] and In [69]: six tokens of eight features, two heads
PARTS = ("W_q", "W_k", "W_v", "b_q", "b_k", "b_v")  # a head's parameters, In [69]'s draw order


def input_names(num_heads):
    """The kind's inputs in call order: X, every head's PARTS, W_c."""
    return ("X", *(f"heads.{h}.{part}" for h in range(num_heads) for part in PARTS), "W_c")


def split(arguments):
    """The call's arguments -> X, the heads as [{part: tensor}], W_c."""
    X, *flat, W_c = arguments
    heads = [dict(zip(PARTS, flat[at:at + len(PARTS)])) for at in range(0, len(flat), len(PARTS))]
    return X, heads, W_c


def head_output(X, head, cell=trainable.scaled_dot_product_self_attention):
    """003 In [66] steps 1 to 6 for one head, (d_v, N): exercise 08's cell (values first), or
    `cell`, one with the same arguments (a mistake, or the Tracked scale)."""
    return cell(X, head["W_v"], head["W_q"], head["W_k"], head["b_v"], head["b_q"], head["b_k"])


def multihead_scaled_self_attention(*arguments):
    """003 In [66] for any number of heads: the heads' outputs concatenated along dim 0, then
    W_c @ concatenated_output. The cell's d_k is K1.shape[0] for every head; each head here
    takes its own, the same as every head has the first one's shapes."""
    X, heads, W_c = split(arguments)
    concatenated_output = torch.cat([head_output(X, head) for head in heads], dim=0)
    return torch.matmul(W_c, concatenated_output)


def scale(*arguments):
    """The same maths on Tracked arguments: exercise 08's scale per head, stacked, W_c @."""
    X, heads, W_c = split(arguments)
    return W_c @ cat([head_output(X, head, ex08.full_scale) for head in heads], dim=0)


def reduction(*arguments):
    """The longest sums: projections (D products and the bias), scores (d_k), weighted values
    (N) and W_c's product (num_heads * d_v)."""
    X, heads, W_c = split(arguments)
    return {"X_prime": max(X.shape[0] + 1, heads[0]["W_k"].shape[0], X.shape[1], W_c.shape[1])}


# ---- mistakes ----------------------------------------------------------------------------

def combined(outputs, W_c):
    """W_c @ the outputs stacked along dim 0; None where they do not give W_c's columns."""
    stacked = torch.cat(outputs, dim=0)
    return W_c @ stacked if stacked.shape[0] == W_c.shape[1] else None


def in_every_head(slip):
    """A mistake's wrong(): `slip`, a wrong exercise 08 self-attention (its arguments), made
    in every head."""
    def wrong(*arguments):
        X, heads, W_c = split(arguments)
        outputs = [head_output(X, head, slip) for head in heads]
        return None if any(out is None for out in outputs) else combined(outputs, W_c)
    return wrong


def heads_then(arrange):
    """A mistake's wrong(): the right heads' outputs, put together by arrange(outputs, W_c)."""
    def wrong(*arguments):
        X, heads, W_c = split(arguments)
        return arrange([head_output(X, head) for head in heads], W_c)
    return wrong


def written_from_row_h(outputs, W_c):
    """Head h written into rows h to h + d_v of zeros (its offset h, not h * d_v): each head
    overwrites most of the one before, and the last rows stay 0."""
    d_v = outputs[0].shape[0]
    stacked = torch.zeros(len(outputs) * d_v, outputs[0].shape[1])
    for h, out in enumerate(outputs):
        stacked[h:h + d_v] = out
    return W_c @ stacked


def last_head_left_out(outputs, W_c):
    """The loop over heads stopped one early: the last head's rows of the stack stay 0."""
    if len(outputs) < 2:
        return None
    return combined(outputs[:-1] + [torch.zeros_like(outputs[-1])], W_c)


def first_head_for_all(*arguments):
    X, heads, W_c = split(arguments)
    return combined([head_output(X, heads[0])] * len(heads), W_c)


def sqrt_of_D(X, *rest):
    """One head divided by sqrt(D), the model's size."""
    return ex08.attention(X, *rest, divisor=math.sqrt(X.shape[0]))


# Exercise 08's mistakes that a multi-head function can make in each head (sqrt_of_D has its
# own hint below; W_v and W_q passed in each other's places is one of the call orders below).
FROM_08 = ("unscaled", "row_softmax", "row_convention_formula", "weights_transposed",
           "scores_transposed", "forgot_bias", "returned_values")

SIGNATURE = ("X", "W_v", "W_q", "W_k", "b_v", "b_q", "b_k")  # exercise 08's, values first


def called_as(*order):
    """One head: exercise 08 called with the head's parameters in `order` (six names of
    SIGNATURE[1:]) in place of (W_v, W_q, W_k, b_v, b_q, b_k). None where exercise 08's checks
    refuse the call (its keys' rows are not its queries', a bias not its weight's rows), or
    its result has not d_v rows (it does not fit the head's rows of the stack)."""
    def cell(X, W_v, W_q, W_k, b_v, b_q, b_k):
        given = dict(zip(SIGNATURE[1:], (W_v, W_q, W_k, b_v, b_q, b_k)))
        A, B, C, a, b, c = (given[name] for name in order)
        if (C.shape[0] != B.shape[0] or a.shape[0] != A.shape[0] or b.shape[0] != B.shape[0]
                or c.shape[0] != C.shape[0] or A.shape[0] != W_v.shape[0]):
            return None
        return trainable.scaled_dot_product_self_attention(X, A, B, C, a, b, c)
    return cell


CALL_HINT = ("exercise 08's parameters are (X, W_v, W_q, W_k, b_v, b_q, b_k), values first as "
             "in the notebook: pass head.W_v, head.W_q, head.W_k, head.b_v, head.b_q, head.b_k "
             "in that order.")


def call_order_mistake(slug, *order, named_when_shared=False):
    shown = ", ".join(("X",) + order)
    return Mistake(slug, f"called exercise 08 as scaled_dot_product_self_attention({shown})",
                   CALL_HINT, in_every_head(called_as(*order)), family="exercise_08_call_order",
                   named_when_shared=named_when_shared)


# The orders a student passes the head's parameters in: q, k, v (the order the projections are
# written in), the weights or the biases alone so, two swapped. W_q and W_k swapped gives
# queries.T @ keys on every input (scores_transposed), so it is named with it.
CALL_ORDERS = [
    call_order_mistake("called_q_k_v", "W_q", "W_k", "W_v", "b_q", "b_k", "b_v"),
    call_order_mistake("called_weights_q_k_v", "W_q", "W_k", "W_v", "b_v", "b_q", "b_k"),
    call_order_mistake("called_biases_q_k_v", "W_v", "W_q", "W_k", "b_q", "b_k", "b_v"),
    call_order_mistake("called_W_v_W_q_swapped", "W_q", "W_v", "W_k", "b_q", "b_v", "b_k"),
    call_order_mistake("called_W_v_W_k_swapped", "W_k", "W_q", "W_v", "b_k", "b_q", "b_v"),
    call_order_mistake("called_k_v_q", "W_k", "W_v", "W_q", "b_k", "b_v", "b_q"),
    call_order_mistake("called_W_q_W_k_swapped", "W_v", "W_k", "W_q", "b_v", "b_k", "b_q",
                       named_when_shared=True),
]


def without(bias):
    """One head with one bias left out (b_k alone changes nothing: softmax_cols takes away
    b_k . q_n, the same for every key of query n's column)."""
    def cell(X, W_v, W_q, W_k, b_v, b_q, b_k):
        biases = {"b_v": b_v, "b_q": b_q, "b_k": b_k}
        biases[bias] = torch.zeros_like(biases[bias])
        return trainable.scaled_dot_product_self_attention(X, W_v, W_q, W_k, biases["b_v"],
                                                           biases["b_q"], biases["b_k"])
    return cell


def multiplied_by_sqrt(X, W_v, W_q, W_k, b_v, b_q, b_k):
    """One head with its scores multiplied by sqrt(d_k) instead of divided, its softmax_cols
    max-subtracted as the kit's (exp of the notebook's scores times 2 overflows float32)."""
    queries, keys, values = W_q @ X + b_q, W_k @ X + b_k, W_v @ X + b_v
    return values @ torch.softmax(keys.T @ queries * math.sqrt(keys.shape[0]), dim=0)


def scaled_after_softmax(X, W_v, W_q, W_k, b_v, b_q, b_k):
    """One head with the scale applied to the weights, after softmax_cols."""
    return ex08.attention(X, W_v, W_q, W_k, b_v, b_q, b_k, divisor=1.0) / math.sqrt(W_k.shape[0])


def W_c_per_head(outputs, W_c):
    """Each head multiplied by its own block of W_c's columns, the (D_out, N) products stacked
    (W_c applied before the stacking instead of summing them: W_c @ stacked is their sum)."""
    d_v = outputs[0].shape[0]
    return torch.cat([W_c[:, h * d_v:(h + 1) * d_v] @ out for h, out in enumerate(outputs)],
                     dim=0)


def W_c_first_block(outputs, W_c):
    """Each head multiplied by W_c's FIRST d_v columns (the offset h * d_v left out), summed."""
    d_v = outputs[0].shape[0]
    return sum(W_c[:, :d_v] @ out for out in outputs)


MISTAKES = [
    Mistake("W_c_left_out", "left out W_c (returned the stacked heads)",
            "the stacked heads are (num_heads * d_v, N); W_c mixes them into each token's "
            "output: X_prime = W_c @ stacked.",
            heads_then(lambda outputs, W_c: torch.cat(outputs, dim=0))),
    Mistake("heads_swapped", "stacked the heads in reverse order (the last head on top)",
            "torch.cat((head1_output, head2_output), dim=0): head 0's output takes the first "
            "d_v rows, head h rows h * d_v to (h + 1) * d_v - 1, so each meets its own "
            "columns of W_c.",
            heads_then(lambda outputs, W_c: combined(outputs[::-1], W_c))),
    Mistake("written_from_row_h", "wrote head h from row h instead of row h * d_v",
            "the heads are d_v rows tall: head h goes into rows h * d_v to (h + 1) * d_v - 1 "
            "(xt::range(h * d_v, (h + 1) * d_v)); from row h they overlap.",
            heads_then(written_from_row_h)),
    Mistake("last_head_left_out", "left out the last head (its rows of the stack stay 0)",
            "loop over every head, h < heads.size(): each fills its d_v rows of the stack.",
            heads_then(last_head_left_out)),
    Mistake("first_head_for_all", "ran the first head for every head",
            "each head has its own W_q, W_k, W_v and biases: use heads[h]'s for head h.",
            first_head_for_all),
    Mistake("W_c_transposed", "multiplied by W_c transposed",
            "W_c is (D_out, num_heads * d_v): X_prime = W_c @ stacked, no transpose.",
            heads_then(lambda outputs, W_c: W_c.T @ torch.cat(outputs, dim=0)
                       if W_c.shape[0] == W_c.shape[1] else None)),
    Mistake("W_c_per_head_stacked", "multiplied each head by its block of W_c and stacked the "
            "products (W_c applied before stacking)",
            "stack the heads first, then one product: X_prime = W_c @ stacked, (D_out, N). "
            "Per head, the blocks' products are summed, not stacked.",
            heads_then(W_c_per_head)),
    Mistake("W_c_first_block", "multiplied every head by W_c's first d_v columns",
            "head h meets W_c's columns h * d_v to (h + 1) * d_v - 1: stack the heads and "
            "compute W_c @ stacked.",
            heads_then(W_c_first_block)),
    Mistake("scaled_after_softmax", "in every head: divided the attention weights by "
            "sqrt(d_k) after softmax_cols",
            "the scale belongs inside the softmax: softmax_cols(K.T @ Q / sqrt(d_k)); divided "
            "afterwards, the columns of the weights no longer sum to 1.",
            in_every_head(scaled_after_softmax)),
    Mistake("multiplied_by_sqrt", "in every head: multiplied the scores by sqrt(d_k) instead "
            "of dividing",
            "divide the scores by sqrt(d_k): softmax_cols(K.T @ Q / sqrt(d_k)).",
            in_every_head(multiplied_by_sqrt)),
    *CALL_ORDERS[:-1],
    Mistake("sqrt_of_D", "in every head: divided by sqrt(D), the model's size, instead of "
            "sqrt(d_k)",
            "each head's keys are d_k = K.shape(0) long (D / num_heads in the notebook): "
            "divide the head's scores by sqrt(d_k), not by sqrt(D).",
            in_every_head(sqrt_of_D)),
    *(replace(mistake, name=f"in every head: {mistake.name}", wrong=in_every_head(mistake.wrong))
      for mistake in ex08.FULL if mistake.slug in FROM_08),
    # After forgot_bias: with one token b_q changes nothing, and the two are one answer.
    Mistake("forgot_b_q", "in every head: left out b_q (queries = W_q X)",
            "queries = W_q X + b_q: add the head's query bias.", in_every_head(without("b_q"))),
    Mistake("forgot_b_v", "in every head: left out b_v (values = W_v X)",
            "values = W_v X + b_v: add the head's value bias.", in_every_head(without("b_v"))),
    CALL_ORDERS[-1],
]


def kind(num_heads):
    """The C++ case multi_head_attention_columns, for cases of `num_heads` heads."""
    return Kind(
        name="multi_head_attention_columns", inputs=input_names(num_heads),
        outputs=("X_prime",), function=multihead_scaled_self_attention, scale=scale,
        reduction=reduction, mistakes=lambda *arguments: MISTAKES,
        tokens=(("column", 1, N),))


# ---- the notebook's data -----------------------------------------------------------------

def notebook_inputs():
    """003 In [61] and In [69] as the case's inputs: mat_X after torch.manual_seed(3); after
    torch.manual_seed(0) each head's W_q, W_k, W_v (H_D, D) and b_q, b_k, b_v (H_D, 1), head
    by head, then W_c (D, D)."""
    torch.manual_seed(3)
    inputs = {"X": torch.randn(D, N)}
    H_D = int(D / H)
    torch.manual_seed(0)
    for h in range(H):
        for part in PARTS:
            inputs[f"heads.{h}.{part}"] = torch.randn(size=(H_D, D if part[0] == "W" else 1))
    inputs["W_c"] = torch.randn(size=(D, D))
    return inputs


# What 003 prints at 3 decimals: mat_X (In [61]) and true_values (In [72]).
PRINTED_X = [[-0.077, 0.360, -0.782, 0.072, 0.665, -0.287],
             [1.621, -1.597, -0.052, -0.306, 0.249, -0.223],
             [0.913, 0.204, 0.574, 0.416, 0.262, 0.931],
             [-0.514, -1.652, 1.046, 0.522, -0.167, 0.053],
             [0.564, 2.257, 1.869, -1.195, 0.998, 0.459],
             [2.436, -0.147, -0.476, -0.293, -0.348, 0.349],
             [0.037, -0.068, 0.429, -0.868, -0.271, 0.142],
             [0.130, 0.681, -0.958, 0.064, 0.659, 0.819]]
TRUE_VALUES = [[7.501, 15.386, 12.121, 23.458, 5.546, -7.499],
               [4.221, 4.875, -2.205, 4.050, -4.525, 5.155],
               [1.891, 3.035, 3.399, 2.733, 2.958, -0.824],
               [2.621, 2.177, -4.974, -0.925, -1.928, 3.726],
               [-0.130, -0.250, 3.700, 0.948, 9.384, 0.697],
               [2.524, 1.555, -0.789, 2.667, -0.459, 4.428],
               [0.056, -1.688, -1.537, -1.700, 0.391, 4.648],
               [-1.352, -4.136, -8.878, -1.003, -12.857, -4.945]]


def check_printed():
    """The notebook's inputs and its X_prime agree with what 003 prints, at 3 decimals."""
    inputs = notebook_inputs()
    trainable.require_printed("003 In [61] mat_X", inputs["X"], PRINTED_X, decimals=3)
    trainable.require_printed("003 In [72] true_values",
                              multihead_scaled_self_attention(*inputs.values()), TRUE_VALUES,
                              decimals=3)


def drawn_heads(num_heads, D, d_k, d_v, tokens):
    """make(draw): X (D, N) randn, and `num_heads` heads of exercise 08's parameters and W_c
    (D, num_heads * d_v) drawn as nn.Linear initialises a layer's weight and bias: uniform
    in +-1/sqrt(fan_in), fan_in D for the heads' and num_heads * d_v for W_c. (At the
    notebook's randn magnitudes the scores reach about 30 and float32 cannot resolve X_prime's
    4th decimal: the notebook case's tolerance passes its values rounded to 4 decimals. These
    cases' tolerances do not, so a table of printed values fails them.) Sizes are (public,
    hidden range); d_v None: d_v = d_k, as in the notebook."""
    def make(draw):
        n_D, dk, n_tokens = draw.size(*D), draw.size(*d_k), draw.size(*tokens)
        dv = dk if d_v is None else draw.size(*d_v)
        rows = {"q": dk, "k": dk, "v": dv}
        made = {"X": draw.randn(n_D, n_tokens)}
        bound = 1.0 / math.sqrt(n_D)
        for h in range(num_heads):
            for part in PARTS:
                made[f"heads.{h}.{part}"] = draw.uniform(-bound, bound, rows[part[-1]],
                                                         n_D if part[0] == "W" else 1)
        bound_c = 1.0 / math.sqrt(num_heads * dv)
        made["W_c"] = draw.uniform(-bound_c, bound_c, n_D, num_heads * dv)
        return made
    return make


@recorder("21")
def record(exercise):
    if exercise.public:
        check_printed()
    udl = "12_2_Multihead_Self_Attention.ipynb multihead_scaled_self_attention"
    exercise.notebook("notebook", kind(H), udl + " (PyTorch, seeds 3 and 0), X_prime",
                      **notebook_inputs())
    seeded = udl + " on seeded randn X and nn.Linear-initialised parameters"
    # The notebook's shapes with other values: a table of its answers keyed on the shape fails.
    exercise.drawn("notebook_shape", kind(H), seeded + ", the notebook's shapes",
                   drawn_heads(H, (8, (2, 10)), (4, (1, 6)), None, (6, (1, 12))), seed=2101)
    # Nine tokens: a loop fixed to the notebook's six leaves three columns unfilled.
    exercise.drawn("three_heads", kind(3), seeded + ", three heads, nine tokens, W_c (5, 6)",
                   drawn_heads(3, (5, (2, 10)), (3, (1, 6)), (2, (1, 6)), (9, (1, 12))),
                   seed=2102)
    # Three heads with d_v = d_k: exercise 08 called with its parameters in another order
    # runs only where the values have the queries' size, and is named here apart from the
    # notebook's two heads.
    exercise.drawn("three_heads_same_sizes", kind(3),
                   seeded + ", three heads of d_k = d_v = 3, seven tokens, W_c (6, 9)",
                   drawn_heads(3, (6, (2, 10)), (3, (2, 6)), None, (7, (2, 12))), seed=2106)
    exercise.drawn("values_wider", kind(H), seeded + ", d_v = 5 != d_k = 2",
                   drawn_heads(H, (6, (2, 10)), (2, (1, 6)), (5, (1, 6)), (4, (1, 12))),
                   seed=2103)
    exercise.drawn("one_token", kind(H),
                   seeded + ", one token: each head's only weight is 1, its output its values",
                   drawn_heads(H, (4, (2, 10)), (3, (1, 6)), (2, (1, 6)), (1, (1, 1))),
                   seed=2104)
    exercise.drawn("one_head", kind(1), seeded + ", one head: exercise 08 followed by W_c",
                   drawn_heads(1, (5, (2, 10)), (4, (1, 6)), (3, (1, 6)), (5, (1, 12))),
                   seed=2105)

"""Exercise 22, gpt2_sizing: GPT-2 small's attention layer (the book's Exercise 3.3,
exercise-solutions.ipynb; 002 In [9] to In [12]; 000's Exercise 3.3), built by the student's
gpt2_small_attention and run at T = 64 (the whole output a golden) and T = 1024 (000's batch
of one 1024-token sequence; its (1, 1024, 768) output is checked by its sums over each token
and each feature); its parameters, memory and FLOPs counted exactly (int64 goldens).

No case stores a GPT-2-width tensor: the module comes from attn::HashedUniform(init_seed) and
x from init.hashed_uniform(x_seed, "x", ...), which C++ computes alike (test_init).
The byte and FLOP counts also have cases past 2^31 and 2^32 (a batch of 64, a 30,000-token
context, a 128,000-token mask, GPT-2 medium's width; drawn ones too, hidden sets included), so
a count multiplied in int or unsigned fails, and their accounting slips are named: a float64
width, the batch or the heads left out, the causal half, the projections left out.
Reproduced (check_printed): 002 In [11]'s counts, W_query 590,592 and the total 2,362,368
(qkv_bias=True); 001 In [39]'s module (qkv_bias=False) has 2,360,064."""

import torch

from .. import multihead as mh
from .. import notebooks
from ..bounds import Tracked
from ..cases import Kind, recorder
from ..init import hashed_uniform
from ..mistakes import Mistake

GPT2 = {"d_in": 768, "d_out": 768, "context_length": 1024, "num_heads": 12}


def int64(value):
    return torch.tensor(int(value), dtype=torch.int64)


# ---- the layer's forward -------------------------------------------------------------------

def layer_state(seed, qkv_bias, **sizes):
    """The state_dict of MultiHeadAttention at GPT-2's sizes (or `sizes` changed) as
    attn::HashedUniform(seed) builds it."""
    config = {**GPT2, **sizes}
    module = mh.hashed_mha(seed, config["d_in"], config["d_out"], config["context_length"],
                           config["num_heads"], bool(qkv_bias))
    return mh.state_of(module), config


def x_of(x_seed, batch, T, d_in):
    """x as C++ draws it, in torch's default dtype (float64 for the recorder's reference)."""
    return hashed_uniform(x_seed, "x", (batch, T, d_in), -1.0, 1.0).to(torch.get_default_dtype())


def layer_forward(init_seed, x_seed, batch, T, d_in, qkv_bias, **sizes):
    """The student's layer (GPT-2's sizes, or `sizes` as a mistake has them) on the case's x;
    None where that layer refuses x (the C++ call throws)."""
    state, config = layer_state(init_seed, qkv_bias, **sizes)
    if config["d_in"] != d_in or T > config["context_length"]:
        return None
    with torch.no_grad():
        return mh.mha_forward(x_of(x_seed, batch, T, d_in), state, config["num_heads"],
                              config["context_length"])


def sums(context):
    return None if context is None else {"token_sums": context.sum(dim=2),
                                         "feature_sums": context.sum(dim=1)}


LAYER_MISTAKES = [
    ("head_dim_as_heads", "num_heads = 64 (GPT-2's head_dim, not its number of heads)",
     "GPT-2 small has 12 heads of head_dim 64: num_heads = 12, and 768 / 12 = 64 follows.",
     {"num_heads": 64}),
    ("one_head", "one head of 768 instead of 12 heads of 64",
     "GPT-2 small has 12 attention heads: num_heads = 12.", {"num_heads": 1}),
    ("context_length_768", "context_length = 768 (the embedding size, not the context)",
     "GPT-2 small reads up to 1,024 tokens: context_length = 1024; 768 is d_in and d_out.",
     {"context_length": 768}),
]


# qkv_bias ignored, as two mistakes: the projections built always without biases (wrong
# only where qkv_bias is True) and always with them (wrong only where it is False). As one
# mistake "not qkv_bias", the case where the student's layer is right would contradict it.
QKV_BIAS_HINT = ("pass qkv_bias on to MultiHeadAttention: GPT-2 uses biases in W_query, W_key, "
                 "W_value; the book's solution does not.")
QKV_BIAS_IGNORED = [
    ("qkv_bias_ignored_false", "qkv_bias ignored (W_query, W_key, W_value built without "
     "biases although qkv_bias is true)", QKV_BIAS_HINT, False),
    ("qkv_bias_ignored_true", "qkv_bias ignored (W_query, W_key, W_value built with biases "
     "although qkv_bias is false)", QKV_BIAS_HINT, True),
]


def layer_mistakes(output_of):
    """The wrong layers as mistakes of a forward kind whose outputs are output_of(context)."""
    mistakes = [Mistake(slug, name, hint,
                        lambda s, xs, b, T, d, bias, changed=changed: output_of(
                            layer_forward(s, xs, b, T, d, bias, **changed)))
                for slug, name, hint, changed in LAYER_MISTAKES]
    mistakes += [Mistake(slug, name, hint,
                         lambda s, xs, b, T, d, bias, built=built: output_of(
                             layer_forward(s, xs, b, T, d, built)) if bias != built else None)
                 for slug, name, hint, built in QKV_BIAS_IGNORED]
    return mistakes


def layer_scale(init_seed, x_seed, batch, T, d_in, qkv_bias):
    state, config = layer_state(init_seed, qkv_bias)
    return mh.mha_scale(Tracked.exact(x_of(x_seed, batch, T, d_in)), state, config["num_heads"])


LAYER_INPUTS = ("init_seed", "x_seed", "batch", "T", "d_in", "qkv_bias")

FORWARD = Kind(
    name="gpt2_forward", inputs=LAYER_INPUTS, outputs=("context",), function=layer_forward,
    scale=layer_scale,
    reduction=lambda s, xs, batch, T, d_in, bias: {"context": max(T, d_in + bias, 768 + 1)},
    mistakes=lambda *arguments: layer_mistakes(lambda context: context))


def sums_scale(*arguments):
    context = layer_scale(*arguments)
    return {"token_sums": context.sum(dim=2), "feature_sums": context.sum(dim=1)}


FORWARD_SUMS = Kind(
    name="gpt2_forward_sums", inputs=LAYER_INPUTS, outputs=("token_sums", "feature_sums"),
    function=lambda *arguments: sums(layer_forward(*arguments)), scale=sums_scale,
    # a sum of 768 (or T) context values, each of the forward's reduction length
    reduction=lambda s, xs, batch, T, d_in, bias: {
        "token_sums": max(T, d_in + bias, 769) + 768,
        "feature_sums": max(T, d_in + bias, 769) + T},
    mistakes=lambda *arguments: layer_mistakes(sums),
    derive=lambda made: made if isinstance(made, dict) else {})


def layer_sizes(qkv_bias, **changed):
    """[d_in, d_out, num_heads, context_length, qkv_bias] of the layer, as int64."""
    config = {**GPT2, **changed}
    return torch.tensor([config["d_in"], config["d_out"], config["num_heads"],
                         config["context_length"], int(qkv_bias)], dtype=torch.int64)


# At GPT-2 width the forward's first-order error bound is loose (its tolerance ~ 8e-3 on
# values ~0.5), so a wrong layer fails the forward cases ~5 tolerances off, too close to be
# named; the sizes of the layer name the mistake exactly. The test, not the student, fills
# the sizes vector, so no loop slip is a mistake of it: the kind's function returns a dict
# (one output by name), which the loop slips leave alone. (With them, qkv_bias ignored at
# qkv_bias=True, [.., 0], was "last element never filled" too, and named neither.)
SIZES = Kind(
    name="gpt2_layer_sizes", inputs=("qkv_bias",), outputs=("sizes",),
    function=lambda bias: {"sizes": layer_sizes(bias)}, scale=None, reduction=None,
    mistakes=lambda *arguments: [
        *(Mistake(slug, name, hint,
                  lambda bias, changed=changed: {"sizes": layer_sizes(bias, **changed)})
          for slug, name, hint, changed in LAYER_MISTAKES),
        *(Mistake(slug, name, hint, lambda bias, built=built:
                  {"sizes": layer_sizes(int(built))} if bias != int(built) else None)
          for slug, name, hint, built in QKV_BIAS_IGNORED)],
    derive=lambda made: made)


# ---- the counts ----------------------------------------------------------------------------

def linear_count(d_in, d_out, bias):
    return int64(d_out * d_in + (d_out if bias else 0))


LINEAR_COUNT = Kind(
    name="linear_parameter_count", inputs=("d_in", "d_out", "bias"), outputs=("count",),
    function=linear_count, scale=None, reduction=None,
    mistakes=lambda *arguments: [
        Mistake("bias_left_out", "the bias left out", "a Linear's parameters are its weight's "
                "values AND its bias's (weight.size() + bias.size()).",
                lambda d_in, d_out, bias: int64(d_out * d_in) if bias else None),
        Mistake("weight_rows_only", "counted the weight's rows, not its values",
                "weight.size() is rows * columns = d_out * d_in; shape(0) is only d_out.",
                lambda d_in, d_out, bias: int64(d_out + (d_out if bias else 0))),
    ])


def module_count(d_in, d_out, context_length, num_heads, qkv_bias):
    """sum(p.numel() for p in MultiHeadAttention(...).parameters())."""
    module = notebooks.MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads,
                                          qkv_bias=bool(qkv_bias))
    return int64(sum(p.numel() for p in module.parameters()))


def count_without(*left_out):
    """The count with some parameters left out (names as in the state_dict)."""
    def wrong(d_in, d_out, context_length, num_heads, qkv_bias):
        module = notebooks.MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads,
                                              qkv_bias=bool(qkv_bias))
        return int64(sum(p.numel() for name, p in module.named_parameters()
                         if name not in left_out))
    return wrong


MODULE_COUNT = Kind(
    name="parameter_count", inputs=("d_in", "d_out", "context_length", "num_heads", "qkv_bias"),
    outputs=("count",), function=module_count, scale=None, reduction=None,
    mistakes=lambda *arguments: [
        Mistake("out_proj_left_out", "out_proj left out", "the module has four Linear layers: "
                "W_query, W_key, W_value AND out_proj.",
                count_without("out_proj.weight", "out_proj.bias")),
        Mistake("out_proj_bias_left_out", "out_proj's bias left out",
                "out_proj always has a bias (nn.Linear(d_out, d_out)), whatever qkv_bias is.",
                count_without("out_proj.bias")),
        Mistake("mask_counted", "the mask buffer counted as parameters",
                "the mask is a buffer (register_buffer), not a parameter: leave it out.",
                lambda d_in, d_out, cl, heads, bias: int64(
                    module_count(d_in, d_out, cl, heads, bias) + cl * cl)),
        Mistake("qkv_biases_left_out", "the biases of W_query, W_key and W_value left out",
                "with qkv_bias=True the three projections have a bias each: d_out more "
                "parameters apiece.", count_without("W_query.bias", "W_key.bias", "W_value.bias")),
        Mistake("weights_only", "the biases left out",
                "count the biases too: out_proj's always, the projections' with qkv_bias.",
                count_without("W_query.bias", "W_key.bias", "W_value.bias", "out_proj.bias")),
    ])


# The accounting slips of the byte counts. Each is a plain factor of the answer, so a case
# names one only where its factor differs from every other's (batch 2 and float64's 8 bytes:
# x1/2 and x2; batch 4 and values, not bytes: both x1/4, named by neither there).
FLOAT64_WIDTH = ("float64_width", "8 bytes a value (float64, double), not float32's 4",
                 "the tensors are float32, as PyTorch's default: sizeof(float) = 4 bytes a "
                 "value, not sizeof(double).")


def score_bytes(batch, num_heads, T):
    return int64(batch * num_heads * T * T * 4)


SCORE_BYTES = Kind(
    name="score_tensor_bytes", inputs=("batch", "num_heads", "T"), outputs=("bytes",),
    function=score_bytes, scale=None, reduction=None,
    mistakes=lambda *arguments: [
        Mistake("values_not_bytes", "counted values, not bytes",
                "a float32 value takes 4 bytes (sizeof(float)): multiply the count by 4.",
                lambda b, h, T: int64(b * h * T * T)),
        Mistake(*FLOAT64_WIDTH, lambda b, h, T: int64(b * h * T * T * 8)),
        Mistake("batch_left_out", "the batch left out (one sequence's scores)",
                "every sequence of the batch has its own scores: (B, num_heads, T, T), "
                "so multiply by batch too.",
                lambda b, h, T: int64(h * T * T * 4) if b > 1 else None),
        Mistake("heads_left_out", "one head's scores only (num_heads left out)",
                "every head has its own (T, T) scores: (B, num_heads, T, T).",
                lambda b, h, T: int64(b * T * T * 4) if h > 1 else None),
        Mistake("t_not_squared", "T instead of T * T",
                "a score for every pair of tokens: T * T per head.",
                lambda b, h, T: int64(b * h * T * 4) if T > 1 else None),
        Mistake("causal_half", "only the causal half counted (T (T + 1) / 2 scores a head)",
                "the mask hides the future, but the tensor still holds every score: T * T "
                "a head, masked ones too.", lambda b, h, T: int64(b * h * (T * (T + 1) // 2) * 4)),
    ])


def mask_bytes(context_length):
    return int64(context_length * context_length * 4)


MASK_BYTES = Kind(
    name="mask_buffer_bytes", inputs=("context_length",), outputs=("bytes",),
    function=mask_bytes, scale=None, reduction=None,
    mistakes=lambda *arguments: [
        Mistake("values_not_bytes", "counted values, not bytes",
                "the buffer is float32 (torch.ones): 4 bytes a value.",
                lambda cl: int64(cl * cl)),
        Mistake(*FLOAT64_WIDTH, lambda cl: int64(cl * cl * 8)),
        Mistake("upper_triangle_only", "counted only the ones above the diagonal",
                "the buffer stores every entry of the (context_length, context_length) "
                "matrix, zeros too.", lambda cl: int64(cl * (cl - 1) // 2 * 4)),
        Mistake("causal_half", "counted only the lower triangle (the causal half)",
                "the buffer stores every entry of the (context_length, context_length) "
                "matrix, both triangles.", lambda cl: int64(cl * (cl + 1) // 2 * 4)),
    ])


def flops(d_in, d_out, context_length, num_heads, qkv_bias, batch, T):
    """The closed formula, 2 B T (3 d_in d_out + d_out^2) + 4 B T^2 d_out."""
    return int64(2 * batch * T * (3 * d_in * d_out + d_out * d_out) + 4 * batch * T * T * d_out)


def flops_without(projections=3, attention=2, out_proj=1, per_multiply_add=2, head_dim=None,
                  batch=None, heads=None, pairs=None):
    """The step-by-step count with a slip: a number of products, a size or the FLOPs per
    multiply-add changed. `pairs(T)`: the (query, key) pairs each attention product covers
    (T * T; the causal half T (T + 1) / 2); `batch`, `heads`: the B and num_heads used."""
    def wrong(d_in, d_out, context_length, num_heads, qkv_bias, B, T):
        hd = d_out // num_heads if head_dim is None else head_dim(d_in, d_out, num_heads)
        b = B if batch is None else batch
        h = num_heads if heads is None else heads
        attended = T * T if pairs is None else pairs(T)
        products = (projections * b * T * d_in * d_out
                    + attention * b * h * attended * hd
                    + out_proj * b * T * d_out * d_out)
        return int64(per_multiply_add * products)
    return wrong


def attention_flops_halved(d_in, d_out, context_length, num_heads, qkv_bias, B, T):
    """Both attention products, each at 1 FLOP a multiply-add: the same number as one of
    them at 2 (flops_without(attention=1)), so one mistake names both."""
    hd = d_out // num_heads
    return int64(2 * (3 * B * T * d_in * d_out + B * T * d_out * d_out)
                 + 1 * 2 * B * num_heads * T * T * hd)


FLOPS = Kind(
    name="forward_flops",
    inputs=("d_in", "d_out", "context_length", "num_heads", "qkv_bias", "batch", "T"),
    outputs=("flops",), function=flops, scale=None, reduction=None,
    mistakes=lambda *arguments: [
        Mistake("multiply_adds", "counted multiply-adds, not FLOPs (half the answer)",
                "each multiply-add is 2 floating-point operations: a multiplication and an "
                "addition.", flops_without(per_multiply_add=1)),
        Mistake("out_proj_left_out", "out_proj's product left out",
                "the merged heads go through out_proj: one more (B * T, d_out) @ (d_out, d_out).",
                flops_without(out_proj=0)),
        Mistake("one_projection", "one projection counted instead of three",
                "queries, keys and values are three products of (B * T, d_in) @ (d_in, d_out).",
                flops_without(projections=1)),
        Mistake("projections_left_out", "the query, key and value projections left out",
                "x goes through W_query, W_key and W_value first: three products of "
                "(B * T, d_in) @ (d_in, d_out).", flops_without(projections=0)),
        Mistake("linear_layers_left_out", "only the attention counted (the four Linear "
                "layers' products left out)",
                "the projections and out_proj are matrix products too: 3 of (B * T, d_in) @ "
                "(d_in, d_out) and 1 of (B * T, d_out) @ (d_out, d_out).",
                flops_without(projections=0, out_proj=0)),
        # One attention product left out, or both at 1 FLOP a multiply-add: the same number
        # on every case, so the name covers both.
        Mistake("attention_halved", "the attention's FLOPs halved: one of its two products "
                "left out, or the multiply-add's x2 dropped on them",
                "two products per head, queries @ keys.T for the scores AND weights @ values, "
                "each 2 FLOPs per multiply-add.", attention_flops_halved),
        Mistake("head_dim_as_d_out", "each head's attention counted at d_out, not head_dim",
                "a head's queries and keys have head_dim = d_out / num_heads features.",
                flops_without(head_dim=lambda d_in, d_out, heads: d_out)),
        Mistake("one_head_only", "the attention of one head only (num_heads left out)",
                "every head does its own two attention products: multiply them by "
                "B * num_heads.",
                lambda *a: flops_without(heads=1)(*a) if a[3] > 1 else None),
        Mistake("batch_left_out", "the batch left out (one sequence's FLOPs)",
                "every sequence of the batch goes through every product: the projections and "
                "out_proj have B * T rows, and the attention runs B * num_heads times.",
                lambda *a: flops_without(batch=1)(*a) if a[5] > 1 else None),
        Mistake("causal_half", "the attention counted over the causal half only "
                "(T (T + 1) / 2 pairs a head)",
                "the module computes every score, masked ones too, and multiplies the whole "
                "(T, T) weights by the values: count T * T pairs a head.",
                lambda *a: flops_without(pairs=lambda T: T * (T + 1) // 2)(*a) if a[6] > 1
                else None),
    ])


def check_printed():
    """002 In [11]: W_query 590,592, the total 2,362,368 (qkv_bias=True); 001 In [39]'s module
    (qkv_bias=False): 2,360,064."""
    for got, want, what in ((linear_count(768, 768, True), 590_592, "002 In [11] W_query"),
                            (module_count(768, 768, 1024, 12, True), 2_362_368, "002 In [11]"),
                            (module_count(768, 768, 1024, 12, False), 2_360_064, "001 In [39]")):
        if int(got) != want:
            raise AssertionError(f"{what}: {int(got)} parameters")


@recorder("22")
def record(exercise):
    check_printed()
    gpt2 = "the book's Exercise 3.3 (exercise-solutions.ipynb)"
    with_bias = ("exercise-solutions.ipynb, Exercise 3.3 with GPT-2's qkv_bias=True (GPT-2's "
                 "query, key and value layers have biases)")
    exercise.notebook("notebook_w_query", LINEAR_COUNT, f"{with_bias}: W_query's parameters",
                      d_in=768, d_out=768, bias=1)
    exercise.notebook("notebook_no_bias", LINEAR_COUNT, f"{gpt2}: W_query without a bias",
                      d_in=768, d_out=768, bias=0)
    exercise.notebook("notebook_qkv_bias", MODULE_COUNT, f"{with_bias}: qkv_bias=True",
                      **GPT2, qkv_bias=1)
    exercise.notebook("notebook", MODULE_COUNT, f"{gpt2}: qkv_bias=False", **GPT2, qkv_bias=0)
    exercise.notebook("notebook_scores", SCORE_BYTES, f"{gpt2}: one 1024-token sequence",
                      batch=1, num_heads=12, T=1024)
    exercise.notebook("notebook_scores_short", SCORE_BYTES,
                      f"{with_bias}: a batch of 2 sequences of 128 tokens",
                      batch=2, num_heads=12, T=128)
    exercise.notebook("notebook_mask", MASK_BYTES, f"{gpt2}: the mask for 1,024 tokens",
                      context_length=1024)
    exercise.notebook("notebook_flops", FLOPS, f"{gpt2}: one forward of one 1024-token "
                      "sequence", **GPT2, qkv_bias=0, batch=1, T=1024)
    exercise.notebook("notebook_small_flops", FLOPS, "ch03.ipynb In [36]'s module (d_in 3, "
                      "d_out 2, 2 heads) on its batch", d_in=3, d_out=2, context_length=6,
                      num_heads=2, qkv_bias=0, batch=2, T=6)
    # Counts past 2^31 and 2^32, so that 32-bit arithmetic (an int or unsigned anywhere in
    # the product) fails: between the two an int wraps negative and an unsigned does not;
    # past 2^32 both wrap. No count is a multiple of 2^32, which a 32-bit count would wrap to
    # exactly 0: the number of "returned all zeros".
    exercise.notebook("gpt2_batch_64_scores", SCORE_BYTES, f"{gpt2}: a batch of 64 "
                      "1024-token sequences (3.2 GB of scores, past 2^31)",
                      batch=64, num_heads=12, T=1024)
    exercise.notebook("long_context_scores", SCORE_BYTES, f"{gpt2}: 12 heads on a long "
                      "context of 30000 tokens (43 GB of scores, past 2^32)",
                      batch=1, num_heads=12, T=30_000)
    exercise.notebook("mask_24k", MASK_BYTES, f"{gpt2}: the mask of a 24,576-token context "
                      "(2.4 GB, past 2^31)", context_length=24_576)
    exercise.notebook("mask_128k", MASK_BYTES, f"{gpt2}: the mask of a 128000-token context "
                      "(65 GB, past 2^32)", context_length=128_000)
    # (GPT-2 small's FLOPs are 15 * 2^29 a sequence: at a batch of 8 or 16 a 32-bit count
    # wraps them to exactly 0. One forward of one sequence, notebook_flops, already passes
    # 2^32; flops_large, drawn, has a large batch.)
    exercise.notebook("gpt2_medium_flops", FLOPS, f"{gpt2} at GPT-2 medium's width (d_in = "
                      "d_out = 1024, 16 heads) on a batch of 3 sequences of 1000 tokens",
                      d_in=1024, d_out=1024, context_length=1024, num_heads=16, qkv_bias=1,
                      batch=3, T=1000)

    def sizes(**fixed):
        """make(draw): integer inputs drawn in hidden sets from (public, (low, high))."""
        return lambda draw: {name: draw.size(*spec) for name, spec in fixed.items()}

    exercise.drawn("linear_drawn", LINEAR_COUNT, f"{with_bias}: a Linear of other sizes",
                   sizes(d_in=(7, (1, 100)), d_out=(5, (1, 100)), bias=(1, (0, 1))))
    exercise.drawn("small_module", MODULE_COUNT, f"{gpt2} at other sizes",
                   sizes(d_in=(5, (2, 40)), d_out=(6, (2, 8)), context_length=(9, (1, 30)),
                         num_heads=(3, (1, 1)), qkv_bias=(1, (0, 1))))
    exercise.drawn("scores_drawn", SCORE_BYTES, f"{gpt2} at other sizes",
                   sizes(batch=(3, (1, 8)), num_heads=(5, (2, 16)), T=(77, (2, 4096))))
    exercise.drawn("mask_drawn", MASK_BYTES, f"{gpt2} at other sizes",
                   sizes(context_length=(300, (2, 8192))))
    exercise.drawn("flops_drawn", FLOPS, f"{gpt2} at other sizes",
                   sizes(d_in=(10, (2, 64)), d_out=(12, (4, 4)), context_length=(50, (50, 50)),
                         num_heads=(4, (2, 2)), qkv_bias=(1, (0, 1)), batch=(3, (1, 4)),
                         T=(20, (2, 50))))
    # Past 2^32 in the hidden sets too: T and context_length odd, so that no drawn size wraps
    # a 32-bit count to exactly 0.
    exercise.drawn("scores_large", SCORE_BYTES, f"{gpt2} at a large batch and a long context",
                   lambda draw: {"batch": draw.size(6, (2, 64)),
                                 "num_heads": draw.size(16, (8, 96)),
                                 "T": draw.size(20_001, (10_000, 40_000)) | 1})
    exercise.drawn("mask_long", MASK_BYTES, f"{gpt2} at a long context",
                   lambda draw: {"context_length": draw.size(40_001, (33_000, 200_000)) | 1})

    def large_flops(draw):
        heads, head_dim = draw.size(4, (2, 8)), draw.size(32, (16, 64))
        T = draw.size(701, (512, 1024)) | 1
        return {"d_in": draw.size(48, (16, 256)), "d_out": heads * head_dim,
                "context_length": T, "num_heads": heads, "qkv_bias": draw.size(1, (0, 1)),
                "batch": draw.size(300, (256, 1024)), "T": T}

    exercise.drawn("flops_large", FLOPS, f"{gpt2} at other sizes, on a large batch",
                   large_flops)

    for bias in (0, 1):
        exercise.notebook(f"layer_sizes_qkv_bias_{bias}", SIZES,
                          f"{gpt2}: MultiHeadAttention(768, 768, 1024, 0.0, 12, qkv_bias="
                          f"{bool(bias)}), its sizes", qkv_bias=bias)
    layer = f"{gpt2}: the layer built by gpt2_small_attention from attn::HashedUniform"
    exercise.drawn("forward_t64", FORWARD, f"{layer}, at T = 64",
                   lambda draw: {"init_seed": draw.integer(0, 2**62),
                                 "x_seed": draw.integer(0, 2**62), "batch": 1, "T": 64,
                                 "d_in": 768, "qkv_bias": 1}, seed=2201)
    exercise.drawn("forward_t1024", FORWARD_SUMS,
                   f"{layer}, on exercise-solutions.ipynb's batch of one 1024-token sequence "
                   "(its sums over tokens and features)",
                   lambda draw: {"init_seed": draw.integer(0, 2**62),
                                 "x_seed": draw.integer(0, 2**62), "batch": 1, "T": 1024,
                                 "d_in": 768, "qkv_bias": 0}, seed=2202)

"""Laws beside the goldens: what an output must do when its input changes, whatever the values.

A golden says what one input gives, and a table of recorded answers could give it; a law says
how the output moves with the input, which no such table knows. Each Law is listed in the
manifest entry of the cases whose shapes allow it ("laws": [...]); the C++ side
(kit/core/include/kit/laws.hpp) runs the case again on a variant of its inputs and checks
the law there, in the student's tests and in grading (the runner writes the variant's output,
the judge checks it), hidden case sets included. The recorder checks every law it lists on
the notebook's own computation first (law_holds), so a law cannot be listed where the
reference breaks it.

LAWS gives each attention kind its laws: "causal" for every output that runs over the tokens
of a causal computation, "order" for every one over tokens that no mask tells apart (the
tokens reversed, the outputs reversed), "batch" for every one with a batch axis, "heads" for
the kernel's head axis. Left out: outputs over two token axes (a scores or weights matrix:
05's, 08's, 03's softmax_matrix), sums over the tokens (04, 07's weighted values: a law of
another kind), 13's two_ways (the difference of two equal answers, about 0 wherever the input
moves), 19's split and merge (a reshape, whose slips their goldens name), 14's dropout and
22's counts, and the GPT-2 forwards of 22 and 23 (x made from a seed, not an input; 22's
forward is exercise 19's reference, and 23's kernel has its laws on its other cases).
"""

from dataclasses import dataclass, replace

import numpy as np
import torch


@dataclass(frozen=True)
class Law:
    """A law the kind's output obeys whatever the values (kit/core/include/kit/laws.hpp), listed
    in the manifest entry of each case whose shapes allow it, and checked by the C++ side on a
    *variant* of the case: the case run again on `inputs` changed along `input_axis`.
      causal: tokens j = T/2.. replaced by tokens 0.. (token t by token t - j): the output of
              tokens before j (along `output_axis`) stays, that of the later tokens changes;
      order:  the tokens in reverse order (no mask tells them apart): the outputs in reverse
              order;
      batch, heads: the inputs narrowed to their last entry: its output is the last entry's.
    The C++ side compares two results within twice the golden's tolerance (each may be one
    tolerance from the exact answer). The recorder checks each law on the notebook's
    computation (law_holds) within one, so a law on a kind that does not obey it fails the
    recording, and lists it only on cases where a hard-coded answer breaks it."""
    name: str            # "causal", "order", "batch" or "heads"
    inputs: tuple        # the float inputs the variant changes ("x",) or ("queries", ...)
    input_axis: int      # their token axis (causal, order), or batch or head axis
    output: str          # the output it is about ("context")
    output_axis: int     # that output's token, batch or head axis

    def __post_init__(self):
        if self.name not in ("causal", "order", "batch", "heads"):
            raise ValueError(f"no law {self.name!r}: the C++ side knows causal, order, batch, "
                             "heads")

    def applies(self, inputs, outputs):
        """Whether the case's shapes allow it: 2 or more entries along every changed input's
        axis, as many as along the output's."""
        sizes = {inputs[name].shape[self.input_axis] for name in self.inputs}
        return (len(sizes) == 1 and min(sizes) >= 2
                and outputs[self.output].shape[self.output_axis] == min(sizes))

    def variant(self, tensor):
        """The input `tensor` as the variant sees it (the C++ side's law_input)."""
        size = tensor.shape[self.input_axis]
        if self.name == "causal":
            j = size // 2
            index = list(range(j)) + [t - j for t in range(j, size)]
            return tensor.index_select(self.input_axis, torch.tensor(index))
        if self.name == "order":
            return tensor.flip(self.input_axis)
        return tensor.narrow(self.input_axis, size - 1, 1)

    def entry(self):
        return {"law": self.name, "inputs": list(self.inputs), "input_axis": self.input_axis,
                "output": self.output, "output_axis": self.output_axis}


def law_holds(case, law, answer, allowed):
    """Whether `law` is worth listing on `case`: raises unless the notebook's computation obeys
    it there (`answer`: its output `law.output`; `allowed`: the golden's tolerance per value);
    False where a hard-coded answer (the same output again) would obey it too, as on inputs
    whose tokens are all alike."""
    inputs = {name: law.variant(tensor) if name in law.inputs else tensor
              for name, tensor in case.inputs.items()}
    changed = replace(case, inputs=inputs)
    variant = case.kind.outputs_of(case.kind.function(*changed.arguments()))[law.output]
    got, base = variant.double().numpy(), answer.double().numpy()
    allowed = np.broadcast_to(np.asarray(allowed, np.float64), base.shape)

    def differs(a, b, limit):
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        with np.errstate(invalid="ignore"):
            return ~same & ~(np.abs(a - b) <= limit)

    where = f"{case.key}: the law {law.name} on {law.output}"
    axis = law.output_axis
    if law.name in ("causal", "order") and got.shape != base.shape:
        raise ValueError(f"{where}: the variant's output has another shape")
    if law.name == "causal":
        j = base.shape[axis] // 2
        before = [slice(None)] * base.ndim
        before[axis] = slice(0, j)
        after = list(before)
        after[axis] = slice(j, None)
        if differs(got, base, allowed)[tuple(before)].any():
            raise ValueError(f"{where}: the output before token {j} changed with its later "
                             "tokens; the kind is not causal along those axes")
        return bool(differs(got, base, 2 * allowed)[tuple(after)].any())
    if law.name == "order":
        if differs(np.flip(got, axis), base, allowed).any():
            raise ValueError(f"{where}: the tokens reversed give other outputs than the "
                             "outputs reversed; the kind does not treat its tokens alike")
        return bool(differs(np.flip(base, axis), base, 2 * allowed).any())
    last = [slice(None)] * base.ndim
    last[axis] = slice(base.shape[axis] - 1, None)
    if got.shape != base[tuple(last)].shape or differs(got, base[tuple(last)],
                                                       allowed[tuple(last)]).any():
        raise ValueError(f"{where}: the last entry alone gives another output")
    return True


def causal(inputs, input_axis, output, output_axis):
    return Law("causal", inputs, input_axis, output, output_axis)


def batch(inputs, input_axis, output, output_axis):
    return Law("batch", inputs, input_axis, output, output_axis)


# A module's forward: x (B, T, d_in) -> context (B, T, d_out).
MODULE = (causal(("x",), 1, "context", 1), batch(("x",), 0, "context", 0))
UNMASKED_MODULE = (batch(("x",), 0, "context", 0),)


def row_causal(input_name, output):
    """A (T, T) matrix of scores or weights, row i the query i, column j the key j: the keys
    from j on change, the rows before j must not."""
    return (causal((input_name,), 1, output, 0),)


def order(input_name, input_axis, *outputs, output_axis=None):
    """The tokens of `input_name` reversed along `input_axis`: each output's tokens (along
    `output_axis`, by default the same axis) reversed."""
    axis = input_axis if output_axis is None else output_axis
    return tuple(Law("order", (input_name,), input_axis, output, axis) for output in outputs)


KERNEL = ("queries", "keys", "values")  # (B, H, T, head_dim) each -> context (B, H, T, head_dim)

LAWS = {
    ("01", "dot_scores"): order("inputs", 0, "scores"),
    ("02", "normalize_by_sum"): order("scores", 0, "weights"),
    ("03", "softmax_naive"): order("x", 0, "weights"),
    ("03", "softmax"): order("x", 0, "weights"),
    ("05", "all_context_vectors"): order("inputs", 0, "context"),
    ("06", "project_rows"): order("inputs", 0, "projections"),
    ("07", "attention_scores"): order("keys", 0, "scores"),
    ("07", "scaled_attention_weights"): order("scores", 0, "weights"),
    ("07", "scaled_scores_column"): order("keys", 1, "scores", "weights", output_axis=0),
    ("08", "scaled_dot_product_self_attention"): order("X", 1, "X_prime"),
    ("09", "self_attention_v1"): order("inputs", 0, "context"),
    ("10", "self_attention_v2"): order("inputs", 0, "context"),
    ("10", "self_attention_v2_bias"): order("inputs", 0, "context"),
    ("11", "transferred_forward"): order("inputs", 0, "context"),
    ("12", "apply_tril_mask"): row_causal("weights", "masked"),
    ("12", "mask_and_renormalize"): row_causal("weights", "normalized"),
    ("13", "mask_future"): row_causal("scores", "masked"),
    ("13", "causal_attention_weights"): row_causal("scores", "weights"),
    ("15", "causal_attention"): MODULE,
    ("15", "causal_attention_bias"): MODULE,
    ("15", "two_heads"): MODULE,
    ("16", "wrapper"): MODULE,
    ("16", "wrapper_hashed"): MODULE,
    ("17", "output_width"): MODULE,
    ("17", "output_width_hashed"): MODULE,
    ("18", "unmasked_multi_head_attention"): UNMASKED_MODULE + order("x", 1, "context"),
    ("19", "multi_head_attention"): MODULE,
    ("19", "multi_head_attention_hashed"): MODULE,
    ("20", "fuse_heads"): MODULE,
    ("20", "fuse_heads_bias"): MODULE,
    ("23", "causal_attention"): (causal(KERNEL, 2, "context", 2), batch(KERNEL, 0, "context", 0),
                                 Law("heads", KERNEL, 1, "context", 1)),
    ("21", "multi_head_attention_columns"): order("X", 1, "X_prime"),
    ("23", "multi_head_attention"): MODULE,
}


def laws_of(exercise, kind):
    """The laws of `kind` of exercise `exercise`: its own, else LAWS's."""
    return tuple(kind.laws) or LAWS.get((exercise, kind.name), ())

"""Plausible wrong answers, in reusable families, so that a failing test can name the mistake.

A Mistake's `wrong` takes the exercise function's arguments (as the case passes them) and
returns what the mistaken code returns; THROWS where the mistaken C++ code throws on the
case's shapes (an index past the end in the Debug build, a product of shapes that do not fit),
so a value there rules the mistake out; or None where the case cannot tell it (the answer's
own value, a shape it does not apply to). The
recorder keeps a mistake only where it is told apart from the answer and from the other
mistakes (cases.py). Families here are shared by several exercises; an exercise's own
families live in its recorder (exercises/exNN_*.py).
"""

from dataclasses import dataclass, replace
from typing import Callable

import torch


class Throws:
    """What `wrong` returns where the mistaken code throws (THROWS): the case records that a
    result rules the mistake out (MANIFEST.json's "throws" on its expected files)."""

    def __repr__(self):
        return "THROWS"


THROWS = Throws()


@dataclass(frozen=True)
class Mistake:
    slug: str        # its file: mistakes/<output>.<slug>.npy
    name: str        # short, shown by a failing test: "looks like: <name>"
    hint: str        # one sentence that teaches the fix
    wrong: Callable  # the exercise's arguments -> the wrong result, THROWS or None
    family: str = ""  # the family it belongs to; defaults to the slug
    # A slip the student cannot see in their code's numbers (C++ integer truncation): where it
    # gives the same result as an earlier mistake, a failing test names both (cases.py).
    named_when_shared: bool = False

    def __post_init__(self):
        if not self.family:
            object.__setattr__(self, "family", self.slug)


def zeros_like(result):
    """Zeros shaped like a result: a tensor, or each output of a kind with several."""
    if isinstance(result, dict):
        return {name: torch.zeros_like(tensor) for name, tensor in result.items()}
    return torch.zeros_like(result)


def placeholders(right, input_names):
    """What a function returns before its work is done: an argument, or the zeros its result
    was created with. `right` is the correct function."""
    def returned(position):
        def wrong(*args):
            arg = args[position]
            return arg if isinstance(arg, torch.Tensor) and arg.is_floating_point() else None
        return wrong

    return [
        *(Mistake(f"returned_{name}", f"returned `{name}` unchanged",
                  "the result is an argument passed straight back: compute the new tensor "
                  "and return that.", returned(position), family="returned_input")
          for position, name in enumerate(input_names)),
        Mistake("all_zeros", "returned all zeros (nothing written into the result)",
                "the result still holds the zeros it was created with: write every computed "
                "value into it, and return that tensor.",
                lambda *args: zeros_like(right(*args))),
    ]


def _unfilled(right, rank, dim, index):
    """`right`'s result of `rank` with row (dim 0) or column (dim 1) `index` left at 0."""
    def wrong(*args):
        result = right(*args)
        if not isinstance(result, torch.Tensor) or result.dim() != rank:
            return None  # several outputs, or another rank: no loop writes it this way
        result = result.clone()
        result.select(dim, index).zero_()
        return result
    return wrong


def loop_slips(right):
    """Loop bounds one off (a first or last element, row or column never written) and
    indices swapped (the result transposed), where the result's rank allows."""
    def transposed(*args):
        result = right(*args)
        return result.T if isinstance(result, torch.Tensor) and result.dim() == 2 else None

    slips = []
    for rank, dim, part, loop in ((1, 0, "element", "loop"), (2, 0, "row", "loop"),
                                  (2, 1, "column", "inner loop")):
        i = "j" if dim else "i"
        slips += [
            Mistake(f"first_{part}_unfilled", f"first {part} never filled ({loop} starts at 1)",
                    f"{part} 0 still holds its initial 0: start the {loop} at {i} = 0.",
                    _unfilled(right, rank, dim, 0), family="first_unfilled"),
            Mistake(f"last_{part}_unfilled", f"last {part} never filled ({loop} stops one early)",
                    f"the last {part} still holds its initial 0: loop while {i} < n, not "
                    f"{i} < n - 1.", _unfilled(right, rank, dim, -1), family="last_unfilled"),
        ]
    return slips + [
        Mistake("transposed", "result transposed",
                "entry [i, j] belongs in row i, column j: check the order of the indices where "
                "you write the result (or drop a stray transpose).", transposed),
    ]


def _filled_up_to(right, axis, count):
    """`right`'s result with the entries from `count` on along `axis` left at 0; None unless
    that axis is longer than `count` (shorter, a loop to `count` reads past the inputs: the
    Debug build throws)."""
    def wrong(*args):
        result = right(*args).clone()
        if result.dim() <= axis or result.shape[axis] <= count:
            return None
        result.narrow(axis, count, result.shape[axis] - count).zero_()
        return result
    return wrong


def fixed_token_count(right, tokens):
    """A loop over the tokens fixed to the notebook's count (`for (i = 0; i < 6; ++i)`):
    `tokens` lists (part, axis, count): the axes of `right`'s result that run over the tokens
    ("row", 0, 6), what one entry along it is called, and the number of tokens in the
    notebook's example. With count + 1 tokens it gives the last_unfilled slip's result (a
    failing test names both); with more, the two differ."""
    return [Mistake(f"first_{count}_{part}s_only",
                    f"loop fixed to the notebook's {count} tokens ({part}s from {count} on "
                    f"never filled)",
                    f"take the number of tokens from the input's shape, never from the "
                    f"notebook's example of {count}: every {part} from {count} on still holds "
                    f"its initial 0.", _filled_up_to(right, axis, count),
                    family="fixed_token_count", named_when_shared=True)
            for part, axis, count in tokens]


def for_every_row(mistake, row_arguments, row_length):
    """The matrix form of a one-row mistake: row i of the result is `mistake` called with
    row_arguments(inputs, i). None unless every row has row_length(inputs) entries."""
    def wrong(inputs):
        rows = [mistake.wrong(*row_arguments(inputs, i)) for i in range(inputs.shape[0])]
        if any(row is None or row.shape != (row_length(inputs),) for row in rows):
            return None
        return torch.stack(rows)
    return replace(mistake, wrong=wrong)


# Integer truncation: in C++, `int total = xt::sum(x)();` or `int s = 0; s += a * b;` drops
# every fraction without a warning. On a case it can give the same numbers as another mistake
# (the notebook's scores sum to 6.56, so dividing by `int total` divides by 6 = T, as dividing
# by the number of scores does), so these mistakes are named_when_shared.
def _int_accumulator(inputs, query):
    """`int s = 0; s += query[k] * x[k];`: C++ truncates the sum at every step."""
    total = torch.zeros(inputs.shape[0])
    for k in range(inputs.shape[1]):
        total = torch.trunc(total + query[k] * inputs[:, k])
    return total


INT_ACCUMULATOR = Mistake(
    "int_accumulator", "integer accumulator (int s = 0)",
    "an int truncates every partial sum to a whole number: accumulate in a float.",
    _int_accumulator, family="integer_truncation", named_when_shared=True)

INT_TOTAL = Mistake(
    "int_sum", "the sum was truncated to an integer (int total)",
    "keep the total in a float: `int total = ...` drops its fraction.",
    lambda scores: scores / torch.trunc(scores.sum()), family="integer_truncation",
    named_when_shared=True)


def _loop_to_d_in(inputs, query):
    """Scores whose loop over the inputs stopped at d_in: the scores past it stay 0."""
    T, d = inputs.shape
    return torch.cat([inputs[:d] @ query, torch.zeros(T - d)]) if d < T else None


# dot_scores(inputs, query) -> (T,): score i is dot(query, inputs[i]).
DOT_PRODUCT = [
    Mistake("self_dot", "dotted each input with itself",
            "a score compares the query with input i: dot(query, inputs[i]), not "
            "dot(inputs[i], inputs[i]).", lambda inputs, query: (inputs * inputs).sum(dim=1)),
    Mistake("added", "added query and input instead of multiplying",
            "a dot product multiplies matching entries, then sums: sum over k of "
            "query[k] * inputs[i, k].", lambda inputs, query: (inputs + query).sum(dim=1)),
    Mistake("forgot_query", "summed the input without the query",
            "multiply each entry of input i by the matching entry of the query before summing.",
            lambda inputs, query: inputs.sum(dim=1)),
    Mistake("not_summed", "multiplied but never summed (shape (T, d_in))",
            "after multiplying query and input i entry by entry, add the d_in products up into "
            "one score.", lambda inputs, query: inputs * query),
    Mistake("summed_everything", "summed every product into every score",
            "score i adds only the d_in products of input i: start a fresh sum for each i.",
            lambda inputs, query: (inputs * query).sum().expand(inputs.shape[0]).clone()),
    Mistake("running_sum", "sum never reset between inputs (running total)",
            "set the sum back to 0 for every input i, inside the loop over i.",
            lambda inputs, query: (inputs @ query).cumsum(dim=0)),
    INT_ACCUMULATOR,
    Mistake("max_product", "took the largest product instead of the sum",
            "a dot product adds all d_in products; max() keeps only one of them.",
            lambda inputs, query: (inputs * query).amax(dim=1)),
    Mistake("mean_product", "averaged the products instead of summing",
            "a dot product is the sum of the products: don't divide by d_in.",
            lambda inputs, query: (inputs * query).mean(dim=1)),
    Mistake("first_product_skipped", "first product left out (k starts at 1)",
            "sum k over every embedding dimension, from k = 0 to d_in - 1.",
            lambda inputs, query: (inputs * query)[:, 1:].sum(dim=1)),
    Mistake("last_product_skipped", "last product left out (k < d_in - 1)",
            "sum k over every embedding dimension: k < d_in, not k < d_in - 1.",
            lambda inputs, query: (inputs * query)[:, :-1].sum(dim=1)),
    Mistake("loop_to_d_in", "looped over d_in inputs instead of T",
            "there is one score per input token: loop i over the T rows of inputs, not over "
            "the d_in columns.", _loop_to_d_in),
]


def softmax_families(dim, rank, expected_naive=False):
    """Wrong results of softmax(x, dim) for an x of `rank` 1 or 2; `wrong(x, *rest)`.
    `expected_naive`: the answer is the plain exp(x) / sum(exp(x)) (softmax_naive)."""
    axis = dim % rank

    def sums(tensor, along=axis):
        return tensor.sum(dim=along, keepdim=True)

    def shifted(x, along=axis):
        return torch.exp(x - x.amax(dim=along, keepdim=True))

    def normalised(exps):
        return exps / sums(exps)

    def no_keepdims(x, *_):
        exps = shifted(x)
        total = exps.sum(dim=axis)
        try:
            torch.broadcast_shapes(exps.shape, total.shape)
        except RuntimeError:
            return None
        return exps / total

    other = 1 - axis if rank == 2 else None
    stability = (
        Mistake("made_stable", "subtracted the max in the naive softmax",
                "softmax_naive is the plain exp(x) / sum(exp(x)) on purpose, overflow and all; "
                "the max-subtracted form is softmax().",
                lambda x, *_: torch.softmax(x, dim=axis))
        if expected_naive else
        Mistake("naive", "unstable softmax overflowed (no max subtracted)",
                "exp(1000) is inf in float32 and inf / inf is nan: subtract max(x) before "
                "exp(), softmax(x) = softmax(x - max(x)).",
                lambda x, *_: normalised(torch.exp(x))))
    wrong_axis = Mistake(
        "wrong_axis", f"softmax over the wrong axis (dim={other} instead of dim={dim})",
        "dim=-1 (or 1) makes every ROW sum to 1, dim=0 (or -2) every COLUMN: take the max and "
        "the sum along the dim you were given.", lambda x, *_: torch.softmax(x, dim=other))
    formula = [
        Mistake("no_exp", "normalised without exp()",
                "softmax divides exp(x) by the sum of exp(x); dividing x by its sum is "
                "exercise 02.", lambda x, *_: x / sums(x)),
        Mistake("no_division", "forgot to divide by the sum",
                "exp() alone is not a distribution: divide by the sum of the exps.",
                lambda x, *_: torch.exp(x)),
        Mistake("stable_no_division", "subtracted the max but never divided by the sum",
                "subtracting the max only keeps exp() from overflowing: you still divide by "
                "the sum of the exps.", lambda x, *_: shifted(x)),
        Mistake("raw_sum", "divided exp(x) by the sum of the raw scores",
                "the denominator is the sum of the EXPS, sum_j exp(x_j), not of the scores.",
                lambda x, *_: torch.exp(x) / sums(x)),
        Mistake("numerator_shift", "subtracted the max in the numerator only",
                "subtract the same max inside the sum too: exp(x_i - m) / sum_j exp(x_j - m).",
                lambda x, *_: shifted(x) / sums(torch.exp(x))),
        Mistake("min_shift", "subtracted the min instead of the max",
                "subtract the MAX so that every exponent is <= 0: exp(x - min) overflows to "
                "inf once the scores spread over about 89.",
                lambda x, *_: normalised(torch.exp(x - x.amin(dim=axis, keepdim=True)))),
        Mistake("sigmoid", "applied the sigmoid to each score",
                "softmax divides exp(x_i) by the sum over ALL j of exp(x_j); a sigmoid looks at "
                "one score alone.", lambda x, *_: torch.sigmoid(x)),
        Mistake("log_softmax", "returned log-softmax",
                "that is log(softmax(x)): return exp(x - max) divided by its sum, no log.",
                lambda x, *_: torch.log_softmax(x, dim=axis)),
    ]
    per_axis = [
        Mistake("whole_matrix", "normalised over the whole matrix",
                "each row (or column) is its own distribution: sum exp() along `dim` only, "
                "keeping that axis (xt::keep_dims) so the sums broadcast back.",
                lambda x, *_: torch.exp(x) / torch.exp(x).sum()),
        Mistake("whole_matrix_stable", "normalised over the whole matrix (after subtracting "
                "each row's or column's max)",
                "each row (or column) is its own distribution: sum exp() along `dim` only, "
                "keeping that axis (xt::keep_dims) so the sums broadcast back.",
                lambda x, *_: shifted(x) / shifted(x).sum()),
        Mistake("global_max", "subtracted one max for the whole matrix",
                "subtract each row's (column's) own max: below one global max, exp() of a "
                "whole row can underflow to 0 and the row becomes 0 / 0.",
                lambda x, *_: normalised(torch.exp(x - x.max()))),
        Mistake("max_other_axis", "took the max along the other axis",
                "take the max along the same `dim` as the sum, or the shift differs within a "
                "row (column) and no longer cancels.",
                lambda x, *_: normalised(shifted(x, other))),
        Mistake("sum_other_axis", "summed the exps along the other axis",
                "sum the exps along `dim`, the axis the max was taken along.",
                lambda x, *_: shifted(x) / sums(shifted(x), other)),
        Mistake("no_keepdims", "summed without keep_dims (the sums broadcast the wrong way)",
                "reduce with xt::keep_dims: a row sum of shape (R,) broadcasts against the "
                "COLUMNS, so entry [i, j] is divided by the sum of row j.", no_keepdims),
    ]
    if rank == 1:
        return [stability, *formula]
    return [stability, wrong_axis, *formula, *per_axis]


def first_tokens_only(count):
    """weights @ inputs over the notebook's `count` tokens only; None unless T > count."""
    def wrong(inputs, weights):
        return weights[:count] @ inputs[:count] if inputs.shape[0] > count else None
    return Mistake(f"first_{count}_tokens_only",
                   f"summed over the notebook's {count} tokens only (loop fixed to {count})",
                   f"loop over every token: take T from the input's shape, never from the "
                   f"notebook's example of {count} tokens.", wrong, family="fixed_token_count",
                   named_when_shared=True)


# context_vector(inputs, weights) -> (d_in,): sum over i of weights[i] * inputs[i].
# weighted_sum_families(count): the same, for a notebook with `count` tokens.
WEIGHTED_SUM = [
    Mistake("unweighted_sum", "added the inputs without their weights",
            "scale row i by weights[i] before adding it.",
            lambda inputs, weights: inputs.sum(dim=0)),
    Mistake("mean", "averaged the inputs",
            "an unweighted mean ignores the attention weights: add weights[i] * inputs[i].",
            lambda inputs, weights: inputs.mean(dim=0)),
    Mistake("divided_by_count", "divided the weighted sum by T",
            "the weights already sum to 1, so the weighted SUM is the average: don't divide "
            "by T.", lambda inputs, weights: weights @ inputs / inputs.shape[0]),
    Mistake("reversed_weights", "paired the weights with the wrong tokens",
            "weights[i] belongs to row i of inputs; check the indices of your loop.",
            lambda inputs, weights: weights.flip(0) @ inputs),
    Mistake("weighted_not_summed", "weighted the rows but never added them (shape (T, d_in))",
            "add the weighted rows up: the result has one entry per embedding dimension.",
            lambda inputs, weights: weights[:, None] * inputs),
    Mistake("summed_rows", "summed each row instead of each column (shape (T,))",
            "context[k] adds weights[i] * inputs[i, k] over the tokens i, for each "
            "dimension k.", lambda inputs, weights: (weights[:, None] * inputs).sum(dim=1)),
    Mistake("first_row_skipped", "left out the first token (i starts at 1)",
            "add weights[i] * inputs[i] for every token, from i = 0.",
            lambda inputs, weights: weights[1:] @ inputs[1:]),
    Mistake("last_row_skipped", "left out the last token (i < T - 1)",
            "add weights[i] * inputs[i] for every token: i < T, not i < T - 1.",
            lambda inputs, weights: weights[:-1] @ inputs[:-1]),
    # With T > 1, index T throws (the Debug build checks indices); with T = 1, index 1 of an
    # axis of length 1 is broadcasting to xtensor and reads row 0 again.
    Mistake("one_past_the_end", "ran the loop one token too far (i <= T)",
            "loop while i < T. With one token, weights(1) and row 1 are not out of bounds to "
            "xtensor (an axis of length 1 broadcasts), so i = 1 adds row 0 a second time.",
            lambda inputs, weights: 2 * weights @ inputs if inputs.shape[0] == 1 else None),
]


def weighted_sum_families(count=6):
    """WEIGHTED_SUM and its loop fixed to the notebook's `count` tokens."""
    return [*WEIGHTED_SUM, first_tokens_only(count)]

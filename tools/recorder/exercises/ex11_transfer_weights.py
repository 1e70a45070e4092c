"""Exercise 11, transfer_weights: the book's Exercise 3.1, SelfAttention_v2's weights copied
into a SelfAttention_v1, transposed, so that both give the same output
(exercise-solutions.ipynb In [5] to In [7]).

Sources cite the public notebook cells: seed 000 In [8] to In [10] (v1 and v2 both at
torch.manual_seed(123), then the transfer, "Are outputs close? True") =
exercise-solutions.ipynb In [3] to In [7], where In [6] and In [7] print the same tensor
[[-0.5337, -0.1051], ...]; seed 004 poses the exercise on the chapter's two modules, v1 at
torch.manual_seed(123) (ch03.ipynb In [23]) and v2 at torch.manual_seed(789) (In [24]), whose
transferred v1 prints v2's [[-0.0739, 0.0713], ...]. Both are checked at their printed
decimals at record time, and every case checks that the transferred v1 equals the v2
(modules.transferred_forward).

Two kinds: transfer_weights (outputs: the matrices the v1 holds afterwards, W_query, W_key,
W_value) and transferred_forward (output: the transferred v1 on the inputs, the context
vectors the v2 gives). Their inputs are the v2's parameters under its state_dict() keys
(W_query.weight, ...) and the v1's before the transfer under the keys a module holding both
as `sa_v1` and `sa_v2` would give them (sa_v1.W_query, ...): the outputs W_query, W_key and
W_value are the v1's after it.
"""

from .. import modules, notebooks
from ..cases import Kind, recorder
from .ex10_self_attention_v2 import PRINTED

BEFORE = tuple(f"sa_v1.{key}" for key in modules.V1_KEYS)  # the v1's matrices, inputs


def v1_before(state):
    """A v1 state_dict's matrices as this exercise's inputs (sa_v1.W_query, ...)."""
    return {f"sa_v1.{key}": value for key, value in state.items()}


TRANSFER_WEIGHTS = modules.TransferKind(
    name="transfer_weights", inputs=(*modules.V2_KEYS, *BEFORE),
    outputs=modules.V1_KEYS,
    function=modules.transfer,
    scale=modules.transfer_scale,
    reduction=lambda *parameters: dict.fromkeys(modules.V1_KEYS, 1),
    mistakes=lambda *arguments: modules.TRANSFER_MISTAKES,
    derive=modules.split_transferred,
)

TRANSFERRED_FORWARD = Kind(
    name="transferred_forward", inputs=("inputs", *modules.V2_KEYS, *BEFORE),
    outputs=("context",),
    function=modules.transferred_forward,
    # the transferred v1 computes what the v2 computes, x @ weight.T
    scale=lambda inputs, *parameters: modules.v2_scale(inputs, *parameters[:3]),
    reduction=lambda inputs, weight, *_: modules.reduction(inputs, weight),
    mistakes=lambda *arguments: modules.TRANSFERRED_FORWARD_MISTAKES,
    tokens=(("row", 0, 6),),
)


def drawn_pair(tokens, d_in, d_out, square=False):
    """make(draw): randn inputs, a v2 drawn like nn.Linear's init and a v1 drawn like
    torch.rand, both for (d_in, d_out); `square`: d_out = d_in."""
    def make(draw):
        T, d_i = draw.size(*tokens), draw.size(*d_in)
        d_o = d_i if square else draw.size(*d_out)
        return {"inputs": draw.randn(T, d_i), **modules.drawn_v2(draw, d_i, d_o),
                **v1_before(modules.drawn_v1(draw, d_i, d_o))}
    return make


def without_inputs(make):
    def parameters_only(draw):
        made = make(draw)
        del made["inputs"]
        return made
    return parameters_only


@recorder("11")
def record(exercise):
    inputs = notebooks.journey_inputs()
    pairs = (
        ("notebook", 123, 123, "exercise-solutions.ipynb In [3] to In [6]"),
        ("book", 123, 789, "ch03.ipynb In [23] and In [24], then Exercise 3.1's transfer"),
    )
    for name, v1_seed, v2_seed, source in pairs:
        v1 = modules.seeded_v1(v1_seed, d_in=3, d_out=2)
        v2 = modules.seeded_v2(v2_seed, d_in=3, d_out=2)
        out = modules.transferred_forward(inputs, *v2.values(), *v1.values())
        modules.check_printed(f"Exercise 3.1, v2 at seed {v2_seed}", out, PRINTED[v2_seed])
        exercise.notebook(name, TRANSFER_WEIGHTS, source, **v2, **v1_before(v1))
        exercise.notebook("forward_" + name, TRANSFERRED_FORWARD, source, inputs=inputs, **v2,
                          **v1_before(v1))

    seeded = "exercise-solutions.ipynb In [5] on seeded weights"
    for name, make, seed in (
            ("odd_shape", drawn_pair((5, (2, 9)), (5, (1, 8)), (3, (1, 8))), 1101),
            ("square", drawn_pair((6, (2, 9)), (3, (2, 8)), None, square=True), 1102),
            # the notebook's shapes with other values: a table of its answers keyed on the
            # shape fails
            ("notebook_shape", drawn_pair((6, (2, 9)), (3, (1, 8)), (2, (1, 8))), 1103)):
        exercise.drawn(name, TRANSFER_WEIGHTS, seeded, without_inputs(make), seed=seed)
        exercise.drawn("forward_" + name, TRANSFERRED_FORWARD, seeded + " and randn inputs",
                       make, seed=seed)
    # nine tokens: a loop fixed to the notebook's 6 leaves three rows 0
    exercise.drawn("forward_nine_tokens", TRANSFERRED_FORWARD,
                   seeded + " and randn inputs, nine tokens",
                   drawn_pair((9, (8, 16)), (3, (1, 8)), (2, (1, 8))), seed=1104)

"""Exercise 10, self_attention_v2: SelfAttention_v2's forward, with nn.Linear layers
(ch03.ipynb In [24]).

Sources cite the public notebook cells: seed 004 (the book's §3.4.2) at
torch.manual_seed(789) = ch03.ipynb In [24]; seed 000 In [9] (the exercise solutions) at
torch.manual_seed(123) = exercise-solutions.ipynb In [4], whose module In [7] prints;
seed 001 §3.4.2 In [21] and In [22] (torch.manual_seed(42)) = ch03.ipynb In [24]'s cell at
seed 42. The parameters are case inputs named as the module's state_dict() keys
(W_query.weight, ..., and W_query.bias, ... with qkv_bias=True); see recorder/modules.py.

Printed values, checked at their printed decimals at record time (PRINTED below):
  seed 789 (004, ch03.ipynb In [24]): [[-0.0739, 0.0713], [-0.0748, 0.0703], ...]
  seed 123 (000 In [9], exercise-solutions.ipynb In [7]): [[-0.5337, -0.1051], ...]
  seed 42 (001 In [22]): [[0.3755, 0.2777], [0.3761, 0.2831], ...]
No notebook prints a SelfAttention_v2 with qkv_bias=True: its cases are the notebook's cell
with qkv_bias=True at seed 123, and drawn ones.
"""

from .. import modules, notebooks
from ..cases import Kind, recorder

SELF_ATTENTION_V2, SELF_ATTENTION_V2_BIAS = (
    Kind(name=name, inputs=("inputs", *keys), outputs=("context",),
         function=modules.v2_forward,
         scale=modules.v2_scale,
         reduction=lambda inputs, weight, *_: modules.reduction(inputs, weight),
         mistakes=lambda *arguments, mistakes=mistakes: mistakes, tokens=(("row", 0, 6),))
    for name, keys, mistakes in (
        ("self_attention_v2", modules.V2_KEYS, modules.V2_MISTAKES),
        ("self_attention_v2_bias", modules.V2_BIAS_KEYS, modules.V2_BIAS_MISTAKES)))

PRINTED = {
    789: [[-0.0739, 0.0713], [-0.0748, 0.0703], [-0.0749, 0.0702], [-0.0760, 0.0685],
          [-0.0763, 0.0679], [-0.0754, 0.0693]],
    123: [[-0.5337, -0.1051], [-0.5323, -0.1080], [-0.5323, -0.1079], [-0.5297, -0.1076],
          [-0.5311, -0.1066], [-0.5299, -0.1081]],
    42: [[0.3755, 0.2777], [0.3761, 0.2831], [0.3761, 0.2833], [0.3768, 0.2763],
         [0.3754, 0.2836], [0.3772, 0.2746]],
}


def drawn_v2_case(tokens, d_in, d_out, qkv_bias=False, square=False):
    """make(draw): randn inputs (T, d_in) and v2 parameters drawn like nn.Linear's init;
    `square`: d_out = d_in (where x @ weight without .T has the right shape)."""
    def make(draw):
        T, d_i = draw.size(*tokens), draw.size(*d_in)
        d_o = d_i if square else draw.size(*d_out)
        return {"inputs": draw.randn(T, d_i), **modules.drawn_v2(draw, d_i, d_o, qkv_bias)}
    return make


@recorder("10")
def record(exercise):
    inputs = notebooks.journey_inputs()
    for seed, source in ((789, "ch03.ipynb In [24]"),
                         (123, "exercise-solutions.ipynb In [4] and In [7]"),
                         (42, "ch03.ipynb In [24] at torch.manual_seed(42)")):
        state = modules.seeded_v2(seed, d_in=3, d_out=2)
        modules.check_printed(f"SelfAttention_v2 at seed {seed}",
                              modules.v2_forward(inputs, *state.values()), PRINTED[seed])
        exercise.notebook(f"notebook_seed{seed}", SELF_ATTENTION_V2, source, inputs=inputs,
                          **state)
    seeded = "ch03.ipynb In [24] on seeded randn inputs and nn.Linear-like weights"
    exercise.drawn("odd_shape", SELF_ATTENTION_V2, seeded,
                   drawn_v2_case((5, (2, 9)), (4, (1, 8)), (3, (1, 8))), seed=1001)
    exercise.drawn("square", SELF_ATTENTION_V2, seeded + ", d_in = d_out",
                   drawn_v2_case((6, (2, 9)), (4, (2, 8)), None, square=True), seed=1002)

    biased = "ch03.ipynb In [24] with qkv_bias=True"
    exercise.notebook("bias_notebook_seed123", SELF_ATTENTION_V2_BIAS,
                      biased + " at torch.manual_seed(123)", inputs=inputs,
                      **modules.seeded_v2(123, d_in=3, d_out=2, qkv_bias=True))
    exercise.drawn("bias_odd_shape", SELF_ATTENTION_V2_BIAS, biased + " on seeded randn inputs",
                   drawn_v2_case((5, (2, 9)), (4, (1, 8)), (3, (1, 8)), qkv_bias=True),
                   seed=1003)
    exercise.drawn("bias_square", SELF_ATTENTION_V2_BIAS,
                   biased + " on seeded randn inputs, d_in = d_out",
                   drawn_v2_case((6, (2, 9)), (4, (2, 8)), None, qkv_bias=True, square=True),
                   seed=1004)

    # The notebook's shapes with other values (a table of its answers keyed on the shape
    # fails), and nine tokens (a loop fixed to the notebook's 6 leaves three rows 0).
    exercise.drawn("notebook_shape", SELF_ATTENTION_V2, seeded + ", the notebook's shapes",
                   drawn_v2_case((6, (2, 9)), (3, (1, 8)), (2, (1, 8))), seed=1005)
    exercise.drawn("nine_tokens", SELF_ATTENTION_V2, seeded + ", nine tokens",
                   drawn_v2_case((9, (8, 16)), (3, (1, 8)), (2, (1, 8))), seed=1006)
    exercise.drawn("bias_notebook_shape", SELF_ATTENTION_V2_BIAS,
                   biased + " on seeded randn inputs, the notebook's shapes",
                   drawn_v2_case((6, (2, 9)), (3, (1, 8)), (2, (1, 8)), qkv_bias=True),
                   seed=1007)

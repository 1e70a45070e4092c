"""Exercise 09, self_attention_v1: SelfAttention_v1's forward (ch03.ipynb In [23]).

Sources cite the public notebook cells: seed 004 (the book's §3.4.2) and 000 In [8] (the
exercise solutions), both at torch.manual_seed(123) = ch03.ipynb In [23], which prints the
same tensor; seed 001 §3.4.2 In [19] and In [20] (the class at torch.manual_seed(42)) =
ch03.ipynb In [23]'s cell at seed 42. The parameters are case inputs named as the module's
state_dict() keys (W_query, W_key, W_value); see recorder/modules.py.

Printed values, checked at their printed decimals at record time (PRINTED below):
  seed 123 (004, 000 In [8], ch03.ipynb In [23]): [[0.2996, 0.8053], [0.3061, 0.8210], ...]
  seed 42 (001 In [20]): [[1.3751, 0.8610], [1.4201, 0.8892], ...]; row 1 is 001 In [18]'s
  context_vec_2 = [1.4201, 0.8892], computed one query at a time in §3.4.1.
"""

from .. import modules, notebooks
from ..cases import Kind, recorder

SELF_ATTENTION_V1 = Kind(
    name="self_attention_v1", inputs=("inputs", *modules.V1_KEYS), outputs=("context",),
    function=modules.v1_forward,
    scale=modules.v1_scale,
    reduction=lambda inputs, W_query, *_: modules.reduction(inputs, W_query),
    mistakes=lambda *arguments: modules.V1_MISTAKES,
    tokens=(("row", 0, 6),),
)

# The tensors the seeds print, at their printed decimals.
PRINTED = {
    123: [[0.2996, 0.8053], [0.3061, 0.8210], [0.3058, 0.8203], [0.2948, 0.7939],
          [0.2927, 0.7891], [0.2990, 0.8040]],
    42: [[1.3751, 0.8610], [1.4201, 0.8892], [1.4198, 0.8890], [1.3533, 0.8476],
         [1.3746, 0.8606], [1.3620, 0.8532]],
}


def drawn_v1_case(tokens, d_in, d_out, signed=False):
    """make(draw): randn inputs (T, d_in) and v1 parameters drawn like torch.rand, or with
    `signed` from randn * 0.5 (the notebook's are all positive)."""
    def make(draw):
        T, d_i, d_o = draw.size(*tokens), draw.size(*d_in), draw.size(*d_out)
        inputs = draw.randn(T, d_i)
        parameters = ({key: draw.randn(d_i, d_o) * 0.5 for key in modules.V1_KEYS} if signed
                      else modules.drawn_v1(draw, d_i, d_o))
        return {"inputs": inputs, **parameters}
    return make


@recorder("09")
def record(exercise):
    inputs = notebooks.journey_inputs()
    for seed, source in ((123, "ch03.ipynb In [23]"),
                         (42, "ch03.ipynb In [23] at torch.manual_seed(42)")):
        state = modules.seeded_v1(seed, d_in=3, d_out=2)
        modules.check_printed(f"SelfAttention_v1 at seed {seed}",
                              modules.v1_forward(inputs, *state.values()), PRINTED[seed])
        exercise.notebook(f"notebook_seed{seed}", SELF_ATTENTION_V1, source, inputs=inputs,
                          **state)
    seeded = "ch03.ipynb In [23] on seeded randn inputs and torch.rand-like weights"
    exercise.drawn("odd_shape", SELF_ATTENTION_V1, seeded,
                   drawn_v1_case((5, (2, 9)), (4, (1, 8)), (3, (1, 8))), seed=901)
    exercise.drawn("wide_keys", SELF_ATTENTION_V1, seeded + ", d_out 16",
                   drawn_v1_case((7, (2, 9)), (3, (1, 8)), (16, (9, 24))), seed=902)
    exercise.drawn("one_token", SELF_ATTENTION_V1, seeded,
                   drawn_v1_case((1, (1, 1)), (3, (1, 8)), (2, (1, 8))), seed=903)
    # The notebook's shapes with other values (a table of its answers keyed on the shape
    # fails), and nine tokens (a loop fixed to the notebook's 6 leaves three rows 0).
    exercise.drawn("notebook_shape", SELF_ATTENTION_V1,
                   "ch03.ipynb In [23] on seeded randn inputs and weights (both signs), the "
                   "notebook's shapes",
                   drawn_v1_case((6, (2, 9)), (3, (1, 8)), (2, (1, 8)), signed=True), seed=904)
    exercise.drawn("nine_tokens", SELF_ATTENTION_V1, seeded + ", nine tokens",
                   drawn_v1_case((9, (8, 16)), (3, (1, 8)), (2, (1, 8))), seed=905)

"""Exercise 01, dot_scores: one query against every input (ch03.ipynb In [3]).

Sources are what the student reads in a failure, so they cite the public notebook cell
(exercises.json's "notebook"): seed 001 §3.3.1 In [2] = ch03.ipynb In [3]; seed In [6]
(the query "Your") is In [3]'s dot products with query inputs[0]."""

from .. import notebooks
from ..cases import Kind, recorder
from ..mistakes import DOT_PRODUCT

DOT_SCORES = Kind(
    name="dot_scores", inputs=("inputs", "query"), outputs=("scores",),
    function=notebooks.attention_scores_for,
    scale=lambda inputs, query: inputs @ query,
    reduction=lambda inputs, query: {"scores": inputs.shape[1]},
    mistakes=lambda inputs, query: DOT_PRODUCT,
    tokens=(("score", 0, 6),),
)


def query_and_inputs(tokens, dims):
    """make(draw): randn inputs (T, d) and query (d,); `tokens` and `dims` are (public
    size, hidden range)."""
    def make(draw):
        T, d = draw.size(*tokens), draw.size(*dims)
        return {"inputs": draw.randn(T, d), "query": draw.randn(d)}
    return make


def cancelling(draw):
    """Inputs and query of size ~300 whose products cancel: each row keeps only 1/1000 of
    its component along the query, so every score is far smaller than its terms, and a
    tolerance relative to |score| alone would fail correct code."""
    T, d = draw.size(33, (20, 40)), draw.size(5, (2, 8))
    inputs, query = draw.randn(T, d) * 300, draw.randn(d) * 300
    along_query = (inputs @ query) / (query @ query)
    return {"inputs": inputs - 0.999 * along_query[:, None] * query, "query": query}


@recorder("01")
def record(exercise):
    inputs = notebooks.journey_inputs()
    exercise.notebook("notebook_journey", DOT_SCORES, "ch03.ipynb In [3]",
                      inputs=inputs, query=inputs[1])
    exercise.notebook("notebook_your", DOT_SCORES, "ch03.ipynb In [3] (query Your)",
                      inputs=inputs, query=inputs[0])
    seeded = "ch03.ipynb In [3] on seeded randn inputs and query"
    exercise.drawn("odd_shape", DOT_SCORES, seeded, query_and_inputs((7, (2, 12)), (5, (2, 8))),
                   seed=101)
    exercise.drawn("one_token", DOT_SCORES, seeded, query_and_inputs((1, (1, 1)), (4, (2, 8))),
                   seed=102)
    exercise.drawn("cancelling", DOT_SCORES, seeded + " of size ~300 whose products cancel",
                   cancelling, seed=103)
    # The notebook's shape with other values: a table of the notebook's answers keyed on
    # the shape fails; nine tokens: a loop fixed to the notebook's 6 leaves three scores 0.
    exercise.drawn("notebook_shape", DOT_SCORES, seeded + " of the notebook's shape (6, 3)",
                   query_and_inputs((6, (2, 12)), (3, (2, 8))), seed=104)
    exercise.drawn("nine_tokens", DOT_SCORES, seeded + ", nine tokens",
                   query_and_inputs((9, (8, 16)), (3, (2, 8))), seed=105)

"""Exercise 24, tiled_attention: the tiled causal attention kernel in CUDA, tiles of keys and
values in shared memory (ch03.ipynb In [36]'s attention, per batch item and head, as
FlashAttention's forward computes it).

The answer is exercise 23's, and so are the wrong answers a kernel's numbers can show: its
index slips and its online-softmax slips (ex23's ATTENTION kind and mistakes). What only a
tiled kernel gets wrong, a race between its threads, a barrier not every thread reaches or a
tile index out of bounds, shows in no tensor: the kit's CUDA emulator names those while the
kernel runs (kit/emu.hpp), whatever the case. The cases add what tiles make hard: T not a
multiple of the tile (a partial last tile, whose missing rows must be neither loaded nor
scored), exactly whole tiles, one token, and GPT-2's head_dim 64, the widest tile row."""

from dataclasses import replace

import torch

from ..cases import recorder
from . import ex23_fused_attention as ex23

TILE = 32  # attn::gpu::tile_size (include/attn/tiled_attention.hpp)


def tiled(mistake):
    """ex23's mistake, its hint in the words of a kernel with a launch already written."""
    if mistake.slug == "never_written":
        return replace(mistake, hint="the kernel writes nothing: step 3 writes context row t = "
                                     "acc / running_sum, for every t < T.")
    return mistake


ATTENTION = replace(ex23.ATTENTION,
                    mistakes=lambda *arguments: [tiled(m) for m in ex23.ATTENTION_MISTAKES])


@recorder("24")
def record(exercise):
    cell = "ch03.ipynb In [36]"
    exercise.notebook("worked_example", ATTENTION, f"{cell}: exercise 23's worked example, one "
                      "head of head_dim 1, q = k = [[0], [1]], v = [[2], [4]]: one block, one "
                      "tile of 2 of its 32 rows",
                      queries=torch.tensor([[[[0.0], [1.0]]]]),
                      keys=torch.tensor([[[[0.0], [1.0]]]]),
                      values=torch.tensor([[[[2.0], [4.0]]]]))
    exercise.notebook("notebook_heads", ATTENTION, f"{cell}: the queries, keys and values of "
                      "MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) made right after "
                      "torch.manual_seed(123), on In [33]'s batch", **ex23.notebook_heads())
    tiles = f"{cell}'s attention in tiles of {TILE}, on seeded randn queries, keys and values"
    draw = ex23.drawn_heads
    exercise.drawn("three_heads", ATTENTION, tiles + ", two batch items of three heads, one "
                   "partial tile", draw((2, (1, 3)), (3, (2, 4)), (7, (2, 12)), (4, (2, 8))),
                   seed=2401)
    exercise.drawn("partial_tile", ATTENTION, tiles + f", T = 37: a whole tile of {TILE} keys, "
                   "then a partial one of 5 (its missing rows neither loaded nor scored)",
                   draw((2, (1, 2)), (2, (1, 3)), (37, (33, 63)), (8, (4, 16))), seed=2402)
    exercise.drawn("whole_tiles", ATTENTION, tiles + f", T = {2 * TILE}: exactly two tiles",
                   draw((1, (1, 2)), (2, (1, 2)), (2 * TILE, (2 * TILE, 2 * TILE)),
                        (16, (8, 16))), seed=2403)
    exercise.drawn("one_token", ATTENTION, tiles + ", one token: one thread of 32 has a row",
                   draw((2, (1, 3)), (2, (1, 3)), (1, (1, 1)), (4, (2, 8))), seed=2404)
    exercise.drawn("batch_heads_tokens", ATTENTION, tiles + ", two batch items of three heads "
                   "and 33 tokens (the index and update slips told apart)",
                   draw((2, (2, 3)), (3, (2, 4)), (33, (17, 40)), (8, (4, 16))), seed=2405)
    exercise.drawn("gpt2_head_dim", ATTENTION, tiles + ", GPT-2's head_dim 64, the widest tile "
                   "row, and 40 tokens", draw((1, (1, 2)), (2, (1, 2)), (40, (33, 70)),
                                              (64, (64, 64))), seed=2406)
    exercise.drawn("scores_far_below", ATTENTION, tiles + ", every score near -200 (exp(score) "
                   "underflows to 0 unless the running maximum is subtracted)",
                   ex23.far_from_zero((2, (1, 3)), (2, (1, 3)), (9, (4, 40)), (16, (8, 16)),
                                      -200.0), seed=2407)
    exercise.drawn("scores_far_above", ATTENTION, tiles + ", every score near +200 (exp(score) "
                   "overflows to inf unless the running maximum is subtracted)",
                   ex23.far_from_zero((2, (1, 3)), (2, (1, 3)), (9, (4, 40)), (16, (8, 16)),
                                      200.0), seed=2408)

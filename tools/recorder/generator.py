"""PyTorch's own generator, sampled: what attn::TorchGenerator
(kit/torch/include/kit/torch_generator.hpp) must draw bit for bit. Each sample is one list of
calls made after torch.manual_seed(seed), repeated for several sizes; the file holds every
size's last result, flattened and concatenated. tests/kit/test_torch_generator.cpp replays the
calls in C++ and requires the same bits (0 ulp).

A call is [op, args]: "rand" and "randn" (args: the shape), "uniform" [shape, a, b],
"normal" [shape, mean, std], "linear" [in, out, bias] (an nn.Linear: its weight, then its bias
if any, flattened). "before" calls run first and are not recorded: they leave the generator,
and its cached normal value, as a cell before would.
"""

import torch

# Sizes 1 to 40 cover PyTorch's paths: randn of fewer than 16 elements (per element, in
# double, a cached second value), 16 (one Box-Muller group), and the sizes that are not a
# multiple of 16 (the last 16 redrawn); a few large and odd shapes follow.
EVERY_SIZE = [[n] for n in range(1, 41)]
LARGE = [[100], [1000], [4099], [3, 5, 7], [1, 5, 4], [2, 6, 3]]
SEEDS = [0, 42, 123, 789, 2**32 + 7, 2**63 + 12345]

SAMPLES = (  # (name, seed, sizes, op, extra args, before)
    [(f"rand_seed{s}", s, EVERY_SIZE + LARGE, "rand", [], []) for s in SEEDS]
    + [(f"randn_seed{s}", s, EVERY_SIZE + LARGE, "randn", [], []) for s in SEEDS]
    + [
        ("uniform_-0.5_0.5", 123, EVERY_SIZE + LARGE, "uniform", [-0.5, 0.5], []),
        ("uniform_-2_3", 7, EVERY_SIZE, "uniform", [-2.0, 3.0], []),
        ("normal_0.5_2", 123, EVERY_SIZE + LARGE, "normal", [0.5, 2.0], []),
        ("normal_-1_0.25", 7, EVERY_SIZE, "normal", [-1.0, 0.25], []),
        # The cached normal: an odd-sized randn leaves the second value of its last pair.
        ("randn_after_randn3", 123, EVERY_SIZE, "randn", [], [["randn", [3]]]),
        ("randn_after_randn3_rand2", 42, EVERY_SIZE, "randn", [],
         [["randn", [3]], ["rand", [2]]]),
        ("randn_after_randn20", 42, EVERY_SIZE, "randn", [], [["randn", [20]]]),
        ("rand_after_randn5", 789, EVERY_SIZE, "rand", [], [["randn", [5]]]),
        # nn.Linear(in, out, bias): the weight's kaiming bound, the bias's own, their order.
        ("linear", 123, [[3, 2, False], [3, 2, True], [4, 4, True], [6, 6, True],
                         [7, 3, True], [2, 768, True], [768, 2, False], [64, 48, True]],
         "linear", [], []),
        ("linear_after_rand", 789, [[3, 2, True], [17, 5, True]], "linear", [],
         [["rand", [3, 2]]]),
    ]
)


def run(op, args):
    """One call of the kit's vocabulary on the global generator, flattened."""
    if op == "rand":
        return torch.rand(*args).flatten()
    if op == "randn":
        return torch.randn(*args).flatten()
    if op == "uniform":
        shape, low, high = args
        return torch.empty(*shape).uniform_(low, high).flatten()
    if op == "normal":
        shape, mean, std = args
        return torch.empty(*shape).normal_(mean, std).flatten()
    if op == "linear":
        in_features, out_features, bias = args
        layer = torch.nn.Linear(in_features, out_features, bias=bias)
        parts = [layer.weight.detach().flatten()]
        if bias:
            parts.append(layer.bias.detach().flatten())
        return torch.cat(parts)
    raise ValueError(f"unknown generator call {op}")


def sample(seed, sizes, op, extra, before):
    results = []
    for size in sizes:
        torch.manual_seed(seed)
        for before_op, before_args in before:
            run(before_op, before_args)
        args = [size, *extra] if op in ("uniform", "normal") else size
        results.append(run(op, args))
    return torch.cat(results)


def record_generator_samples(recording):
    """kit/torch_generator/NAME.npy, each with the calls that must rebuild it."""
    for name, seed, sizes, op, extra, before in SAMPLES:
        recording.add(f"kit/torch_generator/{name}.npy", sample(seed, sizes, op, extra, before),
                      "generator_sample", exercise="kit",
                      source="attn::TorchGenerator (kit/torch/include/kit/torch_generator.hpp)",
                      generator={"seed": str(seed), "op": op, "sizes": sizes, "args": extra,
                                 "before": before})

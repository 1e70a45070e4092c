"""Tensors whose repr() the kit's PyTorch-style printer (kit/core/src/torch_format.cpp)
must reproduce: kit/printing/sample_NN.npy, each with its "repr" in the manifest."""

import torch

from . import notebooks


def record_printing_samples(recording):
    torch.manual_seed(0)
    inputs = notebooks.journey_inputs()
    samples = [
        notebooks.attention_scores_for(inputs, inputs[1]),
        inputs @ inputs.T,
        torch.tril(torch.ones(6, 6)),
        torch.tensor([1000.0, 1001.0]),
        torch.tensor([float("nan"), float("nan")]),
        torch.tensor([1.0, float("inf"), -float("inf"), float("nan")]),
        torch.tensor([1e-5, 1.0, 2000.0]),
        torch.tensor([1e9, 1.0]),
        torch.tensor([-0.0, 0.5, -1.25]),
        torch.randn(4, 3),
        torch.randn(2, 3, 4),
        torch.randn(1, 2, 3, 4),
        torch.arange(30, dtype=torch.float32) * 0.1,
        torch.randn(25) * 100,
        torch.randn(40, 40),
        torch.randn(2, 30, 40),
        torch.tensor(0.1385),
        torch.zeros(2, 3),
        torch.zeros(0),
        torch.zeros(0, 3),
    ]
    for number, tensor in enumerate(samples):
        recording.add(f"kit/printing/sample_{number:02d}.npy", tensor, "print_sample",
                      exercise="kit", source="repr() of a torch.Tensor", seed=0,
                      repr=repr(tensor))
    # torch.set_printoptions(precision=3), as 003's multi-head cells print.
    precision_3 = [torch.randn(8, 6) * 5, torch.tensor([3.0824e-01, 3.0549e-04, 6.9145e-01]),
                   torch.randn(3, 4)]
    torch.set_printoptions(precision=3)
    try:
        for number, tensor in enumerate(precision_3, start=len(samples)):
            recording.add(f"kit/printing/sample_{number:02d}.npy", tensor, "print_sample",
                          exercise="kit", source="repr() of a torch.Tensor, precision=3",
                          seed=0, precision=3, repr=repr(tensor))
    finally:
        torch.set_printoptions(profile="default")

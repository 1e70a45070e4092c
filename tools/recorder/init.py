"""HashedUniform: parameters from a rule that C++ computes too (include/attn/module.hpp).

Element i (row-major) of the tensor `name` at `seed` is
    z = mix(fnv1a64(name) ^ mix(seed + 0x9E3779B97F4A7C15 * (i + 1)))
    value = float32(low + (high - low) * (z >> 40) / 2**24)        computed in float64
with mix, splitmix64's finaliser. A case that builds its module with attn::HashedUniform(seed)
stores only the seed: a GPT-2-width module (2.36 M parameters, 9.4 MB in float32) needs no
file. The kit's test_init checks both sides agree on the samples record_init_samples writes.
"""

import math

import numpy as np
import torch
import torch.nn as nn

GOLDEN = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1


def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def fnv1a64(text):
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x100000001B3) & MASK
    return value


def hashed_uniform(seed, name, shape, low, high):
    """The float32 tensor `name` of `shape` at `seed`, uniform in [low, high)."""
    count = math.prod(shape)
    index = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = _mix(np.uint64(fnv1a64(name)) ^ _mix(np.uint64(seed) + np.uint64(GOLDEN) * index))
    unit = (z >> np.uint64(40)).astype(np.float64) / 16777216.0
    low, high = float(np.float32(low)), float(np.float32(high))  # C++ takes floats
    values = (low + (high - low) * unit).astype(np.float32)
    return torch.from_numpy(values.reshape(shape))


def linear_bound(d_in):
    """nn.Linear's bound 1/sqrt(d_in), computed in float32 as attn::Linear::make does."""
    return float(np.float32(1.0) / np.sqrt(np.float32(d_in)))


def hashed_state(module, seed, prefix=""):
    """Sets every parameter of the torch `module` as attn::HashedUniform(seed) would build it:
    an nn.Linear's weight and bias from +-1/sqrt(in_features), any other parameter (the
    torch.rand matrices of SelfAttention_v1) from [0, 1). Returns the module."""
    with torch.no_grad():
        for path, owner in module.named_modules():
            for name, parameter in owner.named_parameters(recurse=False):
                if isinstance(owner, nn.Linear):
                    low, high = -linear_bound(owner.in_features), linear_bound(owner.in_features)
                else:
                    low, high = 0.0, 1.0
                full_name = prefix + (f"{path}." if path else "") + name
                parameter.copy_(hashed_uniform(seed, full_name, tuple(parameter.shape), low,
                                               high))
    return module


SAMPLES = [  # (seed, name, shape, low, high)
    (0, "W_query", (3, 2), 0.0, 1.0),
    (123, "heads.1.W_key.weight", (2, 3), -linear_bound(3), linear_bound(3)),
    (2**63 + 12345, "out_proj.bias", (768,), -linear_bound(768), linear_bound(768)),
    (7, "x", (2, 3, 4), -1.0, 1.0),
]


def record_init_samples(recording):
    """kit/hashed_uniform/sample_N.npy: tensors test_init rebuilds with attn::hashed_uniform."""
    for number, (seed, name, shape, low, high) in enumerate(SAMPLES):
        recording.add(f"kit/hashed_uniform/sample_{number}.npy",
                      hashed_uniform(seed, name, shape, low, high), "init_sample",
                      exercise="kit", source="attn::hashed_uniform (include/attn/module.hpp)",
                      init={"seed": str(seed), "name": name, "low": float(np.float32(low)),
                            "high": float(np.float32(high))})

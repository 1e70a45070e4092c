"""The kit's tolerance rule, as kit/core/include/kit/tolerance.hpp applies it.

For a float32 golden E with error scale S, reduction n and factor f, a value passes when
    |got_i - E_i| <= allowed_i = f * (atol + rtol * sqrt(n) * S_i)
NaN matches NaN and an infinity the same infinity. A tensor of another shape than E (a
mistake of another shape) is measured with the largest finite S, and where S is not finite
(E is nan there) with |expected|, as the C++ comparison (kit/core/src/compare.cpp) does.
A recorded mistake M is measured with max(S, |M|) (with_magnitudes): its values carry the
roundoff of their own magnitude, which may be far above the answer's (exp of the raw scores,
a row dotted with itself), as the C++ naming measures a result against M.
"""

import math

import numpy as np

ATOL = 1e-6        # for values whose scale is about 0
RTOL = 8 * 2**-24  # 8 units of float32 roundoff: kit/tolerance.hpp says why


def allowed(scale, reduction, factor=1.0):
    """The largest |got - expected| allowed per element (float64)."""
    return factor * (ATOL + RTOL * math.sqrt(reduction) * np.abs(np.asarray(scale, np.float64)))


def distance(got, expected, scale, reduction, factor=1.0):
    """max_i |got_i - expected_i| / allowed_i: how many tolerances apart two tensors are
    (0 when they match exactly, inf when their shapes differ)."""
    got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    if got.shape != expected.shape:
        return math.inf
    scale = np.asarray(scale, np.float64)
    if scale.shape != got.shape:
        scale = np.max(scale[np.isfinite(scale)], initial=0.0)
    # Where the golden is nan or inf so is its scale: measure against `expected` itself.
    scale = np.where(np.isfinite(scale), scale, np.abs(expected))
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(got - expected) / allowed(scale, reduction, factor)
    ratio = np.where(same, 0.0, ratio)
    ratio[np.isnan(ratio)] = math.inf
    return float(ratio.max(initial=0.0))


def with_magnitudes(scale, *tensors):
    """The error scale of a comparison with recorded mistakes: per element the largest of
    `scale` and each tensor's |value| (nan values left out). A scale of another shape than
    the tensors counts with its largest finite value, as in distance()."""
    scale = np.asarray(scale, np.float64)
    for tensor in tensors:
        magnitude = np.abs(np.asarray(tensor, np.float64))
        if scale.shape != magnitude.shape:
            scale = np.max(scale[np.isfinite(scale)], initial=0.0)
        scale = np.fmax(scale, magnitude)
    return scale

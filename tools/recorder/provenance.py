"""Which goldens a BLAS computes, for `--check` on another PyTorch than the recording one.

The goldens were recorded with Debian 12's torch 1.13 on OpenBLAS 0.3.21 (Haswell kernels).
Debian 13's torch 2.6 reproduces every one of them bit for bit on that same OpenBLAS (its
generator, randn, rand, normal_, uniform_, nn.Linear's init, dropout masks, softmax, exp and
sums are unchanged); what differs between the two releases is the BLAS behind matmul, mm,
bmm, dot, mv and linear: Debian 13's OpenBLAS 0.3.29 sums long products (K = 1024) in another
order, and the reference BLAS (libblas3, what `apt-get install --no-install-recommends
python3-torch` brings) rounds almost every product differently in the last bits.

So on another torch, or on a BLAS other than OpenBLAS, `--check` records with `Tracker`
active: every tensor a BLAS product computed, or computed from one, is marked, and so is every
file of a case that took such an input or ran such a product (its inputs, expected goldens,
scales and mistakes). Those files are not compared byte for byte (they are right to the last
bit only on the recording BLAS); everything else is, and the manifest too, less the recording
environment's versions and the marked files' sha256.
"""

import ctypes
import re

import torch
from torch.overrides import TorchFunctionMode

# The torch functions whose float results come from the BLAS (sgemm, sgemv, sdot) or from
# kernels built on it; named as __torch_function__ sees them (a @ b is __matmul__ or matmul).
BLAS_FUNCTIONS = frozenset({
    "matmul", "__matmul__", "__rmatmul__", "__imatmul__", "mm", "bmm", "mv", "dot", "vdot",
    "inner", "addmm", "addmm_", "baddbmm", "baddbmm_", "addbmm", "addbmm_", "addmv", "addmv_",
    "addr", "addr_", "linear", "bilinear", "einsum", "tensordot", "chain_matmul", "multi_dot",
    "matrix_power", "cdist", "scaled_dot_product_attention", "multi_head_attention_forward",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
})
WHAT = "matmul/mm/bmm/dot/mv/linear"

_MARK = "_attn_kit_blas"


def _tensors(value):
    """The tensors in an argument or result: itself, or those in a list, tuple or dict."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def from_blas(tensor):
    """Whether a BLAS product computed `tensor`, or computed something it was made from."""
    return isinstance(tensor, torch.Tensor) and getattr(tensor, _MARK, False)


class Tracker(TorchFunctionMode):
    """While active, marks what BLAS products compute and what is computed from them;
    `products` counts the products run."""

    def __init__(self):
        super().__init__()
        self.products = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        product = name in BLAS_FUNCTIONS
        self.products += product
        if product or any(from_blas(t) for t in _tensors((args, kwargs))):
            in_place = name.endswith("_") or name.startswith("__i") or name == "__setitem__"
            for tensor in _tensors((result, args[:1] if in_place else ())):
                try:
                    setattr(tensor, _MARK, True)
                except (AttributeError, RuntimeError):
                    pass  # a tensor that takes no attributes (none seen): its case's mark holds
        return result


TRACKER = None  # the active Tracker while `--check` records on another torch or BLAS


def products_run():
    """How many BLAS products the active Tracker has seen (0 when none is active)."""
    return 0 if TRACKER is None else TRACKER.products


def loaded_blas():
    """The BLAS library this torch loaded, in words: "OpenBLAS 0.3.21 ... Haswell ..." or the
    library's file name ("libblas.so.3.12.1", the reference BLAS)."""
    torch.ones(2, 2) @ torch.ones(2, 2)  # loads it
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = sorted({line.split()[-1] for line in maps
                            if len(line.split()) > 5 and "blas" in line.split()[-1]})
    except OSError:
        return "unknown"
    for path in paths:
        if "openblas" in path.rsplit("/", 1)[-1]:
            try:
                config = ctypes.CDLL(path).openblas_get_config
                config.restype = ctypes.c_char_p
                return config().decode("ascii", "replace").strip()
            except (OSError, AttributeError):
                return path.rsplit("/", 1)[-1]
    return ", ".join(path.rsplit("/", 1)[-1] for path in paths) or "unknown"


def is_openblas(blas):
    return re.match(r"(?i)openblas|libopenblas", blas) is not None

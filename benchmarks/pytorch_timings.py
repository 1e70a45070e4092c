#!/usr/bin/python3
"""benchmarks/pytorch_timings.py — PyTorch's side of tools/kit dev bench and compare: the seeds'
MultiHeadAttention class (tools/recorder/notebooks.py, ch03.ipynb In [36]) at GPT-2 width
(d_in = d_out = 768, 12 heads, context_length 1024, qkv_bias False), timed in eager mode, and
the same module with its attention done by torch.nn.functional.scaled_dot_product_attention
(is_causal=True; PyTorch 2.0+, a row saying so otherwise), on CUDA if there is one, else the CPU.

    /usr/bin/python3 benchmarks/pytorch_timings.py [--quick] [--threads N] [--repetitions R]
    /usr/bin/python3 benchmarks/pytorch_timings.py --golden        # max |diff| to exercise 22
    /usr/bin/python3 benchmarks/pytorch_timings.py --dump 8 1024 out.npy [--impl sdpa]

Prints one JSON object per line: impl ("pytorch_class" or "pytorch_sdpa"), backend ("CPU" or
"CUDA"), B, T, threads, ms_median (the median of the repetitions' mean time per forward),
ms_min and ms_max (the fastest and slowest repetition), math (fp32 or TF32 products, and
which kernel SDPA chose), torch, device; or "skipped" with the reason. The parameters and x
are the ones benchmarks/attention_bench.cpp uses: attn::HashedUniform(2301) and
hashed_uniform(2302, "x", ...) (tools/recorder/init.py's rule, the one C++ computes), so both
sides run the same numbers.
--golden runs both paths on exercise 22's recorded GPT-2 forward case
(reference_data/22_gpt2_sizing/forward_t64: its seeds, qkv_bias, x) and prints each one's
max |diff| to the golden.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

KIT = Path(__file__).resolve().parents[1]
RECORDER = KIT / "tools" / "recorder"
GOLDEN_CASE = KIT / "reference_data" / "22_gpt2_sizing" / "forward_t64"

# As benchmarks/attention_bench.cpp.
GPT2 = {"d_in": 768, "d_out": 768, "context_length": 1024, "num_heads": 12}
INIT_SEED, X_SEED = 2301, 2302
SIZES = [(B, T) for B in (1, 8) for T in (128, 256, 512, 1024)]
QUICK_SIZES = [(1, 128)]


def load_module(name: str):
    """tools/recorder/<name>.py alone, without the recorder package (whose __init__ loads every
    exercise's recorder)."""
    spec = importlib.util.spec_from_file_location(f"kit_recorder_{name}", RECORDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


notebooks = load_module("notebooks")
try:
    init = load_module("init")  # HashedUniform's rule, which C++ computes alike
except ImportError as missing:  # init.py computes it in numpy
    sys.exit(f"benchmarks/pytorch_timings.py needs numpy beside torch ({missing})")


# ---- the two paths --------------------------------------------------------------------------

def has_sdpa() -> bool:
    return hasattr(F, "scaled_dot_product_attention")


def sdpa_forward(module, x):
    """The class's forward with its four attention steps (scores, mask, softmax, @ values) done
    by scaled_dot_product_attention(is_causal=True)."""
    b, num_tokens, _ = x.shape

    def heads(layer):
        return layer(x).view(b, num_tokens, module.num_heads, module.head_dim).transpose(1, 2)
    context = F.scaled_dot_product_attention(heads(module.W_query), heads(module.W_key),
                                             heads(module.W_value), is_causal=True)
    return module.out_proj(context.transpose(1, 2).contiguous().view(b, num_tokens, module.d_out))


def gpt2_module(seed: int, qkv_bias: bool, device: str):
    module = notebooks.MultiHeadAttention(GPT2["d_in"], GPT2["d_out"], GPT2["context_length"],
                                          0.0, GPT2["num_heads"], qkv_bias=qkv_bias)
    return init.hashed_state(module, seed).eval().to(device)


def x_of(seed: int, batch: int, tokens: int, device: str):
    return init.hashed_uniform(seed, "x", (batch, tokens, GPT2["d_in"]), -1.0,
                               1.0).to(device)


def forward(impl: str, module, x):
    with torch.no_grad():
        return module(x) if impl == "class" else sdpa_forward(module, x)


# ---- timing ---------------------------------------------------------------------------------

def synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def repetitions_ms(run, device: str, repetitions: int, min_time_s: float) -> list:
    """The mean time of one call in each of `repetitions` repetitions, each running enough
    calls to last about min_time_s (after one warm-up call)."""
    synchronize(device)
    start = time.perf_counter()
    run()
    synchronize(device)
    once = max(time.perf_counter() - start, 1e-6)
    calls = max(1, math.ceil(min_time_s / once))
    means = []
    for _ in range(repetitions):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(calls):
            run()
        synchronize(device)
        means.append((time.perf_counter() - start) / calls * 1e3)
    return means


def math_of(impl: str, module, x, device: str) -> str:
    """Which arithmetic a path's products use on `device`: on CUDA, float32 matmuls take TF32
    tensor cores only where torch.backends allows it, and SDPA picks one of its kernels."""
    if device != "cuda":
        return "fp32"
    matmul = "TF32" if torch.backends.cuda.matmul.allow_tf32 else "fp32"
    if impl == "class":
        return f"{matmul} matmuls (cuBLAS)"
    choice = getattr(torch, "_fused_sdp_choice", None)  # private; PyTorch 2.x
    if choice is None:
        return f"{matmul} projections; SDPA kernel unknown"
    shape = (x.shape[0], module.num_heads, x.shape[1], module.head_dim)
    query = torch.empty(shape, device=device)
    kernels = {0: "math (unfused matmuls)", 1: "FlashAttention", 2: "memory-efficient (CUTLASS)",
               3: "cuDNN"}
    try:
        kernel = kernels.get(int(choice(query, query, query, None, 0.0, True)), "unknown")
    except (RuntimeError, TypeError):
        kernel = "unknown"
    return f"{matmul} projections; SDPA kernel: {kernel}"


def device_name(device: str) -> str:
    if device == "cuda":
        return torch.cuda.get_device_name(0)
    return f"CPU, {torch.get_num_threads()} threads"


def timings(sizes, device: str, repetitions: int, min_time_s: float):
    """The JSON rows of both paths at every (B, T) of `sizes`."""
    module = gpt2_module(INIT_SEED, False, device)
    common = {"backend": device.upper(), "threads": torch.get_num_threads(),
              "torch": torch.__version__, "device": device_name(device)}
    for batch, tokens in sizes:
        x = x_of(X_SEED, batch, tokens, device)
        for impl in ("class", "sdpa"):
            row = {"impl": f"pytorch_{impl}", "B": batch, "T": tokens, **common}
            if impl == "sdpa" and not has_sdpa():
                row["skipped"] = f"needs PyTorch 2.0+ (this is {torch.__version__})"
            else:
                times = repetitions_ms(lambda: forward(impl, module, x), device, repetitions,
                                       min_time_s)
                row.update(ms_median=round(statistics.median(times), 4),
                           ms_min=round(min(times), 4), ms_max=round(max(times), 4),
                           math=math_of(impl, module, x, device))
            yield row


# ---- the golden of exercise 22 --------------------------------------------------------------

def golden_diffs(device: str):
    """Both paths on exercise 22's forward_t64 case: max |diff| to its recorded context."""
    import numpy as np  # the case's .npy files

    def value(name):
        return np.load(GOLDEN_CASE / f"{name}.npy")

    seeds = {name: int(value(name)) for name in ("init_seed", "x_seed", "batch", "T", "d_in",
                                                 "qkv_bias")}
    module = gpt2_module(seeds["init_seed"], bool(seeds["qkv_bias"]), device)
    x = x_of(seeds["x_seed"], seeds["batch"], seeds["T"], device)
    golden = torch.from_numpy(value("context")).to(torch.float64)
    for impl in ("class", "sdpa"):
        row = {"impl": f"pytorch_{impl}", "backend": device.upper(),
               "case": "22_gpt2_sizing/forward_t64"}
        if impl == "sdpa" and not has_sdpa():
            row.update(status="skipped", message="needs PyTorch 2.0+")
        else:
            got = forward(impl, module, x).cpu().to(torch.float64)
            row["status"] = "ok"
            row["max_abs_diff"] = float((got - golden).abs().max())
        yield row


def parse_sizes(text: str) -> list:
    """"1x128,8x1024" -> [(1, 128), (8, 1024)]."""
    sizes = []
    for item in text.split(","):
        batch, tokens = item.lower().split("x")
        sizes.append((int(batch), int(tokens)))
    return sizes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="B = 1, T = 128 only, 3 repetitions")
    parser.add_argument("--sizes", type=parse_sizes, help="BxT,... (default: B 1, 8 x T 128..1024)")
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (the C++ run's)")
    parser.add_argument("--repetitions", type=int, help="default 5 (3 with --quick)")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds each repetition lasts at least (default 0.2)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--golden", action="store_true",
                        help="max |diff| of both paths to exercise 22's GPT-2 golden")
    parser.add_argument("--dump", nargs=3, metavar=("B", "T", "OUT"),
                        help="write the forward's output at (B, T) to OUT (.npy)")
    parser.add_argument("--impl", choices=("class", "sdpa"), default="class",
                        help="with --dump: which path (default: the class)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"

    if args.dump:
        import numpy as np
        batch, tokens, out = int(args.dump[0]), int(args.dump[1]), args.dump[2]
        if args.impl == "sdpa" and not has_sdpa():
            sys.exit(f"scaled_dot_product_attention needs PyTorch 2.0+ (this is "
                     f"{torch.__version__})")
        result = forward(args.impl, gpt2_module(INIT_SEED, False, device),
                         x_of(X_SEED, batch, tokens, device))
        np.save(out, result.cpu().numpy())
        return 0
    rows = (golden_diffs(device) if args.golden else
            timings(args.sizes or (QUICK_SIZES if args.quick else SIZES), device,
                    args.repetitions or (3 if args.quick else 5),
                    min(args.min_time, 0.05) if args.quick else args.min_time))
    for row in rows:
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

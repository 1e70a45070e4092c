"""tools/kit dev bench: MultiHeadAttention's forward at GPT-2 width timed for every implementation
(benchmarks/attention_bench.cpp: the CPU solution, the Thrust teaching solution, on CUDA the
fast kernel) and, when /usr/bin/python3 has PyTorch, the seeds' class and its SDPA path
(benchmarks/pytorch_timings.py) in the same run.

One row per implementation and size: impl, backend, B, T, threads, ms_median, gflops, and
ratio_to_pytorch (ours / PyTorch's class, same B and T, same run) where PyTorch was timed.
The pure functions (FLOPs, reading Google Benchmark's JSON, ratios, the JSON lines and the
table) are tested in tests/kit/test_cli_bench.py; run() builds and runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import build
from .catalogue import Kit, KitError
from .tables import aligned, number, percent
from .terminal import Heartbeat, say

# The benchmarks are timed in an optimised build: build-release/ (the GPU track on Thrust's
# OpenMP backend) or, with --cuda, build-cuda/ (preset cuda). A Debug build checks every xtensor
# index and would time that.
PRESET, CUDA_PRESET = "release", "cuda"
SOLUTIONS_PROGRAM = "attn_bench"
STUDENT_PROGRAM = "attn_bench_student"
PYTORCH_SCRIPT = Path("benchmarks") / "pytorch_timings.py"

WIDTH, HEADS = 768, 12  # GPT-2 small's d_in = d_out and heads (attention_bench.cpp)
BATCHES = (1, 8)
TOKENS = (128, 256, 512, 1024)
REFERENCE = "pytorch_class"  # what ratio_to_pytorch divides by
KEYS = ("impl", "backend", "B", "T", "threads", "ms_median", "gflops", "ratio_to_pytorch",
        "ms_min", "ms_max", "fraction_of_sgemm", "math")
SGEMM = "sgemm_rate"   # attention_bench.cpp's OpenBLAS-alone benchmark: the CPU's roofline
DEVICE_SGEMM = "device_sgemm_rate"  # its cuBLAS-alone benchmark (CUDA): the GPU's roofline
GPU_BACKENDS = ("CUDA", "PyTorch CUDA")  # rows that ran on the GPU
NOISY = 0.2            # (max - min) / median of the repetitions beyond which a row says so

# What each implementation is, for people (the table, compare's CSV and plot); where it ran
# comes from its backend (title()).
TITLES = {
    "cpu": "CPU solution, exercise 19 (xtensor + OpenBLAS)",
    "cpu_fast": "CPU fast path (fused, blocked, OpenMP)",
    "student": "your exercise 23 (Thrust)",
    "student_tiled": "your exercise 24 (tiled, CUDA)",
    "thrust": "Thrust kernel (teaching)",
    "tiled": "tiled CUDA kernel (exercise 24's solution)",
    "fast": "fast CUDA kernel",
    "pytorch_class": "PyTorch MultiHeadAttention",
    "pytorch_sdpa": "PyTorch SDPA (is_causal)",
}
ORDER = tuple(TITLES)
WHERE = {"OMP": "on CPU threads (OMP)", "CUDA": "on the GPU (CUDA)"}


def title(impl: str, backend: str = "") -> str:
    """An implementation by what it is and, for the GPU track's, where it ran: "Thrust kernel
    (teaching), on CPU threads (OMP)"."""
    name = TITLES.get(impl, impl)
    return f"{name}, {WHERE[backend]}" if backend in WHERE else name


NAME = re.compile(r"^(?P<impl>[A-Za-z_]+)/B:(?P<B>\d+)/T:(?P<T>\d+)")
TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def causal_flops(batch: int, tokens: int, width: int = WIDTH, heads: int = HEADS) -> float:
    """FLOPs of one causal forward, each product counted once: the 4 projections 2·B·T·d²,
    and per batch item and head the T(T+1)/2 unmasked scores and as many weighted values,
    2·hd each (attention_bench.cpp counts the same)."""
    head_dim = width / heads
    return (4 * 2 * batch * tokens * width * width
            + 2 * 2 * batch * heads * head_dim * tokens * (tokens + 1) / 2)


def gflops(batch: int, tokens: int, ms: float | None) -> float | None:
    if not ms:
        return None
    return round(causal_flops(batch, tokens) / (ms * 1e-3) / 1e9, 2)


def make_row(impl: str, backend: str, batch: int, tokens: int, threads: int,
             ms: float | None, note: str = "") -> dict:
    row = {"impl": impl, "backend": backend, "B": batch, "T": tokens, "threads": threads,
           "ms_median": None if ms is None else round(ms, 4), "gflops": gflops(batch, tokens, ms)}
    if note:
        row["note"] = note
    return row


def rows_of_benchmark(report: dict, threads: int) -> list:
    """Rows from Google Benchmark's --benchmark_format=json: the median aggregate of each
    benchmark (its only run when there was one repetition), with the min and max of its
    repetitions where they were reported; an implementation that skipped with an error keeps
    a row with no time and the error as its note."""
    backend = report.get("context", {}).get("attn_backend", "?")
    found, single, spread = {}, {}, {}
    for entry in report.get("benchmarks", []):
        match = NAME.match(entry.get("run_name") or entry.get("name", ""))
        if not match:
            continue
        key = (match["impl"], int(match["B"]), int(match["T"]))
        impl_backend = "CPU" if key[0].startswith("cpu") else backend
        if entry.get("error_occurred"):
            found.setdefault(key, make_row(*key[:1], impl_backend, *key[1:], threads, None,
                                           entry.get("error_message", "error")))
            continue
        ms = entry.get("real_time", 0.0) * TO_MS.get(entry.get("time_unit", "ns"), 1e-6)
        aggregate = entry.get("aggregate_name")
        if aggregate == "median":
            found[key] = make_row(key[0], impl_backend, key[1], key[2], threads, ms)
        elif aggregate in ("min", "max"):
            spread.setdefault(key, {})[f"ms_{aggregate}"] = round(ms, 4)
        elif entry.get("run_type", "iteration") == "iteration":
            single.setdefault(key, make_row(key[0], impl_backend, key[1], key[2], threads, ms))
    for key, row in single.items():
        found.setdefault(key, row)
    for key, extremes in spread.items():
        if key in found and found[key]["ms_median"]:
            with_spread(found[key], extremes.get("ms_min"), extremes.get("ms_max"))
    return sorted(found.values(), key=sort_key)


def with_spread(row: dict, low: float | None, high: float | None) -> dict:
    """The row with the fastest and slowest repetitions, and a note where they spread over
    more than NOISY of the median."""
    if low is None or high is None or not row["ms_median"]:
        return row
    row.update(ms_min=round(low, 4), ms_max=round(high, 4))
    if high - low > NOISY * row["ms_median"]:
        row["note"] = (f"noisy: the repetitions spread over "
                       f"{(high - low) / row['ms_median']:.0%} of the median; run again")
    return row


def sgemm_gflops(report: dict, benchmark: str = SGEMM) -> float | None:
    """The machine's sgemm rate in GFLOP/s, from the same run's sgemm_rate benchmark (or
    device_sgemm_rate: the GPU's) (its median, else its only run), or None where it did not
    run."""
    rates = {}
    for entry in report.get("benchmarks", []):
        if not (entry.get("run_name") or entry.get("name", "")).startswith(benchmark + "/"):
            continue
        rate = entry.get("GFLOP/s")
        if isinstance(rate, (int, float)) and rate > 0:
            rates[entry.get("aggregate_name", "run")] = rate
    return rates.get("median", rates.get("run"))


def with_roofline(rows: list, sgemm: float | None, device_sgemm: float | None = None) -> list:
    """Each timed row with fraction_of_sgemm: its GFLOP/s over the sgemm rate of what it ran
    on, the CPU's (OpenBLAS) or the GPU's (cuBLAS); none where that rate was not measured."""
    result = []
    for row in rows:
        rate = device_sgemm if row["backend"] in GPU_BACKENDS else sgemm
        result.append(dict(row, fraction_of_sgemm=round(row["gflops"] / rate, 3))
                      if rate and row.get("gflops") else row)
    return result


def rows_of_pytorch(lines: str) -> list:
    """Rows from benchmarks/pytorch_timings.py's JSON lines."""
    rows = []
    for line in lines.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        item = json.loads(line)
        row = make_row(item["impl"], f"PyTorch {item['backend']}", item["B"], item["T"],
                       item["threads"], item.get("ms_median"), item.get("skipped", ""))
        if item.get("math"):
            row["math"] = item["math"]
        rows.append(with_spread(row, item.get("ms_min"), item.get("ms_max")))
    return rows


def sort_key(row: dict) -> tuple:
    rank = ORDER.index(row["impl"]) if row["impl"] in ORDER else len(ORDER)
    return row["B"], rank, row["impl"], row["T"], row["threads"]


def with_ratios(rows: list) -> list:
    """Each row with ratio_to_pytorch = its ms / PyTorch's class's ms at the same B and T,
    where that was timed (lower is faster; the class's own row is 1.0)."""
    reference = {(row["B"], row["T"]): row["ms_median"] for row in rows
                 if row["impl"] == REFERENCE and row["ms_median"]}
    result = []
    for row in rows:
        row = dict(row)
        base = reference.get((row["B"], row["T"]))
        if base and row["ms_median"] is not None:
            row["ratio_to_pytorch"] = round(row["ms_median"] / base, 3)
        result.append(row)
    return sorted(result, key=sort_key)


def json_lines(rows: list) -> str:
    """One JSON object per row, its keys in KEYS order (ratio_to_pytorch only where PyTorch was
    timed, and a note where a row has no time)."""
    lines = []
    for row in rows:
        item = {key: row[key] for key in KEYS if key in row}
        if row.get("note"):
            item["note"] = row["note"]
        lines.append(json.dumps(item))
    return "\n".join(lines)


def table(rows: list) -> str:
    """The rows for people: one line each, aligned."""
    lines = [("implementation", "backend", "B", "T", "threads", "ms median", "min–max",
              "GFLOP/s", "of sgemm", "× PyTorch", "")]
    for row in rows:
        spread = (f"{row['ms_min']:.1f}–{row['ms_max']:.1f}" if "ms_min" in row and
                  "ms_max" in row else "")
        lines.append((title(row["impl"], row["backend"]), row["backend"], str(row["B"]),
                      str(row["T"]), str(row["threads"]), number(row["ms_median"], 3), spread,
                      number(row["gflops"], 1), percent(row.get("fraction_of_sgemm")),
                      number(row.get("ratio_to_pytorch"), 2), row.get("note", "")))
    return aligned(lines)


# ---- running --------------------------------------------------------------------------------

def torch_python() -> str | None:
    """A Python that imports torch: $ATTN_TORCH_PYTHON, Debian's /usr/bin/python3, or the
    python3 on PATH (a GPU machine's pip-installed PyTorch); None if none does."""
    candidates = [os.environ.get("ATTN_TORCH_PYTHON"), "/usr/bin/python3", sys.executable,
                  shutil.which("python3")]
    for python in dict.fromkeys(c for c in candidates if c):
        try:
            if subprocess.run([python, "-c", "import torch"], capture_output=True,
                              timeout=60).returncode == 0:
                return python
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def thread_environment(threads: int) -> dict:
    """The C++ programs' threads: OpenMP's (Thrust-OMP) and OpenBLAS's."""
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))


def build_program(kit: Kit, target: str, preset: str = PRESET, no_build: bool = False) -> tuple:
    """(the program's path or None, why not). Builds the preset's target, or with `no_build`
    takes the one already built."""
    program = build.build_dir(kit, preset) / "bin" / target
    if no_build:
        return (program, "") if program.exists() else (None, f"{program} is not built")
    say(build.announce(kit, preset, target))
    with Heartbeat(f"building {target}"):
        configured, built, output = build.configure_and_build(kit, preset, target)
    if configured and built and program.exists():
        return program, ""
    if f"unknown target '{target}'" in output:
        return None, (f"{target} is not in this build: it needs the GPU track (ATTN_GPU=OMP or "
                      "CUDA, libthrust-dev) and Google Benchmark (libbenchmark-dev); "
                      "`tools/kit setup` installs them")
    log = build.build_dir(kit, preset) / "kit-build.log"
    return None, f"{target} did not build (see {log})"


def benchmark_arguments(quick: bool, batches=None, tokens=None) -> list:
    """Google Benchmark's flags for one run: JSON, the median, min and max of 5 repetitions,
    the sizes (a benchmark's name is "cpu/B:8/T:1024/manual_time"; by default B = 1, T = 128
    when quick, else every size) and the sgemm rates (the CPU's, and on CUDA the GPU's)."""
    def alternatives(values):
        return "|".join(str(value) for value in values)
    batches = batches or ((1,) if quick else BATCHES)
    tokens = tokens or ((128,) if quick else TOKENS)
    sizes = "/B:(%s)/T:(%s)/" % (alternatives(batches), alternatives(tokens))
    return ["--benchmark_format=json", f"--benchmark_filter={sizes}|^({SGEMM}|{DEVICE_SGEMM})/",
            "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
            "--benchmark_min_time=%s" % ("0.05" if quick else "0.2")]


def run_benchmark(kit: Kit, program: Path, arguments: list, threads: int) -> dict:
    with Heartbeat(f"timing {program.name}"):
        result = subprocess.run([str(program), *arguments], cwd=kit.root, text=True,
                                env=thread_environment(threads), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    if result.returncode != 0:
        raise KitError(f"{program.name} failed (exit {result.returncode}): "
                       f"{result.stderr.strip()[-500:]}")
    try:
        return json.loads(result.stdout)
    except ValueError as error:
        raise KitError(f"{program.name} printed no JSON report: {error}") from None


def student_rows(kit: Kit, preset: str, arguments: list, threads: int, backend: str,
                 sizes: list, no_build: bool = False) -> tuple:
    """(rows, the program or None): the student's exercise 23 timed with the same arguments
    (attn_bench_student), or where it did not build a row per size saying why."""
    program, why = build_program(kit, STUDENT_PROGRAM, preset, no_build)
    if program is None:
        return [make_row("student", backend, b, t, threads, None, why.split(" (see")[0])
                for b, t in sizes], None
    return rows_of_benchmark(run_benchmark(kit, program, arguments, threads), threads), program


def run_pytorch(kit: Kit, python: str, arguments: list, threads: int) -> str:
    with Heartbeat("timing PyTorch"):
        result = subprocess.run([python, str(kit.root / PYTORCH_SCRIPT), "--threads",
                                 str(threads), *arguments], cwd=kit.root, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        say(f"PyTorch's timings failed: {result.stderr.strip()[-500:]}")
        return ""
    return result.stdout


def pytorch_arguments(quick: bool, batches=None, tokens=None) -> list:
    """benchmarks/pytorch_timings.py's flags for the same sizes as benchmark_arguments."""
    if quick and batches is None and tokens is None:
        return ["--quick"]
    return ["--sizes", ",".join(f"{b}x{t}" for b in batches or BATCHES
                                for t in tokens or TOKENS)]


def save_run(kit: Kit, context: dict, rows: list) -> Path:
    """Writes one run's raw output to benchmarks/results/bench-<date>-<backend>.jsonl: a first
    line saying where and when it ran (device and driver, commit, threads), then the JSON
    lines. A device run's file is committed, so that a table in the README can be traced."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=kit.root, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           cwd=kit.root, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL).stdout.strip()
    copy_of = kit.root / "KIT_COMMIT"  # a copy without .git says which commit it is
    if not commit and copy_of.is_file():
        commit, _, dirty = copy_of.read_text().strip().partition("\n")
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    about = {"run": "tools/kit dev bench", "date": when, "commit": commit or "unknown",
             "uncommitted_changes": bool(dirty), "backend": context.get("attn_backend", ""),
             "device": context.get("attn_device", ""), "host": context.get("host_name", ""),
             "cpus": context.get("num_cpus"), "threads": rows[0]["threads"] if rows else None}
    folder = kit.root / "benchmarks" / "results"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bench-{when[:16].replace(':', '')}-{about['backend'] or 'unknown'}.jsonl"
    path.write_text(json.dumps(about) + "\n" + json_lines(rows) + "\n", encoding="utf-8")
    return path


def run(kit: Kit, as_json: bool, quick: bool, cuda: bool = False, save: bool = False,
        threads: tuple = (), batches: tuple = (), tokens: tuple = (),
        no_build: bool = False) -> int:
    """Times every implementation at each thread count in `threads` (default: every core),
    at B in `batches` and T in `tokens` (default: B = 1, T = 128 when quick, else every
    size), PyTorch and the sgemm roofline in the same run, each ratio and fraction against
    the same thread count's."""
    preset = CUDA_PRESET if cuda else PRESET
    program, why = build_program(kit, SOLUTIONS_PROGRAM, preset, no_build)
    if program is None:
        raise KitError(why)
    batches = batches or ((1,) if quick else BATCHES)
    tokens = tokens or ((128,) if quick else TOKENS)
    arguments = benchmark_arguments(quick, batches, tokens)
    python = torch_python()
    rows, context, sgemm, device_sgemm = [], {}, {}, None
    for count in threads or (os.cpu_count() or 1,):
        report = run_benchmark(kit, program, arguments, count)
        context = report.get("context", {})
        timed = rows_of_benchmark(report, count) + student_rows(
            kit, preset, arguments, count, context.get("attn_backend", "?"),
            [(b, t) for b in batches for t in tokens], no_build)[0]
        if python:
            timed += rows_of_pytorch(run_pytorch(kit, python,
                                                 pytorch_arguments(quick, batches, tokens), count))
        sgemm[count] = sgemm_gflops(report)
        device_sgemm = sgemm_gflops(report, DEVICE_SGEMM)
        rows += with_roofline(with_ratios(timed), sgemm[count], device_sgemm)
    rows.sort(key=sort_key)
    if save:
        saved = save_run(kit, context, rows)
        print(f"kit bench: this run's raw output is in {saved}", file=sys.stderr)
    if as_json:
        print(json_lines(rows), flush=True)
        return 0
    say(f"MultiHeadAttention forward at GPT-2 width (d = {WIDTH}, {HEADS} heads, causal "
        f"FLOPs); GPU track: {context.get('attn_device', '')}")
    say(table(rows))
    rates = ", ".join(f"{rate:.0f} GFLOP/s on {count} thread{'s' if count > 1 else ''}"
                      for count, rate in sgemm.items() if rate)
    if rates:
        say(f"of sgemm: GFLOP/s as a fraction of this machine's OpenBLAS sgemm in the same run "
            f"with as many threads ({rates}: the roofline); min–max: the fastest and slowest "
            "of 5 repetitions")
    if device_sgemm:
        say(f"GPU rows: of the GPU's cuBLAS sgemm (fp32) in the same run, {device_sgemm:.0f} "
            "GFLOP/s")
    if not python:
        say("No PyTorch timings: /usr/bin/python3 cannot import torch "
            "(`tools/kit setup --recorder` installs it).")
    return 0

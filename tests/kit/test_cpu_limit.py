#!/usr/bin/env python3
"""tests/kit/test_cpu_limit.py — a test program's time limit is CPU time (ctest: kit.cpu_limit).

    test_cpu_limit.py --build DIR

Exercise 22's solutions program, the slowest (its GPT-2 forward needs seconds of CPU), run
with `--attn-cpu-limit=1` as an endless loop would meet its limit: it must end by SIGXCPU,
its verdict stream must name the signal and the test it was in, and the status line must say
it used up its CPU time. A malformed limit is refused in one line, exit status 2. And the
limit counts only the code's own work: its GPT-2 forward at T = 1024, BLAS-heavy, uses no
more CPU time than wall time (one BLAS thread; OpenBLAS's own threads spin between products,
a third more CPU time on 2 cores). A busy machine only lengthens the wall time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))
from kitcli import progress, reports  # noqa: E402
from kitcli.catalogue import Kit  # noqa: E402


def spinning_threads(program: Path) -> list:
    """[a problem] when the forward at T = 1024 used more CPU time than wall time."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    start = time.monotonic()
    run = subprocess.Popen([str(program), "--attn-quiet", "--gtest_filter=*forward_t1024*"],
                           cwd=KIT, env=environment, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(run.pid, 0)
    wall = time.monotonic() - start
    run.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    if run.returncode != 0:
        return [f"the forward at T = 1024 failed (exit status {run.returncode})"]
    if cpu > 1.1 * wall + 0.1:
        return [f"the forward at T = 1024 used {cpu:.2f} s of CPU time in {wall:.2f} s: "
                "threads spin beside the code (BLAS on one thread: one_blas_thread)"]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, required=True)
    program = parser.parse_args().build.resolve() / "bin" / "test_ex22_solutions"
    kit = Kit.load(KIT)
    problems = []
    with tempfile.TemporaryDirectory(prefix="kit-cpu-limit-") as folder:
        verdicts = Path(folder) / "v.jsonl"
        # a wall limit far above the CPU limit: only the CPU limit may end it
        run = subprocess.run([str(program), "--attn-quiet", f"--attn-verdicts={verdicts}",
                              "--attn-cpu-limit=1"], cwd=KIT, capture_output=True, timeout=300)
        stream = reports.read_verdicts(verdicts)
        if run.returncode != -24:  # SIGXCPU
            problems.append(f"exit status {run.returncode}, not SIGXCPU's")
        if stream is None or stream.signal != "SIGXCPU" or not stream.running:
            problems.append("its verdict stream names no SIGXCPU in a test")
        else:
            reason = progress.crashed(stream.signal, stream.running, kit)
            if not reason.startswith(f"used up its {kit.test_timeout_s:g} s of CPU time in "):
                problems.append(f"status line: {reason}")
        problems += spinning_threads(program)
        bad = subprocess.run([str(program), "--attn-cpu-limit=soon"], capture_output=True,
                             text=True, timeout=60)
        if bad.returncode != 2 or "--attn-cpu-limit: expected a number" not in bad.stderr:
            problems.append(f"a malformed limit: exit {bad.returncode}, {bad.stderr.strip()!r}")
    for problem in problems:
        print(f"✗ {problem}")
    print("kit.cpu_limit: " + ("FAILED" if problems else "an endless loop ends at its CPU limit, "
                               "named"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/bin/bash
# benchmarks/gpu_machine/run.sh — the CUDA track on a lent GPU machine, in one call, from the
# kit's root, after benchmarks/gpu_machine/pack.sh here (docs/gpu.md, "On a lent GPU machine"):
#   1. the kit's Debian packages unpacked beside the image's files (none overwritten);
#   2. ctest's gpu label on the packed CUDA build: exercises 23 and 24 on both tracks, their
#      slips and goldens, the fast kernel's goldens, the benchmarks' smoke test; then
#      compute-sanitizer's racecheck and synccheck on each of exercise 24's slips, beside what
#      the kit's emulator names for it (docs/gpu.md's table);
#   3. tools/kit dev bench --cuda (saved to benchmarks/results/), tools/kit compare --cuda (its
#      table, compare.csv and compare.svg), and which kernels PyTorch ran;
#   4. with --profile: Nsight Compute's summary of the fast kernel at B = 8, T = 1024;
#   5. with --grade: a class of three graded on exercise 23 by a CUDA kit, sandbox included
#      (the grader builds the kit there: minutes); --grade-only: steps 1 and 5 alone.
# Everything printed goes to OUT/run.log too, beside ctest's log, the saved bench run, compare's
# CSV and plot, the gradebook and Nsight Compute's report: OUT is $OUT (the device tool's
# folder, which takes back 8 files), else ./gpu-run/.
set -uo pipefail
profile=false grade=false measure=true
for argument in "$@"; do
  case $argument in
    --profile) profile=true ;;
    --grade) grade=true ;;
    --grade-only) grade=true measure=false ;;
    *) echo "usage: $0 [--profile] [--grade | --grade-only]" >&2; exit 2 ;;
  esac
done
kit=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$kit/gpu-run}
mkdir -p "$out"
exec > >(tee "$out/run.log") 2>&1
step() { echo; echo "== $* ($(date -u +%H:%M:%S))"; }

step "the machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm \
           --format=csv
nvcc --version | tail -1
python3 -c 'import torch; p = torch.cuda.get_device_properties(0)
print("torch", torch.__version__, "|", p.name, p.multi_processor_count, "SMs")'

step "1. Debian packages"
root=$(mktemp -d)
for deb in "$kit"/.device/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
tar -C "$root" -cf - . | tar -C / -xf - --skip-old-files --keep-directory-symlink
# The links Debian's alternatives would make for OpenBLAS.
for lib in libblas.so.3 libblas.so liblapack.so.3 liblapack.so libopenblas.so.0 libopenblas.so; do
  [ -e /usr/lib/x86_64-linux-gnu/$lib ] ||
    ln -s openblas-pthread/$lib /usr/lib/x86_64-linux-gnu/$lib
done
ldconfig
[ -x /usr/bin/python3 ] || ln -s "$(command -v python3)" /usr/bin/python3

step "2. the packed CUDA build, at the path it was built at"
rm -rf "$kit/build-cuda" && mkdir -p "$kit/build-cuda"
tar -C "$kit/build-cuda" -xJf "$kit/.device/build-cuda.tar.xz"
built_at=$(cat "$kit/build-cuda/BUILT_AT")
if [ "$built_at" != "$kit" ]; then
  mkdir -p "$(dirname "$built_at")" && ln -sfn "$kit" "$built_at"
fi
# The programs are of the packed commit. A .git that says otherwise (a copy of an older state,
# or commits made since packing) is set aside for this run, so that the saved bench run and the
# grader name the packed commit (KIT_COMMIT, as a copy without .git does).
packed=$(head -1 "$kit/.device/KIT_COMMIT")
if [ "$(git -C "$kit" rev-parse HEAD 2>/dev/null)" != "$packed" ]; then
  if [ -e "$kit/.git" ]; then
    echo "the .git here is not at the packed commit $packed: set aside during this run"
    mv "$kit/.git" "$kit/.git-set-aside"
  fi
  cp "$kit/.device/KIT_COMMIT" "$kit/KIT_COMMIT"
  trap 'rm -f "$kit/KIT_COMMIT"; [ ! -e "$kit/.git-set-aside" ] || mv "$kit/.git-set-aside" "$kit/.git"' EXIT
fi
# cuBLAS and the CUDA runtime: the toolkit's, else the pip wheels beside PyTorch.
for lib in libcublas.so.13 libcudart.so.13; do
  ldconfig -p | grep -q "$lib" && continue
  found=$(find /usr/local /opt -name "$lib" 2>/dev/null | head -1)
  if [ -n "$found" ]; then
    LD_LIBRARY_PATH="$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
  fi
done
missing=$(ldd "$kit"/build-cuda/bin/* | grep "not found" | sort -u)
[ -z "$missing" ] || echo "libraries not found: $missing"

cd "$built_at" || exit 1
if $measure; then
step "3. ctest -L gpu"
ctest --test-dir build-cuda -L gpu -j4 --output-on-failure --timeout 300 2>&1 |
  tee "$out/ctest-gpu.log" | tail -40

step "3b. compute-sanitizer on exercise 24's slips (the emulator's verdicts: docs/gpu.md)"
if command -v compute-sanitizer >/dev/null; then
  for slip in $(sed -n 's|^// slip: \([a-z_]*\) .*|\1|p' tests/kit/slips/24_tiled_attention.cu); do
    for tool in racecheck synccheck; do
      summary=$(ATTN_SLIP=$slip timeout 60 compute-sanitizer --tool $tool \
          build-cuda/bin/test_ex24_slips --gtest_filter='*partial_tile*:*whole_tiles*' 2>&1 |
        grep -E "SUMMARY|hazard|Barrier error" | sort | uniq -c | head -3 | tr -s ' ' | tr '\n' ';')
      echo "$slip $tool: ${summary:-nothing reported}"
    done
  done | tee "$out/sanitizer-24.txt"
else
  echo "compute-sanitizer is not on PATH: the table waits for a machine with it"
fi

step "4. tools/kit dev bench --cuda"
python3 tools/kit dev bench --cuda --no-build --save
cp benchmarks/results/bench-*-CUDA.jsonl "$out/" 2>/dev/null
python3 tools/kit compare --cuda --no-build --out "$out" 2>&1 | tail -25
python3 - <<'PYTHON'
# The CUDA kernels each PyTorch path launches at B = 8, T = 1024: which math SDPA runs.
import sys
sys.argv = ["pytorch_timings.py"]
sys.path.insert(0, "benchmarks")
import torch, pytorch_timings as timings
module = timings.gpt2_module(timings.INIT_SEED, False, "cuda")
x = timings.x_of(timings.X_SEED, 8, 1024, "cuda")
for impl in ("class", "sdpa"):
    timings.forward(impl, module, x)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        timings.forward(impl, module, x)
        torch.cuda.synchronize()
    names = sorted({event.name for event in prof.events() if str(event.device_type).endswith("CUDA")})
    print(impl, "allow_tf32:", torch.backends.cuda.matmul.allow_tf32)
    print("  " + "\n  ".join(name[:150] for name in names))
PYTHON

if $profile && command -v ncu >/dev/null; then
  step "5. Nsight Compute: the fast kernel at B = 8, T = 1024"
  timeout 120 ncu --section SpeedOfLight --section Occupancy --section LaunchStats \
      --launch-count 3 --kernel-name regex:causal_attention \
      build-cuda/bin/attn_bench --benchmark_filter='^fast/B:8/T:1024/' \
      --benchmark_min_time=0.01 --benchmark_repetitions=1 > "$out/ncu.txt" 2>&1
  grep -E "^  [a-z_]|Duration|Throughput|Registers|Occupancy|Shared Memory|Block Size|Grid" \
    "$out/ncu.txt" | head -60
fi
fi  # $measure

if $grade; then
  step "6. a class of three graded on exercise 23 with ATTN_GPU=CUDA"
  timeout 240 benchmarks/gpu_machine/grade_class.sh "$out" 2>&1 | tail -40
fi
step "done"

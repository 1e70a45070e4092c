#!/bin/bash
# benchmarks/gpu_machine/pack.sh — packs what a lent GPU machine needs to test and time the CUDA
# track in one call: that machine has nvcc, CMake, ninja and PyTorch, but none of the kit's
# Debian packages and no way to fetch them.
#
#   benchmarks/gpu_machine/pack.sh          # here, on Debian 12 with nvcc: writes .device/
#   benchmarks/gpu_machine/run.sh [--grade] # there, from the kit's root (docs/gpu.md)
#
# .device/ (git ignores it) then holds
#   debs/              the kit's Debian packages, unpacked there beside the image's own files
#                      (bubblewrap for the grader's sandbox too; lld is left out: 22 MB of LLVM,
#                      and the grader links with gold without it);
#   build-cuda.tar.xz  the CUDA build (preset cuda) of the tests and benchmarks, built here:
#                      the programs, ctest's files, and the path they were built at;
#   KIT_COMMIT         the commit they were built from, for the saved bench run.
# Together with the tracked files they must stay under the device tool's 64 MiB.
set -euo pipefail
kit=$(cd "$(dirname "$0")/../.." && pwd)
cd "$kit"
pack=.device
mkdir -p "$pack/debs"

# What the CUDA build links and its tests run: the tests of ctest's gpu label, the benchmarks,
# and the judge the grader needs.
targets=(test_ex23_exercises test_ex23_solutions test_ex23_slips test_ex24_exercises
         test_ex24_solutions test_ex24_slips test_known_mistakes test_fast_attention_goldens
         attn_bench attn_bench_student)
cmake --preset cuda -DATTN_PYTHON=/usr/bin/python3 >/dev/null  # a path the GPU machine has too
cmake --build --preset cuda --target "${targets[@]}"

packages=(libxtensor-dev xtl-dev libxtensor-blas-dev nlohmann-json3-dev libgtest-dev libgmock-dev
          libbenchmark-dev libbenchmark1debian libssl-dev libssl3 libopenblas-dev
          libopenblas-pthread-dev libopenblas0-pthread libopenblas0 libgfortran5 libgomp1 bubblewrap)
rm -f "$pack"/debs/*.deb
(cd "$pack/debs" && apt-get download -q "${packages[@]}")

# Only what ctest and the programs read: binaries (stripped), CTestTestfile.cmake files.
(cd build-cuda && find . -name CTestTestfile.cmake) > "$pack/files"
for target in "${targets[@]}"; do echo "./bin/$target"; done >> "$pack/files"
staging=$(mktemp -d)
tar -C build-cuda -cf - -T "$pack/files" | tar -C "$staging" -xf -
strip --strip-debug "$staging"/bin/*
mkdir "$staging/reports"  # where the exercise tests write their verdicts (configure makes it)
echo "$kit" > "$staging/BUILT_AT"
tar -C "$staging" -cJf "$pack/build-cuda.tar.xz" .
rm -rf "$staging" "$pack/files"
git rev-parse HEAD > "$pack/KIT_COMMIT"
[ -z "$(git status --porcelain --untracked-files=no)" ] || echo "+uncommitted" >> "$pack/KIT_COMMIT"

tracked=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
packed=$(du -cb "$pack" | tail -1 | cut -f1)
echo "pack.sh: $pack holds $((packed / 1048576)) MiB, the tracked files $((tracked / 1048576)) MiB" \
     "(the device tool carries 64 MiB in all)"

#!/bin/bash
# benchmarks/gpu_machine/grade_class.sh OUT — grades a class of three on exercise 23 with a
# CUDA kit (ATTN_GPU=CUDA), sandbox included: alice hands in the solution, bob the untouched
# stub, carol the solution with its softmax scale dropped. Called by run.sh --grade on a GPU
# machine; the gradebook and the grader's log go to OUT.
set -uo pipefail
out=$1
kit=$(cd "$(dirname "$0")/../.." && pwd)
class=$(mktemp -d) graded=$(mktemp -d)
mkdir -p "$class"/{alice,bob,carol}
cp "$kit/solutions/23_fused_attention.cu" "$class/alice/"
git -C "$kit" show HEAD:exercises/23_fused_attention.cu > "$class/bob/23_fused_attention.cu" 2>/dev/null ||
  cp "$kit/exercises/23_fused_attention.cu" "$class/bob/"
sed 's/score \*= scale;/(void)scale;/' "$kit/solutions/23_fused_attention.cu" \
  > "$class/carol/23_fused_attention.cu"
chmod -R a+rX "$class"
# dpkg does not know the packages run.sh unpacked; the grader asks it (kitlib/packages.py).
fake=$(mktemp -d)
# shellcheck disable=SC2016  # $p is the fake's own variable
printf '#!/bin/sh\nshift 2; for p; do echo "$p install ok installed"; done\n' > "$fake/dpkg-query"
chmod +x "$fake/dpkg-query"
export PATH="$fake:$PATH"
# Debian's CMake files declare old minimum versions, which CMake 4 refuses without this.
export CMAKE_POLICY_VERSION_MINIMUM=3.5
chmod 755 "$graded"
ATTN_GPU=CUDA python3 "$kit/tools/grade" "$class" --out "$graded" --exercises 23 \
  --build-jobs "$(nproc)" --jobs 3
status=$?
cp "$graded/gradebook.csv" "$out/" 2>/dev/null
[ "$status" = 0 ] || tail -c 200000 "$graded/build.log" > "$out/grade-build.log" 2>/dev/null
cat "$graded/gradebook.csv" 2>/dev/null
for student in alice bob carol; do
  echo "-- $student"; head -c 1500 "$graded/students/$student/feedback.txt" 2>/dev/null
done
exit $status

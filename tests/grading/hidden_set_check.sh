#!/usr/bin/env bash
# tests/grading/hidden_set_check.sh — the grading path on a hidden case set (other shapes and
# values, from a new key), as an instructor grades with one. Run by `tools/kit test --full`
# (stage "hidden"), as root, after the kit is built and graded:
#
#   tests/grading/hidden_set_check.sh BUILD KIT_BUILD
#
# BUILD: tools/kit test's build folder (its bin/ and the stubs it compiled); KIT_BUILD: the
# pristine kit tools/grade built for HEAD (tools/grade --kit-build), so nothing builds it again.
# 1. runner and judge on the hidden set: solutions pass every case, stubs fail every case,
#    every recorded mistake is named (tests/kit/test_runner_and_judge.py --mistakes);
# 2. part of the synthetic class graded with it and an all-or-nothing rubric of other weights:
#    every cell as deserved (notebook_fitted loses its 01 here; reading the public goldens
#    gains nothing): the students whose grade a hidden set can change, and one of each status;
# 3. that class's report.html as headless chromium renders it (tests/grading/check_report.py);
# 4. three of them in Gradescope's autograder layout (tests/grading/check_gradescope.py);
# 5. the same students on a one-node Slurm cluster started here (tests/grading/slurm_check.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1 kit_build=$2
if [ "$(id -u)" != 0 ]; then
  echo "hidden_set_check: NOT RUN: it grades in the sandbox and starts Slurm daemons (root)"
  exit 0
fi
stage() { echo "hidden: $1 ($(( $(date +%s) - start )) s so far)"; }
start=$(date +%s)

hidden=$(mktemp -d)
class=$(mktemp -d)
trap 'rm -rf "$hidden" "$class"' EXIT
/usr/bin/python3 tools/record --out "$hidden/cases" | tail -n 1
stage "recorded"
python3 tests/kit/test_runner_and_judge.py --bin "$build/bin" --stubs "$build/stubs" \
  --cases "$hidden/cases" --mistakes
stage "runner and judge"

some=(--only solved --only stubs --only half --only notebook_fitted --only reads_public_goldens
      --only reads_hidden --only no_compile_03 --only segfault_04)
chmod o+x "$class"  # the sandbox user compiles against the kit build under --out
python3 tests/grading/make_class.py "$class/students" "${some[@]}" >/dev/null
# The rubric's exercises, and 04 where segfault_04 crashes: the other 20 would earn no
# points, and grading them twice more (here and on Slurm) cost CI four minutes.
echo '{"points": {"01": 5, "03": 20}, "partial": false}' >"$class/rubric.json"
graded=(--exercises 01,03,04)
tools/grade "$class/students" --out "$class/graded" --jobs 2 --hidden "$hidden/cases" \
  --rubric "$class/rubric.json" --kit-build "$kit_build" "${graded[@]}" | tail -n 1
python3 tests/grading/expected.py --cases reference_data --cases "$hidden/cases" \
  --rubric "$class/rubric.json" "${some[@]}" "${graded[@]}" --check "$class/graded/gradebook.csv"
stage "graded"

command -v chromium >/dev/null ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
python3 tests/grading/check_report.py "$class/graded/report.html" \
  --screenshot "$build/grading-report.png"  # kept for a look
stage "report"

python3 tests/grading/check_gradescope.py "$class/students" --hidden "$hidden/cases" \
  --rubric "$class/rubric.json" | tail -n 1
stage "Gradescope"

tests/grading/slurm_check.sh --hidden "$hidden/cases" --rubric "$class/rubric.json" \
  "${some[@]}" "${graded[@]}" "$class/graded/gradebook.csv"
stage "Slurm"

#!/usr/bin/env bash
# tests/grading/hidden_set_check.sh — the grading path on a hidden case set (other shapes and
# values, from a new key), as an instructor grades with one. Run by `tools/kit test --full`
# (stage "hidden"), as root, after the kit is built and graded:
#
#   tests/grading/hidden_set_check.sh BUILD KIT_BUILD
#
# BUILD: tools/kit test's build folder (its bin/ and the stubs it compiled); KIT_BUILD: the
# pristine kit tools/grade built for HEAD (tools/grade --kit-build), so nothing builds it again.
# 1. runner and judge on the hidden set: every recorded mistake is named, in-process and by the
#    judge reading it from a result folder (test_known_mistakes, ATTN_REFERENCE_DATA); and the
#    programs: solutions pass every case, stubs fail every case, two rounds of mistakes judged
#    by attn_judge --hide-expected name theirs and show nothing of the expected tensor
#    (tests/kit/test_runner_and_judge.py --mistakes --rounds 2: a round is a judge run per
#    exercise; all 475 rounds took 62 s alone, 171 s in a CI run);
# 2. part of the synthetic class graded with it and an all-or-nothing rubric of other weights:
#    every cell as deserved (notebook_fitted loses its 01 here; reading the public goldens
#    gains nothing): the students whose grade a hidden set can change, and one of each status;
# 3. that class's report.html as headless chromium renders it (tests/grading/check_report.py);
# 4. three of them in Gradescope's autograder layout (tests/grading/check_gradescope.py), each
#    submitting a slice of its files;
# 5. the same students on a one-node Slurm cluster started here (tests/grading/slurm_check.sh),
#    its tasks on KIT_BUILD (tools/grade slurm --kit-build), beside 4: each leaves a core idle
#    much of its time (setup.sh's apt and configure steps and the autograder's one-job runs;
#    the daemons' start and the array's waits). Their graders take their own sandbox uids.
# The whole class is graded on every exercise once, by tools/kit test's grading stage: here
# each run takes a slice (the students and exercises below) that still reaches every code path
# of its own. Gradescope's setup.sh builds the pristine kit again, in its own folder: under
# tools/kit test with ccache, from the grading stage's compiles.
# Each step's time, then all of them in one line at the end ("hidden: steps ...").
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1 kit_build=$2
if [ "$(id -u)" != 0 ]; then
  echo "hidden_set_check: NOT RUN: it grades in the sandbox and starts Slurm daemons (root)"
  exit 0
fi
steps=() last=$(date +%s)
stage() {
  local now
  now=$(date +%s)
  steps+=("$1 $((now - last)) s")
  echo "hidden: $1 in $((now - last)) s"
  last=$now
}

hidden=$(mktemp -d)
class=$(mktemp -d)
gradescope_pid=
finish() {
  # The Gradescope check, still running after a failure: its whole session (setup.sh's build).
  [ -z "$gradescope_pid" ] || { kill -- "-$gradescope_pid" 2>/dev/null || true
                                wait "$gradescope_pid" 2>/dev/null || true; }
  rm -rf "$hidden" "$class"
}
trap finish EXIT
/usr/bin/python3 tools/record --out "$hidden/cases" | tail -n 1
stage "recorded"
if ! ATTN_REFERENCE_DATA="$hidden/cases" "$build/bin/test_known_mistakes" --gtest_brief=1 \
    >"$hidden/known_mistakes.log" 2>&1; then
  tail -c 20000 "$hidden/known_mistakes.log"
  echo "hidden: test_known_mistakes FAILED on the hidden set" >&2
  exit 1
fi
echo "test_known_mistakes on the hidden set: $(grep -o '[0-9]* tests from' \
  "$hidden/known_mistakes.log" | tail -n 1 | cut -d' ' -f1) tests passed"
python3 tests/kit/test_runner_and_judge.py --bin "$build/bin" --stubs "$build/stubs" \
  --cases "$hidden/cases" --mistakes --rounds 2
stage "runner and judge"

# The slice graded here and again on Slurm: a student of each status the gradebook and the
# merge of shards carry (graded: solved, stubs, half; build-failed: no_compile_03; crashed:
# segfault_04) and the three whose grade a hidden set decides (notebook_fitted loses its 01,
# reads_public_goldens and reads_hidden gain nothing), and swaps_results_03, whose link from
# its public results to the hidden set must earn nothing and show no hidden value; 9 students
# make 3 shards of 3.
# Exercises: the rubric's two (01 all-or-nothing, 03 compiled in one unit with 01) and 04,
# where segfault_04 crashes. The other 20 exercises, graded here and on Slurm as well, cost
# CI four minutes and reach no code path of either that 01, 03 and 04 do not.
some=(--only solved --only stubs --only half --only notebook_fitted --only reads_public_goldens
      --only reads_hidden --only no_compile_03 --only segfault_04 --only swaps_results_03)
chmod o+x "$class"  # the sandbox user compiles against the kit build under --out
python3 tests/grading/make_class.py "$class/students" "${some[@]}" >/dev/null
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

# The autograder grades each submission on every exercise it holds: each of its three students
# (solved; reads_hidden and notebook_fitted, the two a hidden set changes, both on 01) submits
# 01 and 03, the rubric's (compiled as one unit), and 23, the GPU track (compiled alone, on
# Thrust's OpenMP backend); the 20 files it leaves out are graded as missing, at 0. All 23
# exercises are still built by setup.sh and listed in each results.json. In the background,
# beside Slurm below; its output when both are done.
setsid python3 tests/grading/check_gradescope.py "$class/students" --hidden "$hidden/cases" \
  --rubric "$class/rubric.json" --exercises 01,03,23 >"$hidden/gradescope.log" 2>&1 &
gradescope_pid=$!

tests/grading/slurm_check.sh --hidden "$hidden/cases" --rubric "$class/rubric.json" \
  "${some[@]}" "${graded[@]}" --kit-build "$kit_build" "$class/graded/gradebook.csv"
stage "Slurm (beside Gradescope)"
gradescope_rc=0
wait "$gradescope_pid" || gradescope_rc=$?
gradescope_pid=
if [ "$gradescope_rc" != 0 ]; then
  cat "$hidden/gradescope.log"
  exit "$gradescope_rc"
fi
tail -n 2 "$hidden/gradescope.log"  # its steps' times, and its verdict
stage "Gradescope (the wait for it)"
printf -v joined '%s, ' "${steps[@]}"
echo "hidden: steps ${joined%, }"

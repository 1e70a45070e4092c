#!/usr/bin/env bash
# tests/grading/slurm_check.sh — tools/grade slurm on a one-node Slurm cluster started here:
# the synthetic class graded as a 3-task job array and merged must give the single-machine
# gradebook, cell by cell, and the one expected.py deserves.
#
#   tests/grading/slurm_check.sh [--hidden CASES] [--rubric FILE] [--only NAME ...]
#                                [--exercises 01,03] [--kit-build DIR] [SINGLE_GRADEBOOK]
#
# CI only (.ci/run), as root: it installs slurm-wlm and munge if missing, and starts munged,
# slurmctld and slurmd by hand (CI has no systemd), every file of theirs in a temporary
# folder; on exit it cancels what is left, stops the three daemons and removes the folder.
# SINGLE_GRADEBOOK: the gradebook.csv of a single-machine run on make_class.py's class (.ci/run
# has just graded it, with the same --hidden, --rubric and students); without it this grades
# the class on one machine first. --only NAME: only those students of make_class.py's class;
# --exercises: only those exercises (tools/grade --exercises). --kit-build DIR: the pristine
# kit finished in DIR (tools/grade prepare-kit), which tools/grade slurm's tasks then use
# instead of the one it builds (a minute and a half on 2 cores, with ccache).
set -euo pipefail
cd "$(dirname "$0")/../.."
options=() expect=() students=()  # tools/grade's options, expected.py's, make_class.py's
kit_build=()  # tools/grade slurm's alone: the single-machine run builds its own
while [ $# -gt 0 ]; do
  case $1 in
    --hidden) options+=(--hidden "$2"); expect+=(--cases reference_data --cases "$2"); shift 2 ;;
    --rubric) options+=(--rubric "$2"); expect+=(--rubric "$2"); shift 2 ;;
    --only) students+=(--only "$2"); expect+=(--only "$2"); shift 2 ;;
    --exercises) options+=(--exercises "$2"); expect+=(--exercises "$2"); shift 2 ;;
    --kit-build) kit_build=(--kit-build "$2"); shift 2 ;;
    *) break ;;
  esac
done
timeout_s=900
if [ "$(id -u)" != 0 ]; then
  echo "slurm_check: run as root (the grader's sandbox and the Slurm daemons need it)" >&2
  exit 1
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  # beside Gradescope's setup.sh, whose apt-get may hold dpkg's lock: wait for it
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends slurm-wlm munge >/dev/null
fi

work=$(mktemp -d)
# Searchable by all: the sandbox users compile under it, munged wants its socket's path so.
chmod 755 "$work"
mkdir -m 700 "$work/etc"
mkdir -m 755 "$work/run"
mkdir "$work/log" "$work/state" "$work/spool"
daemons=()
stop() {
  status=$?
  if [ ${#daemons[@]} -gt 0 ]; then
    # The jobs first (a job step outlives slurmd), then the daemons, slurmd first.
    scancel --quiet --user=root 2>/dev/null || true
    for _ in $(seq 30); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 1; done
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
      kill "${daemons[i]}" 2>/dev/null || true
      wait "${daemons[i]}" 2>/dev/null || true
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap stop EXIT
trap 'exit 1' INT TERM

# Without sbatch on PATH, tools/grade slurm stops at once in one line (before its minute of kit
# build), and writes nothing.
mkdir "$work/no-sbatch"
ln -s "$(PATH=/usr/bin:/bin command -v python3)" "$work/no-sbatch/python3"
mkdir -p "$work/one/alice"
start=$(date +%s)
if PATH="$work/no-sbatch" tools/grade slurm "$work/one" --out "$work/no-sbatch-out" --array 2 \
    >"$work/no-sbatch.out" 2>"$work/no-sbatch.err"; then
  echo "slurm_check: tools/grade slurm without sbatch did not fail" >&2
  exit 1
fi
if [ "$(wc -l <"$work/no-sbatch.err")" != 1 ] || ! grep -q '^grade: sbatch not found: ' \
    "$work/no-sbatch.err" || [ -e "$work/no-sbatch-out" ] || [ $(($(date +%s) - start)) -gt 10 ]; then
  echo "slurm_check: tools/grade slurm without sbatch should stop at once in one line:" >&2
  cat "$work/no-sbatch.out" "$work/no-sbatch.err" >&2
  exit 1
fi
echo "slurm_check: without sbatch, at once: $(cat "$work/no-sbatch.err")"
rm -r "$work/no-sbatch" "$work/one" "$work/no-sbatch.out" "$work/no-sbatch.err"

# munged: its own key and socket (AuthInfo tells every Slurm command where).
mungekey --create --keyfile="$work/etc/munge.key"
munged --foreground --key-file="$work/etc/munge.key" --socket="$work/run/munge.socket" \
  --pid-file="$work/run/munged.pid" --seed-file="$work/etc/munged.seed" \
  --log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
daemons+=($!)

# One node, this machine, as `slurmd -C` sees it; root runs everything; no cgroups, no
# accounting (none of which CI's container offers).
host=$(hostname -s)
export SLURM_CONF="$work/etc/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=gradecheck
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/run/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
$(slurmd -C | head -n 1) State=UNKNOWN
PartitionName=grade Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
for _ in $(seq 50); do [ -S "$work/run/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -i >"$work/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D >"$work/log/slurmd.out" 2>&1 &
daemons+=($!)
for _ in $(seq 60); do
  [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && break
  sleep 1
done
if [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" != idle ]; then
  echo "slurm_check: the node never became idle:" >&2
  sinfo -N -l >&2 || true
  tail -n 20 "$work"/log/* >&2
  exit 1
fi

python3 tests/grading/make_class.py "$work/students" "${students[@]}" >/dev/null
single=${1:-}
if [ -z "$single" ]; then
  start=$(date +%s)
  CCACHE_BASEDIR="$work/single" \
    tools/grade "$work/students" --out "$work/single" --jobs 2 "${options[@]}" | tail -n 1
  echo "slurm_check: the single-machine run (--jobs 2) took $(($(date +%s) - start)) s," \
    "kit build included"
  single="$work/single/gradebook.csv"
fi

start=$(date +%s)
# CCACHE_BASEDIR: where the kit is built, so that under tools/kit test (selftest.py's
# shared_compiles, with ccache) this build reuses the grading stage's compiles.
CCACHE_BASEDIR="$work/array" \
  tools/grade slurm "$work/students" --out "$work/array" --array 3 --jobs 1 "${options[@]}" \
    "${kit_build[@]}" \
  >"$work/log/submit.log"
submitted=$(date +%s)
# This cluster runs nothing else: the array and its merge are done when the queue is empty.
while [ -n "$(squeue -h)" ]; do
  if [ $(($(date +%s) - start)) -gt "$timeout_s" ]; then
    echo "slurm_check: not done after $timeout_s s:" >&2
    squeue >&2
    break
  fi
  sleep 2
done
seconds=$(($(date +%s) - start))
merged="$work/array/gradebook.csv"
if [ ! -f "$merged" ]; then
  echo "slurm_check: no merged gradebook; the submission and the jobs' logs:" >&2
  tail -n 40 "$work/log/submit.log" "$work"/array/slurm/*.log >&2 || true
  exit 1
fi
python3 tests/grading/expected.py "${expect[@]}" --check "$merged"
# The header row first (no '#' provenance line: that is OUT/grading.json's).
if ! head -n 1 "$merged" | tr -d '\r' | grep -q '^id,total,max,.*,status$'; then
  echo "slurm_check: the merged gradebook does not start with its header row:" >&2
  head -n 2 "$merged" >&2
  exit 1
fi
if ! diff "$single" "$merged" >&2; then
  echo "slurm_check: the merged gradebook (>) differs from the single-machine one (<)" >&2
  exit 1
fi
students=$(($(wc -l <"$merged") - 1))
submit="kit build and submit"
[ ${#kit_build[@]} -eq 0 ] || submit="submit (the kit built before)"
echo "slurm_check: $students students graded by a 3-task Slurm array and merged in $seconds s" \
  "($((submitted - start)) s $submit, $((seconds - submitted + start)) s array and" \
  "merge): the single-machine gradebook, cell by cell"

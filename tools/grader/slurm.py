"""tools/grade slurm: a class graded as a Slurm job array of shards, then merged.

    tools/grade slurm SUBMISSIONS --out OUT --array N [--jobs J] [--hidden CASES]
                      [--rubric FILE] [--partition P] [--time MIN] [--kit-build DIR]
                      [--no-submit]

Without `sbatch` on PATH (and without --no-submit) it stops first, in one line, before
building anything or writing OUT.
Builds the pristine kit once, here and now, in OUT/.kit-src and OUT/.kit-build (the tasks
reuse it with --kit-build OUT instead of each building it); with --kit-build DIR, the tasks
use DIR's, finished for this HEAD (`tools/grade prepare-kit DIR`, or an earlier run's OUT),
and nothing is built. Then it writes

  OUT/slurm/grade.sbatch   an array of N tasks; task K runs
                           tools/grade SUBMISSIONS --out OUT/shards/K --shard K/N --jobs J
                           on J CPUs (log: OUT/slurm/grade-<array>_<K>.log)
  OUT/slurm/merge.sbatch   tools/grade merge OUT/shards/1 ... OUT/shards/N --out OUT

and submits both with sbatch, the merge after every task succeeded (afterok; cancelled if one
failed). Every path in them is absolute: the cluster's nodes must share the filesystem. The
jobs run as the submitting user, so submit as root, or the tasks grade without the sandbox.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import grade, kitbuild
from .rubric import Rubric


SBATCH_MISSING = ("grade: sbatch not found: tools/grade slurm needs Slurm's sbatch on PATH "
                  "(or use --no-submit to only write the scripts)")


def sbatch_script(comment: str, directives: list, command: list) -> str:
    return "\n".join(["#!/bin/bash", f"# {comment}"] +
                     [f"#SBATCH {directive}" for directive in directives] +
                     ["set -euo pipefail", "exec " + " ".join(command), ""])


def write_scripts(args, out: Path, kit_dir: Path) -> tuple:
    """OUT/slurm/grade.sbatch and merge.sbatch, whose tasks grade with the kit built in
    KIT_DIR; returns their paths."""
    folder = out / "slurm"
    folder.mkdir(exist_ok=True)
    os.chmod(folder, 0o700)
    common = []  # the directives of both scripts
    if args.partition:
        common.append(f"--partition={args.partition}")
    if args.time:
        common.append(f"--time={args.time}")
    tool = shlex.quote(str(kitbuild.KIT / "tools" / "grade"))
    shard_out = shlex.quote(str(out / "shards")) + "/$SLURM_ARRAY_TASK_ID"
    passed_on = [f"--jobs {args.jobs}"] + \
        [f"--{name} {shlex.quote(str(getattr(args, name).resolve()))}"
         for name in ("hidden", "rubric") if getattr(args, name)] + \
        ([f"--exercises {','.join(args.exercises)}"] if args.exercises else []) + \
        ([f"--timeout {args.timeout}"] if args.timeout else []) + \
        ([f"--wall-timeout {args.wall_timeout}"] if args.wall_timeout else []) + \
        ([f"--compile-timeout {args.compile_timeout}"] if args.compile_timeout else [])
    grade_script = folder / "grade.sbatch"
    grade_script.write_text(sbatch_script(
        f"tools/grade slurm: task K grades shard K/{args.array} of the class into "
        f"{out}/shards/K",
        ["--job-name=grade", f"--array=1-{args.array}", f"--cpus-per-task={args.jobs}",
         f"--output={folder}/grade-%A_%a.log"] + common,
        [tool, shlex.quote(str(args.submissions.resolve())), "--out", shard_out,
         f"--shard $SLURM_ARRAY_TASK_ID/{args.array}", "--kit-build", shlex.quote(str(kit_dir))] +
        passed_on))
    merge_script = folder / "merge.sbatch"
    merge_script.write_text(sbatch_script(
        f"tools/grade slurm: the {args.array} shards into one gradebook, {out}/gradebook.csv",
        ["--job-name=grade-merge", f"--output={folder}/merge-%j.log"] + common,
        [tool, "merge"] + [shlex.quote(str(out / "shards" / str(k)))
                           for k in range(1, args.array + 1)] + ["--out", shlex.quote(str(out))]))
    return grade_script, merge_script


def sbatch(*argv) -> str:
    """Submits; returns the job id (--parsable prints "id" or "id;cluster")."""
    done = subprocess.run(["sbatch", "--parsable", *map(str, argv)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise RuntimeError(f"sbatch {' '.join(map(str, argv))}: {done.stderr.strip()}")
    return done.stdout.strip().split(";")[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tools/grade slurm",
                                     description="grade a class as a Slurm job array, then merge")
    grade.add_grading_options(parser)
    parser.add_argument("--array", type=int, required=True, metavar="N",
                        help="tasks: shards of the class, graded side by side")
    parser.add_argument("--partition", help="sbatch --partition of every job")
    parser.add_argument("--time", metavar="MIN", help="sbatch --time of every job (minutes)")
    parser.add_argument("--kit-build", type=Path, metavar="DIR",
                        help="the tasks use the kit DIR/.kit-build finished for this HEAD "
                             "(tools/grade prepare-kit DIR): nothing is built")
    parser.add_argument("--no-submit", action="store_true",
                        help="build the kit and write the scripts, submit nothing")
    args = parser.parse_args(argv)
    if not 1 <= args.array:
        parser.error("--array N needs N >= 1")
    # First, before the minute of kit build and before anything is written: without sbatch
    # nothing could be submitted after it.
    if not args.no_submit and shutil.which("sbatch") is None:
        print(SBATCH_MISSING, file=sys.stderr)
        return 1
    if not grade.list_students(args.submissions)[0]:
        print(f"grade slurm: no student folders in {args.submissions}", file=sys.stderr)
        return 1
    exercises = kitbuild.catalogue()["exercises"]
    Rubric.load(args.rubric, [ex["id"] for ex in exercises])  # a bad rubric stops here, not N times
    out = args.out.resolve()
    isolated = os.geteuid() == 0
    if not isolated:
        print("grade slurm: not root: the jobs run as you, so the tasks grade WITHOUT the "
              "sandbox (tools/grader/README.md)")
    kit_dir = args.kit_build.resolve() if args.kit_build else out
    if not args.kit_build:
        print(f"grade slurm: building the kit's HEAD once, for every task, in "
              f"{out}/.kit-build ...", flush=True)
    start = time.monotonic()
    try:
        grade.make_out(out, isolated)
        if args.kit_build:
            if isolated:
                grade.require_searchable_by_others(kit_dir)
            head = kitbuild.reuse(kit_dir)
        else:
            head = kitbuild.prepare(out, exercises, args.build_jobs)
    except kitbuild.BuildError as error:
        print(f"grade slurm: {error}", file=sys.stderr)
        return 1
    (out / "shards").mkdir(exist_ok=True)
    os.chmod(out / "shards", 0o711 if isolated else 0o700)  # the shards' OUTs lie below it
    grade_script, merge_script = write_scripts(args, out, kit_dir)
    built = (f"in {kit_dir}/.kit-build, finished" if args.kit_build
             else f"built in {time.monotonic() - start:.1f} s")
    print(f"grade slurm: kit {head[:10]} {built}; wrote {grade_script} and {merge_script}")
    if args.no_submit:
        print(f"  submit: id=$(sbatch --parsable {grade_script}) && sbatch "
              f"--dependency=afterok:$id --kill-on-invalid-dep=yes {merge_script}")
        return 0
    try:
        array = sbatch(grade_script)
        merged = sbatch(f"--dependency=afterok:{array}", "--kill-on-invalid-dep=yes",
                        merge_script)
    except (RuntimeError, FileNotFoundError) as error:
        print(f"grade slurm: {error}", file=sys.stderr)
        return 1
    print(f"grade slurm: submitted the array {array} ({args.array} tasks) and the merge "
          f"{merged} (runs after every task succeeded)\n"
          f"  watch:  squeue -j {array},{merged}\n"
          f"  after:  sacct -j {array},{merged} --format=JobID,JobName,State,Elapsed,ExitCode\n"
          f"  logs:   {out}/slurm/   gradebook: {out}/gradebook.csv")
    return 0

#!/usr/bin/env python3
"""tests/kit/test_runner_and_judge.py — the grading path, end to end, on the kit's own case set.

    test_runner_and_judge.py --bin BUILD/bin --stubs DIR [--cases CASE_SET]
                             [--mistakes [--rounds N]]

For every exercise: the solutions track, run as a runner (`test_exNN_solutions
--attn-run-cases=reference_data --attn-results=DIR`) and judged by `attn_judge`, passes every
case and every law the case lists (kit/laws.hpp); the exercises track, when the build compiled
the untouched stub (DIR: the build's ATTN_EXERCISES_DIR), fails every case, each verdict naming
the stub file; and with --mistakes, each recorded mistake as a student makes it (its tensor
wherever it was recorded, put where a runner writes results) fails with its own name, or with
none where it is "ambiguous" (another mistake gives the same tensor on that case), and on a
hidden set shows nothing of the expected tensor (one judge run per mistake: minutes;
test_known_mistakes judges every mistake in-process, and is the check of each). --rounds N:
only the first N mistakes of each exercise. Run by ctest as kit.runner_and_judge on
reference_data/ (standard library only), and with --mistakes --rounds 2 by `tools/kit test
--full` on a hidden case set (`tools/record --out DIR`, tests/grading/hidden_set_check.sh).
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from kitcli.catalogue import Kit  # noqa: E402  (after the path is set)
from kitcli.stubs import git_blob_id  # noqa: E402

KIT = Kit.load(ROOT)
CASES = ROOT / "reference_data"  # or --cases
MANIFEST = {}
STUBS = ROOT / "exercises"  # or --stubs: the folder the build compiled as the exercises track


def hidden():
    """A hidden set (tools/record --out) is judged as the grader judges it: --hide-expected."""
    return MANIFEST.get("case_set") == "hidden"


def judge(bin_dir, results, exercise):
    out = results / "verdicts.json"
    subprocess.run([str(bin_dir / "attn_judge"), "--cases", str(CASES), "--results", str(results),
                    "--exercise", exercise["id"], "--out", str(out)]
                   + (["--hide-expected"] if hidden() else []),
                   check=True, capture_output=True)
    return json.loads(out.read_text(encoding="utf-8"))["cases"]


def shows_expected(output):
    """Whether a failed output of a hidden case tells anything of the expected tensor."""
    return hidden() and (output["details"] or ", expected " in output["reason"])


def run_track(bin_dir, exercise, track, results):
    subprocess.run([str(bin_dir / f"test_ex{exercise['id']}_{track}"),
                    f"--attn-run-cases={CASES}", f"--attn-results={results}"],
                   check=True, capture_output=True, timeout=60)
    return judge(bin_dir, results, exercise)


def cases_of(exercise):
    return {path: case for path, case in MANIFEST["cases"].items()
            if case["exercise"] == exercise["id"]}


def built_from_the_stub(exercise):
    """Whether the build's exercises track is the untouched stub (exercises.json's stub_blob)."""
    try:
        content = (STUBS / Path(exercise["stub"]).name).read_bytes()
    except OSError:
        return False
    return git_blob_id(content) == exercise["stub_blob"]


def check_exercise(bin_dir, exercise, scratch, mistakes, rounds):
    problems = []
    verdicts = run_track(bin_dir, exercise, "solutions", scratch / "solutions")
    if len(verdicts) != len(cases_of(exercise)):
        problems.append(f"judged {len(verdicts)} of {len(cases_of(exercise))} cases")
    problems += [f"solution fails {v['case']}: {o['reason']}"
                 for v in verdicts for o in v["outputs"] if not o["passed"]]
    problems += [f"solution {v['case']} judged not implemented" for v in verdicts
                 if v.get("not_implemented") is not False]
    # Every law a case lists is checked on the solution's variant (kit/laws.hpp), never skipped.
    for v in verdicts:
        laws = [f"law.{law['law']}.{law['output']}"
                for law in cases_of(exercise).get(v["case"], {}).get("laws", [])]
        judged = [o["name"] for o in v["outputs"] if o["name"].startswith("law.")]
        if judged != laws:
            problems.append(f"solution {v['case']}: laws judged {judged}, listed {laws}")

    if built_from_the_stub(exercise):
        for verdict in run_track(bin_dir, exercise, "exercises", scratch / "stubs"):
            problems += [f"stub: {verdict['case']} {o['name']}: {o['reason'] or 'passed'}"
                         for o in verdict["outputs"]
                         if o["passed"] or exercise["stub"] not in o["reason"]]
            # Marked by the judge from the runner's not_implemented.txt (docs/verdicts.md).
            if verdict.get("not_implemented") is not True:
                problems.append(f"stub: {verdict['case']} not judged not implemented")
    else:
        print(f"  (stub check skipped: {STUBS / Path(exercise['stub']).name} is not the stub)")

    if mistakes:
        problems += check_mistakes(bin_dir, exercise, scratch / "mistakes", rounds)
    return problems


def check_mistakes(bin_dir, exercise, scratch, rounds):
    """Round k is a student who makes the exercise's k-th recorded mistake wherever it was
    recorded: its tensor in every output that records it, the expected tensor in the others,
    and no result where the mistake's code throws (the golden's "throws"), as a runner would
    leave. The judge decides names over every case (a name another case rules out is taken
    back), so each round is one consistent student, never a mix of mistakes. `rounds` of them
    at most (None: every mistake)."""
    files = MANIFEST["files"]
    outputs = [(path, output) for path, case in cases_of(exercise).items()
               for output in case["expected"]]
    names = list(dict.fromkeys(files[mistake]["name"] for path, output in outputs
                               for mistake in files[f"{path}/{output}.npy"].get("mistakes", [])))
    problems = []
    for round_number, name in enumerate(names[:rounds]):
        results, wanted = scratch / str(round_number), {}
        throws = {path for path, output in outputs
                  if name in files[f"{path}/{output}.npy"].get("throws", [])}
        for path, output in outputs:
            if path in throws:
                continue
            expected = f"{path}/{output}.npy"
            chosen = next((mistake for mistake in files[expected].get("mistakes", [])
                           if files[mistake]["name"] == name), expected)
            if chosen != expected:  # an ambiguous mistake must be named by none
                wanted[(path, output)] = "" if files[chosen].get("ambiguous") else name
            target = results / path / f"{output}.npy"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CASES / chosen, target)
        for verdict in judge(bin_dir, results, exercise):
            for output in verdict["outputs"]:
                named = wanted.get((verdict["case"], output["name"]))
                if named is None:
                    continue
                if output["passed"] or output["mistake"] != named:  # "" for an ambiguous one
                    problems.append(f"mistake {named!r} on {verdict['case']} {output['name']}: "
                                    "judged "
                                    f"{'passed' if output['passed'] else output['mistake']!r}")
                if shows_expected(output):
                    problems.append(f"hidden case {verdict['case']} {output['name']} shows the "
                                    f"expected tensor: {output['reason']}")
    return problems


def check_command_line(bin_dir):
    """attn_judge takes --hide-expected as a bare flag, and refuses an unknown option, or one
    without its value, with its usage line and exit status 2. Returns whether something is
    wrong."""
    with tempfile.TemporaryDirectory() as results:
        hide = subprocess.run([str(bin_dir / "attn_judge"), "--hide-expected", "--cases",
                               str(CASES), "--results", results, "--exercise", "01"],
                              capture_output=True, text=True)
        unknown = subprocess.run([str(bin_dir / "attn_judge"), "--cases", str(CASES),
                                  "--results", results, "--show-everything"],
                                 capture_output=True, text=True)
        no_value = subprocess.run([str(bin_dir / "attn_judge"), "--results", results,
                                   "--hide-expected", "--cases"],
                                  capture_output=True, text=True)
    problems = ([f"--hide-expected: exit {hide.returncode}: {hide.stderr.strip()}"]
                if hide.returncode != 0 or '"cases"' not in hide.stdout else [])
    if unknown.returncode != 2 or not unknown.stderr.startswith("usage: attn_judge"):
        problems.append(f"an unknown option: exit {unknown.returncode}: {unknown.stderr.strip()}")
    if no_value.returncode != 2 or not no_value.stderr.startswith("usage: attn_judge"):
        problems.append(f"--cases without its folder: exit {no_value.returncode}: "
                        f"{no_value.stderr.strip()}")
    print("attn_judge's command line: " + ("ok" if not problems else "; ".join(problems)))
    return bool(problems)


def main():
    global CASES, MANIFEST, STUBS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=Path, required=True, help="the build's bin/ folder")
    parser.add_argument("--cases", type=Path, default=CASES, help="the case set to run")
    parser.add_argument("--stubs", type=Path, default=STUBS,
                        help="the folder the build compiled as the exercises track")
    parser.add_argument("--mistakes", action="store_true",
                        help="also judge every recorded mistake through the judge program")
    parser.add_argument("--rounds", type=int, metavar="N",
                        help="with --mistakes: only the first N mistakes of each exercise")
    args = parser.parse_args()
    CASES, STUBS = args.cases.resolve(), args.stubs.resolve()
    MANIFEST = json.loads((CASES / "MANIFEST.json").read_text(encoding="utf-8"))
    failed = check_command_line(args.bin)
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        # The exercises are independent (a scratch folder each): one at a time per core.
        checked = pool.map(lambda exercise: check_exercise(
            args.bin, exercise, Path(scratch) / exercise["id"], args.mistakes, args.rounds),
            KIT.exercises)
        for exercise, problems in zip(KIT.exercises, checked):
            names = {MANIFEST["files"][m]["name"] for p, f in MANIFEST["files"].items()
                     if f.get("exercise") == exercise["id"] and f["role"] == "expected"
                     for m in f.get("mistakes", [])}
            mistakes = min(len(names), args.rounds or len(names))
            print(f"ex{exercise['id']}: {len(cases_of(exercise))} cases"
                  + (f", {mistakes} mistakes" if args.mistakes else "") + ": "
                  + ("ok" if not problems else f"{len(problems)} problems"))
            for problem in problems:
                print("  " + problem)
            failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""`tools/kit show NN [CASE]`: a case's inputs, its expected outputs and yours, as PyTorch
prints them, so a student sees what the function receives and must return.

The exercise's test program shows the case (`--attn-show=CASE --attn-show-json=FILE`,
kit/testing/src/main.cpp): it reads the goldens, prints each tensor with the kit's printer
(kit/torch_format.hpp), runs the student's code on the case and compares; this module builds
the program, runs it and presents the JSON lines it writes. `--svg FILE` draws the case's
attention matrices with heatmap.svg, yours beside the expected ones.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import build, heatmap, progress
from .catalogue import Kit, KitError
from .terminal import from_here, kit_command, say

PRINTED_LINES_SHOWN = 10  # of what the student's code printed


@dataclass
class ShownCase:
    """What the test program wrote for one case (its JSON lines, by event)."""
    case: dict                                    # the "case" record
    inputs: list = field(default_factory=list)    # "tensor" records, role "input"
    expected: list = field(default_factory=list)  # ... role "expected"
    yours: list = field(default_factory=list)     # ... role "yours"
    threw: dict | None = None                     # the "threw" record
    # Why yours is missing when the code neither returned nor threw ("" otherwise): a crash,
    # a hang, or a file that does not compile.
    missing: str = ""
    printed: list = field(default_factory=list)   # what the code printed, line by line


def run_show(kit: Kit, program: Path, wanted: str | None, with_yours: bool = True) -> ShownCase:
    """Runs `program --attn-show[=CASE]` and reads what it wrote. `with_yours` False: the
    solutions track's program stands in for a file that does not compile, for the inputs and
    expected outputs alone."""
    with tempfile.TemporaryDirectory(prefix="kit-show-") as folder:
        path = Path(folder) / "show.jsonl"
        flag = f"--attn-show={wanted}" if wanted else "--attn-show"
        end = build.run_program(program, [flag, f"--attn-show-json={path}", kit.cpu_limit()],
                                kit.test_wall_s, kit.root)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
    records = []
    for line in text.splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:  # the last line of a program killed while writing it
            break
    for record in records:
        if record.get("event") == "error":
            raise KitError(record["message"])
    if not records or records[0].get("event") != "case":
        raise KitError(f"{program.name} showed no case: "
                       f"{progress.program_end_reason(end, kit)}")
    shown = ShownCase(records[0])
    by_role = {"input": shown.inputs, "expected": shown.expected, "yours": shown.yours}
    for record in records[1:]:
        if record.get("event") == "tensor":
            by_role[record["role"]].append(record)
        elif record.get("event") == "threw":
            shown.threw = record
    if not with_yours:
        shown.yours, shown.threw = [], None
        return shown
    if records[-1].get("event") != "end":
        shown.missing = progress.program_end_reason(end, kit)
    shown.printed = [line for line in end.output.splitlines() if line.strip()]
    return shown


def shown_case(kit: Kit, ex: dict, wanted: str | None) -> ShownCase:
    """Builds the exercise's test program and shows the case; where the student's file does
    not compile, the solutions track's program shows its inputs and expected outputs."""
    program = build.test_program(kit, "default", ex)
    if not (build.build_dir(kit, "default") / "build.ninja").exists():
        say(build.announce(kit, "default", f"exercise {ex['id']}"))
    configured, built, _ = build.configure_and_build(kit, "default", program.name)
    if not configured:
        raise KitError(f"cmake could not configure the build: "
                       f"`{kit_command(kit.root, 'check ' + ex['id'])}` says why")
    if built:
        return run_show(kit, program, wanted)
    stub = from_here(kit.root, ex["stub"])
    reference = program.with_name(f"test_ex{ex['id']}_solutions")
    _, built, _ = build.configure_and_build(kit, "default", reference.name)
    if not built:
        raise KitError(f"exercise {ex['id']}'s test program did not build: "
                       f"`{kit_command(kit.root, 'check ' + ex['id'])}` says why")
    shown = run_show(kit, reference, wanted, with_yours=False)
    shown.missing = (f"{stub} does not compile yet "
                     f"(`{kit_command(kit.root, 'check ' + ex['id'])}` shows where)")
    return shown


def shape_text(record: dict) -> str:
    return str(tuple(record["shape"]))  # as Python writes a tuple: (6,), (2, 3), ()


def tensor_lines(heading: str, record: dict) -> list:
    return [heading] + ["  " + line if line else "" for line in record["repr"].splitlines()]


def yours_verdict(record: dict) -> str:
    compared = record.get("comparison") or {}
    if compared.get("passed"):
        return "matches the expected output"
    mistake = compared.get("mistake")
    return f"differs: {compared.get('reason', '')}" + (f" — looks like: {mistake}"
                                                       if mistake else "")


def presented(kit: Kit, ex: dict, shown: ShownCase) -> list:
    case = shown.case
    lines = [f"Exercise {ex['id']}, case {case['name']}: {case['kind']} ({case['source']})"]
    for record in shown.inputs:
        lines += tensor_lines(f"input {record['name']}, shape {shape_text(record)}:", record)
    for record in shown.expected:
        lines += tensor_lines(f"expected {record['name']}, shape {shape_text(record)}:", record)
    for record in shown.yours:
        lines += tensor_lines(f"yours {record['name']}, shape {shape_text(record)}: "
                              f"{yours_verdict(record)}", record)
    if shown.threw:
        lines.append(f"yours: {shown.threw['message']}")
    elif shown.missing:
        lines.append(f"yours: not shown: {shown.missing}")
    if shown.printed:
        cut = len(shown.printed) > PRINTED_LINES_SHOWN
        lines.append(f"Your code printed{' (its last lines)' if cut else ''}:")
        lines += [f"  | {line}" for line in shown.printed[-PRINTED_LINES_SHOWN:]]
    if any(not (record.get("comparison") or {}).get("passed") for record in shown.yours):
        lines.append(f"Why yours differs: `{kit_command(kit.root, 'check ' + ex['id'])}`")
    others = [other for other in case["cases"] if other != case["name"]]
    if others:
        lines.append(f"Other cases: {', '.join(others)} "
                     f"(`{kit_command(kit.root, 'show ' + ex['id'] + ' CASE')}`)")
    return lines


def case_lines(kit: Kit, ex: dict, wanted: str | None) -> list:
    return presented(kit, ex, shown_case(kit, ex, wanted))


def write_svg(kit: Kit, ex: dict, wanted: str | None, path: Path) -> list:
    """`show NN [CASE] --svg FILE`: the case's expected attention matrices (the outputs the
    test program gives a "matrix") as a heatmap, each beside yours where your code returned
    it. Returns what to say."""
    return svg_of(ex, shown_case(kit, ex, wanted), path)


def svg_of(ex: dict, shown: ShownCase, path: Path) -> list:
    case = shown.case
    yours = {record["name"]: record for record in shown.yours}
    drawings, said = [], []
    for record in shown.expected:
        matrix = record.get("matrix")
        if not matrix:
            continue
        shape = matrix["shape"]
        mine = yours.get(record["name"])
        got = mine and mine["matrix"]  # null where yours is of another shape or dtype
        title = f"Exercise {ex['id']}, case {case['name']}: {record['name']} {shape}"
        drawings.append(heatmap.svg(matrix["expected"], shape, got=got and got["got"],
                                    beyond=got and got["beyond"], title=title))
        if got:
            beyond = len(got["beyond"])
            note = (", yours beside it (it matches)" if mine["comparison"]["passed"] else
                    f", yours beside it ({beyond} beyond the tolerance, outlined in red)")
        elif mine:
            note = f"; yours is {mine['dtype']} of shape {mine['shape']}: not drawn"
        elif shown.threw or shown.missing:
            note = "; yours: " + (shown.threw["message"] if shown.threw else shown.missing)
        else:
            note = ""
        said.append(f"{record['name']} {shape}{note}")
    if not drawings:
        raise KitError(f"case {case['name']} of exercise {ex['id']} has no matrix of weights or "
                       f"scores to draw; its outputs: "
                       f"{', '.join(record['name'] for record in shown.expected)}")
    try:
        path.write_text(heatmap.stacked(drawings), encoding="utf-8")
    except OSError as error:
        raise KitError(f"cannot write {path}: {error}") from None
    return [f"Wrote {path}: {'; '.join(said)}"]

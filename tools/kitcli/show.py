"""`tools/kit show NN [CASE]`: a case's inputs and expected outputs as PyTorch prints them,
so a student sees what the function receives and must return before writing anything.

The goldens are .npy files (reference_data/<NN_name>/<case>/<name>.npy, listed in
MANIFEST.json); this module reads them with the standard library only: the header is a
Python dict literal, the data little-endian float32, float64, int64 or bool.
"""

from __future__ import annotations

import ast
import json
import math
import struct
from pathlib import Path

from . import build, heatmap, reports
from .catalogue import Kit, KitError
from .terminal import kit_command

NPY_MAGIC = b"\x93NUMPY"
DTYPES = {"<f4": "f", "<f8": "d", "<i8": "q", "|b1": "?", "<i4": "i"}  # struct codes


def read_npy(path: Path) -> tuple:
    """(shape, dtype code, flat list of values) of a C-order .npy file."""
    data = path.read_bytes()
    if not data.startswith(NPY_MAGIC):
        raise KitError(f"{path} is not a .npy file")
    major = data[6]
    size_format, start = ("<H", 8) if major == 1 else ("<I", 8)
    header_length = struct.unpack_from(size_format, data, start)[0]
    header_start = start + struct.calcsize(size_format)
    header = ast.literal_eval(data[header_start:header_start + header_length].decode("latin-1"))
    if header.get("fortran_order") or header.get("descr") not in DTYPES:
        raise KitError(f"{path}: unsupported .npy layout {header}")
    shape = tuple(header["shape"])
    count = math.prod(shape)
    code = DTYPES[header["descr"]]
    values = list(struct.unpack_from(f"<{count}{code}", data, header_start + header_length))
    return shape, code, values


def torch_repr(shape: tuple, code: str, values: list) -> str:
    """What print(torch.tensor(...)) shows, for the small tensors of the cases: four
    decimals, or scientific notation when the magnitudes are far apart, columns aligned."""
    if code == "?":
        items = ["True" if v else "False" for v in values]
    elif code in "qi":
        items = [str(v) for v in values]
    else:
        items = float_items(values)
    width = max((len(item) for item in items), default=0)
    items = [item.rjust(width) for item in items]
    body = nested(shape, items, indent=len("tensor("))
    dtype = {"q": "", "i": ", dtype=torch.int32", "d": ", dtype=torch.float64"}.get(code, "")
    return f"tensor({body}{dtype})"


def float_items(values: list) -> list:
    finite = [abs(v) for v in values if math.isfinite(v) and v != 0]
    def special(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if finite and all(v == math.floor(v) for v in finite) and max(finite) < 1e8:
        return [f"{v:.0f}." if math.isfinite(v) else special(v) for v in values]
    scientific = bool(finite) and (max(finite) / min(finite) > 1000 or max(finite) > 1e8
                                   or min(finite) < 1e-4)
    text = "{:.4e}" if scientific else "{:.4f}"
    return [text.format(v) if math.isfinite(v) else special(v) for v in values]


def nested(shape: tuple, items: list, indent: int) -> str:
    if not shape:
        return items[0]
    if len(shape) == 1:
        return "[" + ", ".join(items) + "]"
    step = math.prod(shape[1:])
    rows = [nested(shape[1:], items[i * step:(i + 1) * step], indent + 1)
            for i in range(shape[0])]
    separator = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def chosen_case(kit: Kit, ex: dict, wanted: str | None) -> tuple:
    """(case name, its manifest entry, every case of the exercise by name)."""
    try:
        manifest = json.loads(kit.manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise KitError(f"cannot read {kit.manifest_path}: {error}") from None
    folder = Path(ex["goldens"]).name
    cases = {path.split("/", 1)[1]: entry for path, entry in manifest["cases"].items()
             if path.split("/", 1)[0] == folder}
    if not cases:
        raise KitError(f"the case set has no case of exercise {ex['id']}")
    if wanted is None:
        name = next((name for name in cases if "notebook" in name), next(iter(cases)))
    elif wanted in cases:
        name = wanted
    else:
        raise KitError(f"exercise {ex['id']} has no case {wanted!r}; its cases are "
                       + ", ".join(cases))
    return name, cases[name], cases


def case_lines(kit: Kit, ex: dict, wanted: str | None) -> list:
    name, entry, cases = chosen_case(kit, ex, wanted)
    lines = [f"Exercise {ex['id']}, case {name}: {entry['kind']} ({entry['source']})"]
    for role, names in (("input", entry["inputs"]), ("expected", entry["expected"])):
        for tensor in names:
            shape, code, values = read_npy(kit.root / ex["goldens"] / name / f"{tensor}.npy")
            lines.append(f"{role} {tensor}, shape {shape}:")  # as Python writes a tuple
            lines += ["  " + line for line in torch_repr(shape, code, values).splitlines()]
    others = [other for other in cases if other != name]
    if others:
        lines.append(f"Other cases: {', '.join(others)} "
                     f"(`{kit_command(kit.root, 'show ' + ex['id'] + ' CASE')}`)")
    return lines


def student_matrices(kit: Kit, ex: dict, case_path: str) -> dict:
    """{output: its "matrix"} of the case's failures in the student's last `check` or
    `status` (the verdict stream build/reports/exNN.exercises.verdicts), or {}."""
    try:
        stream = reports.read_verdicts(build.verdicts_path(kit, "default", ex))
    except ValueError:
        return {}
    found = {}
    for test in stream.tests if stream else []:
        if test.value_case == case_path:
            for failure in test.failures:
                if failure.matrix and failure.output not in found:
                    found[failure.output] = failure.matrix
    return found


def write_svg(kit: Kit, ex: dict, wanted: str | None, path: Path) -> list:
    """`show NN [CASE] --svg FILE`: the case's expected matrices of weights or scores (float
    outputs of shape (..., T, T)) as a heatmap, each beside the student's where their last
    check left it in the verdict stream. Returns what to say."""
    name, entry, _ = chosen_case(kit, ex, wanted)
    case_path = f"{Path(ex['goldens']).name}/{name}"
    yours = student_matrices(kit, ex, case_path)
    drawings, said = [], []
    for tensor in entry["expected"]:
        shape, code, values = read_npy(kit.root / ex["goldens"] / name / f"{tensor}.npy")
        if code not in "fd" or len(shape) < 2 or shape[-1] != shape[-2] or shape[-1] < 2:
            continue
        matrix = yours.get(tensor)
        if matrix and list(matrix["shape"]) != list(shape):
            matrix = None
        title = f"Exercise {ex['id']}, case {name}: {tensor} {list(shape)}"
        drawings.append(heatmap.svg(values, list(shape), got=matrix and matrix["got"],
                                    beyond=matrix and matrix.get("beyond"), title=title))
        said.append(f"{tensor} {list(shape)}" + (", yours beside it (from your last check)"
                                                  if matrix else ""))
    if not drawings:
        raise KitError(f"case {name} of exercise {ex['id']} has no matrix of weights or scores "
                       f"to draw; its outputs: {', '.join(entry['expected'])}")
    try:
        path.write_text(heatmap.stacked(drawings), encoding="utf-8")
    except OSError as error:
        raise KitError(f"cannot write {path}: {error}") from None
    return [f"Wrote {path}: {'; '.join(said)}"]

"""Golden files and MANIFEST.json (format_version 2): .npy bytes, sha256, writing a case set
to its folder and comparing a fresh recording with one on disk."""

import hashlib
import io
import json

import numpy as np
import torch

from . import provenance
from .tolerance import ATOL, RTOL

MANIFEST = "MANIFEST.json"
ABOUT = ("Written by tools/record; do not edit. Paths are relative to this folder. Sources name "
         "the public notebook cell each case reproduces (exercises.json's \"notebook\" gives "
         "their addresses); tools/recorder/README.md explains the "
         "roles, the tolerance rule and the recorded mistakes.")

# torch dtype -> (manifest name, .npy dtype); the C++ loader wants these exact dtypes.
DTYPES = {torch.float32: ("float32", "<f4"), torch.int64: ("int64", "<i8"),
          torch.bool: ("bool", "|b1")}


def npy_bytes(tensor):
    """A tensor's .npy file (C order; a 0-d tensor stays 0-d), its dtype name and shape."""
    if tensor.dtype not in DTYPES:
        raise TypeError(f"a golden is float32, int64 or bool, not {tensor.dtype}")
    name, dtype = DTYPES[tensor.dtype]
    array = tensor.detach().cpu().numpy().astype(dtype, order="C")  # keeps 0-d as 0-d
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue(), name, list(array.shape)


def load(data):
    """The array in .npy bytes."""
    return np.load(io.BytesIO(data), allow_pickle=False)


class Recording:
    """The files and manifest of one case set, built in memory."""

    def __init__(self, case_set, key_id=None):
        self.case_set = case_set  # "public" or "hidden"
        self.key_id = key_id      # a hidden set's hidden_key.identifier; None for the public
        self.files = {}           # path relative to the case set's folder -> .npy bytes
        self.entries = {}         # the same path -> its manifest entry
        self.cases = {}           # "01_dot_scores/odd_shape" -> its manifest entry
        self.references = {}      # expected path -> its float64 recomputation (not written)
        # an ambiguous mistake's path -> (its Mistake, [the Mistakes giving the same tensor
        # there]) (not written): cases.name_what_never_differs reads it
        self.coinciding = {}
        self.notes = []           # what the recorder decided and a maintainer should know
        # paths whose bytes a BLAS product decided (provenance.py), found only while a
        # provenance.Tracker records (--check on another torch or BLAS)
        self.from_blas = set()

    def add(self, path, tensor, role, **entry):
        if path in self.files:
            raise ValueError(f"{path} recorded twice")
        data, dtype, shape = npy_bytes(tensor)
        self.files[path] = data
        if provenance.from_blas(tensor):
            self.from_blas.add(path)
        self.entries[path] = {"role": role, **entry, "dtype": dtype, "shape": shape,
                              "sha256": hashlib.sha256(data).hexdigest()}

    def manifest_text(self, versions=None, sha256=None):
        """MANIFEST.json's text; for --check on another environment, with `versions`
        ({"torch_version": ..., "numpy_version": ...}) and the `sha256` of some paths taken
        from the manifest on disk."""
        files = dict(sorted(self.entries.items()))
        for path, digest in (sha256 or {}).items():
            if path in files:
                files[path] = {**files[path], "sha256": digest}
        manifest = {
            "format_version": 2,
            "about": ABOUT,
            "case_set": self.case_set,
            **({} if self.key_id is None else {"key_id": self.key_id}),
            "torch_version": torch.__version__.split("+")[0],
            "numpy_version": np.__version__,
            **(versions or {}),
            "tolerance": {"atol": ATOL, "rtol": RTOL},
            "cases": self.cases,
            "files": files,
        }
        return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def write(recording, folder):
    """Replaces the case set in `folder`: stale .npy files go, empty folders too."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.rglob("*.npy"):
        old.unlink()
    for path, data in recording.files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (folder / MANIFEST).write_text(recording.manifest_text(), encoding="utf-8")
    for directory in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()


def recorded_versions(folder):
    """{"torch_version": ..., "numpy_version": ...} of the case set in `folder` ({} when its
    manifest is missing or unreadable)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(manifest, dict):
        return {}
    return {key: manifest[key] for key in ("torch_version", "numpy_version")
            if isinstance(manifest.get(key), str)}


def differences(recording, folder, shown, unchecked=frozenset(), versions=None):
    """Each file that differs between `recording` and `folder` (named `shown`), one line each.
    The `unchecked` paths must exist, but their bytes (and sha256) are not compared; with
    `versions`, the manifest's torch and numpy versions are not either (--check on another
    environment)."""
    lines = []
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*.npy")}
    for path, data in sorted(recording.files.items()):
        if path not in on_disk:
            lines.append(f"missing: {shown}/{path}")
        elif path not in unchecked and (folder / path).read_bytes() != data:
            lines.append(f"differs from PyTorch's result: {shown}/{path}")
    lines += [f"not produced by the recorder: {shown}/{path}"
              for path in sorted(on_disk - recording.files.keys())]
    manifest = folder / MANIFEST
    if not manifest.exists():
        lines.append(f"missing: {shown}/{MANIFEST}")
    elif manifest.read_text(encoding="utf-8") != recording.manifest_text(
            versions, recorded_sha256(folder, unchecked) if unchecked else None):
        lines.append(f"differs from a fresh recording: {shown}/{MANIFEST}")
    return lines


def recorded_sha256(folder, paths):
    """The sha256 the manifest in `folder` gives each of `paths` that it lists."""
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
        return {path: files[path]["sha256"] for path in paths
                if isinstance(files.get(path), dict) and "sha256" in files[path]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def is_case_set(folder):
    """Whether `folder` holds a case set this recorder wrote (so rewriting it is safe)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and str(manifest.get("about")).startswith(ABOUT[:23])

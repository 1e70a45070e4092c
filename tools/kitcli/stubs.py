"""The pristine stubs. Each exercise's "stub_blob" in exercises.json is the git blob id of
its stub as the kit ships it: the sha1 of "blob <length>\\0<content>", what
`git hash-object` prints. A file whose content hashes to it is "not started", whatever git
status says (a student who commits partial work still sees it as theirs), and
`tools/kit reset` restores that blob's content with `git cat-file blob`."""

from __future__ import annotations

import hashlib
import subprocess

from .catalogue import Kit, KitError


def git_blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def current_blob_id(kit: Kit, ex: dict) -> str | None:
    """The blob id of the exercise's file as it is now, or None if there is no file."""
    try:
        return git_blob_id((kit.root / ex["stub"]).read_bytes())
    except OSError:
        return None


def is_pristine(kit: Kit, ex: dict) -> bool:
    return current_blob_id(kit, ex) == ex["stub_blob"]


def pristine_content(kit: Kit, ex: dict) -> bytes:
    """The stub's content as the kit ships it, from git's object store."""
    try:
        result = subprocess.run(["git", "cat-file", "blob", ex["stub_blob"]], cwd=kit.root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise KitError(f"cannot restore {ex['stub']}: git is not installed "
                       "(apt-get install git)") from None
    if result.returncode != 0 or git_blob_id(result.stdout) != ex["stub_blob"]:
        why = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise KitError(f"cannot restore {ex['stub']}: git has no blob {ex['stub_blob']} "
                       f"(exercises.json's stub_blob){': ' + why[0] if why else ''}. "
                       "Is this a git clone of the kit? A fresh clone has every stub.")
    return result.stdout

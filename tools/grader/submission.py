"""What the grader takes of a submission: exactly the exercise files exercises.json names, each
a regular file reached without following a single link, copied before any student code runs.

A submission is a folder: the exercise files at its top (`NN_name.cpp`) or in `exercises/`
(a copy of the kit). Every path component is opened relative to the one before it with
O_NOFOLLOW, so an `exercises` that is a link to the kit's solutions/, to a classmate or through
/proc/self/cwd is never followed; a link, a FIFO, a device, a folder of the file's name or a
file over MAX_SOURCE_BYTES is "not taken", with a reason the student and instructor read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from kitlib.text import printable

MAX_SOURCE_BYTES = 256 << 10  # an exercise file is a few KiB; the largest solution is ~10 KiB
MAX_FOUND_INSTEAD = 20
# What else in a submission may be the student's work under another name (an LMS's renaming,
# a zip they forgot to unpack, a nested folder): named in the feedback when files are missing.
LOOKS_LIKE_WORK = (".cpp", ".cc", ".cxx", ".cu", ".cuh", ".hpp", ".h", ".zip", ".tar", ".gz",
                   ".tgz", ".7z", ".rar")


@dataclass
class Taken:
    files: dict = field(default_factory=dict)        # exercise id -> the copy's path
    not_taken: dict = field(default_factory=dict)    # exercise id -> why (one line)
    missing: list = field(default_factory=list)      # exercise ids with no file of that name
    found_instead: list = field(default_factory=list)  # other names, when files are missing

    def summary(self) -> dict:
        """records.json's "files": what was missing or refused, and what was there instead."""
        return {"missing": self.missing, "not_taken": self.not_taken,
                "found_instead": self.found_instead}

    @property
    def complete(self) -> bool:
        return not self.missing and not self.not_taken


def student_id(name: str) -> str:
    """A student's id as every output shows it and as the name of their output folder: the
    submission folder's name when it is printable, else that name made printable plus a short
    hash of the real one (two odd names never meet)."""
    shown = printable(name, one_line=True, limit=80)
    if shown == name and name not in (".", ".."):
        return name
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:8]
    return f"{shown.replace('/', '?')}~{digest}"


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link: the grader follows no link"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def _open_folder(parent_fd: int, name: str) -> tuple:
    """(fd, None) for the real folder `name` in parent_fd, else (None, why)."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                       dir_fd=parent_fd), None
    except FileNotFoundError:
        return None, None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            try:
                mode = os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode
            except OSError:
                return None, f"{name}/ is unreadable"
            return None, f"{name}/ is {_kind(mode)}"
        return None, f"{name}/ is unreadable ({error.strerror})"


def _read_file(folder_fd: int, name: str) -> tuple:
    """(bytes, None) for the regular file `name` in folder_fd, else (None, why), `why` read
    after "NAME is"; (None, None) when there is no such name."""
    try:
        before = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None, None
    except OSError as error:
        return None, f"unreadable ({error.strerror})"
    if not stat.S_ISREG(before.st_mode):
        return None, _kind(before.st_mode)
    if before.st_size > MAX_SOURCE_BYTES:
        return None, (f"{before.st_size} bytes long, over the {MAX_SOURCE_BYTES // 1024} KiB an "
                      "exercise file may have")
    try:  # O_NONBLOCK: should it have become a FIFO since, opening it does not wait
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=folder_fd)
    except OSError as error:
        return None, f"unreadable ({error.strerror})"
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (before.st_dev,
                                                                         before.st_ino):
            return None, "a file that changed while it was being read"
        data = os.read(fd, MAX_SOURCE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_SOURCE_BYTES:
        return None, f"a file that grew past {MAX_SOURCE_BYTES // 1024} KiB while it was read"
    return data, None


def _names(folder_fd: int) -> list:
    try:
        with os.scandir(folder_fd) as entries:
            return sorted(entry.name for entry in entries)
    except OSError:
        return []


def take(submission: Path, exercises: list, into: Path) -> Taken:
    """Copies the submission's exercise files into `into` (root's, 0644 each: the sandbox
    reads them, never the originals)."""
    taken = Taken()
    parent = os.open(submission.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        top, why = _open_folder(parent, submission.name)
    finally:
        os.close(parent)
    if top is None:
        taken.missing = [exercise["id"] for exercise in exercises]
        taken.found_instead = [why or "the submission folder is gone"]
        return taken
    inner, inner_why = _open_folder(top, "exercises")
    try:
        for exercise in exercises:
            name = Path(exercise["stub"]).name
            data, refused = None, None
            for folder_fd, where in ((inner, "exercises/"), (top, "")):
                if folder_fd is not None:
                    data, why = _read_file(folder_fd, name)
                    refused = why and f"{where}{name} is {why}"
                    if data is not None or refused:
                        break
            if data is not None:
                copy = into / name
                copy.write_bytes(data)
                os.chmod(copy, 0o644)
                taken.files[exercise["id"]] = copy
            elif refused:
                taken.not_taken[exercise["id"]] = refused
            elif inner_why:  # exercises/ is a link or a file: say so rather than "missing"
                taken.not_taken[exercise["id"]] = f"{name} was not taken: {inner_why}"
            else:
                taken.missing.append(exercise["id"])
        if taken.missing:
            expected = {Path(exercise["stub"]).name for exercise in exercises}
            others = [name for name in _names(top) if name not in expected
                      and not (name == "exercises" and inner is not None)]
            if inner is not None:
                others += [f"exercises/{name}" for name in _names(inner) if name not in expected]
            taken.found_instead = [printable(name, one_line=True, limit=120) for name in others
                                   if name.lower().endswith(LOOKS_LIKE_WORK) or "." not in name
                                   ][:MAX_FOUND_INSTEAD]
    finally:
        for fd in (top, inner):
            if fd is not None:
                os.close(fd)
    return taken

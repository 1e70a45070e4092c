"""A folder at the same path on every run, held by one process at a time: for the kit's own
checks that build a copy of the kit (kit.student_view, Gradescope's setup.sh played out), so
that their compiles have the same command lines, and the same precompiled header bytes, run
after run, and a kept ccache finds them. A folder made by mkdtemp made every compile a miss
(290 s of kit.student_view's run; 330 s of the Gradescope check's kit build)."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path


def held_folder(name: str, mode: int = 0o700) -> tuple:
    """(/tmp/NAME-UID, the lock's file descriptor): the folder empty and this process's until
    it closes the descriptor (another run waits for it). The /tmp of a machine shared with
    others: no link followed, no folder or lock of another user's used."""
    base = Path(tempfile.gettempdir()) / f"{name}-{os.geteuid()}"
    lock = os.open(f"{base}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.fstat(lock).st_uid != os.geteuid():
            raise RuntimeError(f"{base}.lock is not this user's: remove it")
        if base.is_symlink() or base.exists() and base.stat().st_uid != os.geteuid():
            raise RuntimeError(f"{base} is not this user's folder: remove it")
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(mode=mode)
        os.chmod(base, mode)  # past the umask
    except BaseException:
        os.close(lock)
        raise
    return base, lock

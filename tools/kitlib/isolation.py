"""What sandbox this machine allows tools/grade: bubblewrap's namespaces, a uid change alone,
or none. tools/grade chooses its sandbox by it, and `tools/kit test` which synthetic students
it can grade (those a weaker sandbox cannot stop sit out)."""

from __future__ import annotations

import os
import shutil
import subprocess


def isolation() -> str:
    """"bwrap", "uid" (root, but this machine refuses namespaces) or "none" (not root)."""
    if os.geteuid() != 0:
        return "none"
    return "bwrap" if namespaces_problem() is None else "uid"


def namespaces_problem() -> str | None:
    """Why bubblewrap cannot make its namespaces here, or None when it can."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: tools/kit setup installs it"
    try:
        done = subprocess.run(["bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-net",
                               "--ro-bind", "/", "/", "--", "true"], capture_output=True,
                              text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap did not run: {error}"
    if done.returncode != 0:
        return ("this machine refuses the namespaces bwrap needs (a chroot, or a container "
                f"under Docker's default profile): {done.stderr.strip()[:200]}")
    return None

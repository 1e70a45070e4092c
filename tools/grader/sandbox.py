"""Runs a student's program (or the compiler on a student's file) in a sandbox.

As root: a throwaway uid/gid per job slot (`setpriv --reuid --regid --clear-groups
--no-new-privs`), resource limits with `prlimit` (address space, CPU seconds, processes, file
size), no network and a private /tmp, /var/tmp and /dev/shm (fresh network and mount
namespaces), a clean environment, a wall timeout, its own session; afterwards every process
left under that uid is killed (`kill -9 -1` run AS that uid, which reaches that uid's processes
only), so a fork bomb or a daemonised child cannot outlive its exercise. Not root: the same
limits and timeout without the uid change (`Sandbox.isolated` is False; the caller says so).

A uid is claimed with a lock file held for the grader's lifetime, so two graders on one
machine (two instructors, or shards of one class) never share a uid: the sweep of one would
kill the other's compiler.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass

UID_BASE = 61000  # throwaway uids 61000, 61001, ...: one per job slot, in no passwd file
UID_COUNT = 1000
LINK_GID = UID_BASE - 1  # the group that may read the kit's build (libraries) when linking
LOCKS = "/tmp/attn-grade-uids"  # root's: one lock file per uid in use by a running grader
# Each run gets its own empty tmpfs on the world-writable folders: what a student leaves there
# (a fake report in /tmp) is gone with the run and never seen by another student's run.
PRIVATE_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")


@dataclass
class Outcome:
    status: str      # "ok" (exited 0), "failed" (exited non-zero), "crashed" (a signal), "timed-out"
    returncode: int
    seconds: float
    output: str      # stdout + stderr, at most a few KiB: for the instructor, never for a verdict


@dataclass
class Limits:
    address_space: int = 2 << 30   # bytes
    cpu_s: int = 20
    nproc: int = 64                 # per uid: bounds a fork bomb (the uid is the slot's own)
    file_size: int = 64 << 20       # bytes
    wall_s: float = 20.0


def _uid_in_use(uid: int) -> bool:
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as status:
                for line in status:
                    if line.startswith("Uid:"):
                        if str(uid) in line.split()[1:]:
                            return True
                        break
        except OSError:
            continue
    return False


def namespaces_work() -> bool:
    """Whether this machine lets root make network and mount namespaces: a container (Docker's
    default seccomp profile, Gradescope's) may not. Without them the sandbox still changes uid
    and sets its limits; the caller says what is missing."""
    try:
        return subprocess.run(["unshare", "--net", "--mount", "--", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


class Sandbox:
    def __init__(self, namespaces: bool = True, keep: tuple = ()):
        """A sandbox with a uid of its own: the first of UID_BASE.. that no account, no process
        and no other grader's lock holds. Not root: the caller's own uid. `namespaces`: no
        network and a private /tmp (namespaces_work()). `keep`: folders the sandbox must still
        see where they are, should they lie in a private folder (the grader's --out in /tmp)."""
        self.isolated = os.geteuid() == 0
        self.namespaces = namespaces
        self.keep = [str(path) for path in keep]
        self.uid, self.gid, self._lock = os.getuid(), os.getgid(), None
        if not self.isolated:
            return
        os.makedirs(LOCKS, mode=0o700, exist_ok=True)
        for uid in range(UID_BASE, UID_BASE + UID_COUNT):
            if _has_account(uid):
                continue
            lock = open(os.path.join(LOCKS, str(uid)), "w")
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.close()
                continue
            if _uid_in_use(uid):  # a process the lock does not know of: leave it alone
                lock.close()
                continue
            self.uid = self.gid = uid
            self._lock = lock
            return
        raise RuntimeError(f"no free sandbox uid in {UID_BASE}..{UID_BASE + UID_COUNT - 1}")

    def give(self, path: str, mode: int = 0o700) -> None:
        """Makes `path` the sandbox user's own (its results folder, its working folder)."""
        if self.isolated:
            os.chown(path, self.uid, self.gid)
        os.chmod(path, mode)

    def _prefix(self, limits: Limits, groups: tuple) -> list:
        prlimit = ["prlimit", f"--as={limits.address_space}", f"--cpu={limits.cpu_s}",
                   f"--fsize={limits.file_size}", "--core=0"]
        if self.isolated:
            # NPROC counts the processes of the real uid: the slot's own, so only its own.
            prlimit.append(f"--nproc={limits.nproc}")
            setpriv = ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}",
                       f"--groups={','.join(map(str, groups))}" if groups else "--clear-groups",
                       "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all"]
            if not self.namespaces:
                return setpriv + prlimit + ["--"]
            # No network (a fresh network namespace with only a down loopback): nothing leaves.
            # A fresh mount namespace, still root in it, mounts the private folders; then the
            # uid change drops every capability.
            return (["unshare", "--net", "--mount", "--", "/bin/sh", "-c",
                     self._mount_script() + ' && exec "$@"', "sandbox"] + setpriv + prlimit
                    + ["--"])
        return prlimit + ["--"]

    def _mount_script(self) -> str:
        """The shell commands that make PRIVATE_FOLDERS fresh tmpfs mounts. A kept folder under
        one of them is opened first (fd 3, 4, ...) and bound back at its path from that fd
        (a path would name the new, empty tmpfs by then)."""
        under = [path for path in self.keep if any(
            path == folder or path.startswith(folder + "/") for folder in PRIVATE_FOLDERS)]
        steps = [f"exec {3 + index}<{shlex.quote(path)}" for index, path in enumerate(under)]
        steps += [f"mount -t tmpfs -o size=64m,mode=1777,nosuid,nodev tmpfs {folder}"
                  for folder in PRIVATE_FOLDERS]
        for index, path in enumerate(under):
            quoted = shlex.quote(path)
            steps += [f"mkdir -p {quoted}",
                      f"mount --no-canonicalize --bind /proc/self/fd/{3 + index} {quoted}",
                      f"exec {3 + index}<&-"]
        return " && ".join(steps)

    def run(self, argv: list, cwd: str, limits: Limits, env: dict | None = None,
            groups: tuple = ()) -> Outcome:
        environment = {"PATH": "/usr/bin:/bin", "HOME": cwd, "LANG": "C.UTF-8", "TMPDIR": cwd,
                       "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        environment.update(env or {})
        start = time.monotonic()
        process = subprocess.Popen(self._prefix(limits, groups) + list(argv), cwd=cwd,
                                   env=environment,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            output, _ = process.communicate(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            self._kill_group(process.pid)
            try:
                output, _ = process.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                output = b""
        finally:
            self._kill_group(process.pid)
            self.sweep()
        seconds = time.monotonic() - start
        output = output or b""
        if len(output) > 12288:  # the first lines (a compiler's first error) and the last
            output = output[:8192] + b"\n[...]\n" + output[-4096:]
        text = output.decode("utf-8", "replace")
        code = process.returncode if process.returncode is not None else -9
        if timed_out:
            status = "timed-out"
        elif code < 0 or code >= 128:
            status = "crashed"  # a signal: SIGSEGV, SIGKILL (memory, CPU limit), SIGABRT
            if code in (-signal.SIGXCPU, -signal.SIGKILL) and limits.cpu_s <= seconds + 1:
                status = "timed-out"  # the CPU limit
        elif code != 0:
            status = "failed"
        else:
            status = "ok"
        return Outcome(status, code, seconds, text)

    @staticmethod
    def _kill_group(pid: int) -> None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def sweep(self) -> None:
        """Kills every process of the slot's uid: what a fork bomb or a daemon left behind."""
        if not self.isolated:
            return
        # A fork bomb's children fork while they are killed: one round is not enough (26-29
        # rounds in tests/grading), so kill until the uid has no process left.
        for _ in range(1000):
            subprocess.run(["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}",
                            "--clear-groups", "/bin/kill", "-9", "-1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            if not _uid_in_use(self.uid):
                return
            time.sleep(0.01)
        raise RuntimeError(f"uid {self.uid} still has processes after 1000 rounds of kill -9 -1")

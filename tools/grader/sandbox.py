"""Runs a student's program (or the compiler on a student's file) in a sandbox.

As root: a throwaway uid/gid per job slot (`setpriv --reuid --regid --clear-groups
--no-new-privs`), resource limits with `prlimit` (address space, CPU seconds, processes, file
size), a clean environment, a wall timeout, its own session; afterwards every process left
under that uid is killed (`kill -9 -1` run AS that uid, which reaches that uid's processes
only), so a fork bomb or a daemonised child cannot outlive its exercise. Not root: the same
limits and timeout without the uid change (`Sandbox.isolated` is False; the caller says so).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass

UID_BASE = 61000  # throwaway uids 61000, 61001, ...: one per job slot, in no passwd file
# (tools/grade --uid-base moves them, --shard K/N too: grade.SHARD_UIDS)


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


class Sandbox:
    def __init__(self, slot: int, uid_base: int):
        self.isolated = os.geteuid() == 0
        self.uid = uid_base + slot if self.isolated else os.getuid()
        self.gid = uid_base + slot if self.isolated else os.getgid()
        if self.isolated:
            import pwd
            try:
                pwd.getpwuid(self.uid)
                raise RuntimeError(f"uid {self.uid} belongs to an account; the sandbox needs a "
                                   f"throwaway uid (tools/grade --uid-base)")
            except KeyError:
                pass
            self.sweep()

    def give(self, path: str, mode: int = 0o700) -> None:
        """Makes `path` the sandbox user's own (its results folder, its working folder)."""
        if self.isolated:
            os.chown(path, self.uid, self.gid)
        os.chmod(path, mode)

    def _prefix(self, limits: Limits) -> list:
        prlimit = ["prlimit", f"--as={limits.address_space}", f"--cpu={limits.cpu_s}",
                   f"--fsize={limits.file_size}", "--core=0"]
        if self.isolated:
            # NPROC counts the processes of the real uid: the slot's own, so only its own.
            prlimit.append(f"--nproc={limits.nproc}")
            # No network (a fresh network namespace with only a down loopback): nothing leaves.
            return ["unshare", "--net", "--", "setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                    "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all"] + prlimit + ["--"]
        return prlimit + ["--"]

    def run(self, argv: list, cwd: str, limits: Limits, env: dict | None = None) -> Outcome:
        environment = {"PATH": "/usr/bin:/bin", "HOME": cwd, "LANG": "C.UTF-8", "TMPDIR": cwd,
                       "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        environment.update(env or {})
        start = time.monotonic()
        process = subprocess.Popen(self._prefix(limits) + list(argv), cwd=cwd, env=environment,
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

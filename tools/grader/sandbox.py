"""Runs a student's program (or the compiler on a student's file) in a sandbox.

As root, with namespaces (the normal case), each run is a bubblewrap sandbox (Debian's
`bwrap`, what Flatpak uses) around `setpriv` (a throwaway uid/gid of the job slot, no
capabilities, no new privileges) and `prlimit` (address space, CPU seconds, processes, file
size, open files):

- a private mount namespace in which only the system (/usr and the few /etc files the dynamic
  loader reads, read-only), the paths of the step's `View` and a private, bounded /tmp,
  /var/tmp and /dev/shm exist: no kit sources, goldens, classmates or grader output;
- a PID namespace: every process of the run, a daemon that forked and called setsid()
  included, dies with it (and /proc shows only the run's own processes);
- an IPC namespace: SysV shared memory, semaphores, message queues and POSIX message queues
  die with the run;
- no network (a fresh network namespace), a hostname of its own;
- a clean environment, its own session; what it prints is read as it comes and capped
  (the first and last KiB kept, the rest counted), never held whole in memory;
- for a program of the student's (`run(..., one_process=True)`), a seccomp filter that lets
  it start threads but no other process (fork, vfork, clone without CLONE_THREAD: EPERM;
  clone3 and io_uring_setup: ENOSYS, so that pthread_create falls back to clone): when the
  program exits, the kernel has ended every thread of it, and nothing of the sandbox is left
  to write its results or burn CPU. The results are sealed at its exit, not at the sandbox's
  end. Installed by bwrap (--seccomp) or, in the modes below, by a few lines of Python before
  setpriv: it holds without namespaces too.

`mode` says what the machine allows (kitlib.isolation): "bwrap" as above; "uid" when root but
namespaces are refused (a chroot, Docker's default seccomp profile): the uid change and the
limits only, and after each run every process of the uid is killed; "none" when not root: the
limits only, as the grader's own user. The grader refuses "uid" unless the instructor asks for
it (grade.py), since it loses the properties above.

A uid is claimed with a lock file held for the grader's lifetime, so two graders on one
machine (two instructors, or shards of one class) never share a uid.
"""

from __future__ import annotations

import fcntl
import glob
import os
import platform
import pwd
import signal
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kitlib.text import printable

UID_BASE = 61000  # throwaway uids 61000, 61001, ...: one per job slot, in no passwd file
UID_COUNT = 1000
LINK_GID = UID_BASE - 1  # the group that may read the kit's build (libraries) when linking
# Root's: one lock file per uid in use by a running grader. In /dev/shm, which graders in a
# chroot share with the host's where the chroot binds /dev (bare-debian-check, .ci/debian13),
# though each has a /tmp of its own: two graders there once ran one uid's programs at once.
# /tmp where there is no /dev/shm.
LOCKS = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp", "attn-grade-uids")
PRIVATE_TMP_BYTES = 64 << 20  # each of /tmp, /var/tmp, /dev/shm inside a run
# What the dynamic loader and the compiler read of /etc (Debian's alternatives choose
# OpenBLAS); nothing else of /etc is visible.
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
OUTPUT_HEAD, OUTPUT_TAIL = 8192, 4096  # bytes of a run's output kept: its first and last

# The one-process filter (classic BPF over struct seccomp_data: nr at 0, arch at 4, args[0]'s
# low 32 bits at 16). Per architecture: AUDIT_ARCH, fork, vfork, clone, clone3, io_uring_setup
# (None: no such call). io_uring is refused too: a ring's queued writes could run after the
# process that queued them has exited.
_SECCOMP_ARCH = {"x86_64": (0xC000003E, 57, 58, 56, 435, 425),
                 "aarch64": (0xC00000B7, None, None, 220, 435, 425)}
_CLONE_THREAD = 0x00010000
_RET_ALLOW, _RET_ERRNO, _RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_EPERM, _ENOSYS = 1, 38


def one_process_filter() -> bytes | None:
    """The seccomp program (struct sock_filter[]) that lets a program start threads but no
    process (nor an io_uring), for this machine's architecture; None where it is not known.
    A system call of another ABI (x86's int 0x80, x32) kills the process: no test program
    makes one."""
    arch = _SECCOMP_ARCH.get(platform.machine())
    if arch is None:
        return None
    audit_arch, fork, vfork, clone, clone3, io_uring_setup = arch
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JSET|K, RET|K
    # (op, label jumped to if true, if false, k): None goes on to the next instruction.
    code = [(ld, None, None, 4), (jeq, None, "kill", audit_arch), (ld, None, None, 0),
            (jset, "kill", None, 0x40000000)]  # x32's calls
    code += [(jeq, "eperm", None, nr) for nr in (fork, vfork) if nr is not None]
    code += [(jeq, "enosys", None, clone3), (jeq, "enosys", None, io_uring_setup),
             (jeq, "clone", None, clone),
             (ret, None, None, _RET_ALLOW)]
    labels = {"kill": len(code), "eperm": len(code) + 1, "enosys": len(code) + 2,
              "clone": len(code) + 3}
    code += [(ret, None, None, _RET_KILL_PROCESS), (ret, None, None, _RET_ERRNO | _EPERM),
             (ret, None, None, _RET_ERRNO | _ENOSYS),
             (ld, None, None, 16), (jset, None, "no thread", _CLONE_THREAD),
             (ret, None, None, _RET_ALLOW)]
    labels["no thread"] = len(code)  # BPF jumps forward only: a second EPERM
    code.append((ret, None, None, _RET_ERRNO | _EPERM))

    def offset(at, label):
        return 0 if label is None else labels[label] - at - 1

    return b"".join(struct.pack("=HBBI", op, offset(at, true), offset(at, false), k)
                    for at, (op, true, false, k) in enumerate(code))


# Installs the filter (hex in argv[1]) and execs argv[2:]: where bwrap does not run (modes
# "uid" and "none"). PR_SET_NO_NEW_PRIVS = 38, PR_SET_SECCOMP = 22, SECCOMP_MODE_FILTER = 2.
_FILTER_LOADER = """
import ctypes, os, sys
program = bytes.fromhex(sys.argv[1])
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
code = ctypes.create_string_buffer(program, len(program))
libc = ctypes.CDLL(None, use_errno=True)
if (libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(
        22, 2, ctypes.byref(Program(len(program) // 8, ctypes.addressof(code))), 0, 0) != 0):
    sys.exit("grader: the one-process filter could not be installed: "
             + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[2], sys.argv[2:])
"""
_SEAL_PROBLEMS: dict = {}  # mode -> why the one-process filter cannot be used ("" if it can)
_SEAL_LOCK = threading.RLock()  # re-entered by the probe's own run, on the same thread


def seal_problem(mode: str) -> str:
    """Why a run cannot be kept to one process in this sandbox mode ("" when it can): tried
    once per mode, as root's own uid (a thread starts, a fork fails)."""
    with _SEAL_LOCK:
        if mode in _SEAL_PROBLEMS:
            return _SEAL_PROBLEMS[mode]
        if one_process_filter() is None:
            _SEAL_PROBLEMS[mode] = f"no system call filter is known for {platform.machine()}"
            return _SEAL_PROBLEMS[mode]
        _SEAL_PROBLEMS[mode] = ""  # for the probe's own run
        probe = ("import os, sys, threading\n"
                 "t = threading.Thread(target=print); t.start(); t.join()\n"
                 "try:\n    os.fork()\nexcept PermissionError:\n    sys.exit(0)\n"
                 "sys.exit(3)")
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        sandbox = Sandbox("none")
        sandbox.mode = "bwrap" if mode == "bwrap" else "none"  # its own uid: no sweep
        ran = sandbox.run([python, "-I", "-S", "-c", probe], "/", Limits(wall_s=20),
                          one_process=True)
        _SEAL_PROBLEMS[mode] = "" if ran.status == "ok" else (
            f"the one-process filter did not hold ({ran.status}: "
            f"{printable(ran.output, one_line=True, limit=200)})")
        return _SEAL_PROBLEMS[mode]


@dataclass
class Outcome:
    # "ok" (exited 0), "failed" (exited non-zero), "crashed" (a signal), "timed-out"
    status: str
    returncode: int
    seconds: float
    output: str      # stdout + stderr, capped and printable: for people, never for a verdict
    why: str = ""    # for a crash or time-out, in words: "stopped after 20 s of CPU time"


@dataclass
class Limits:
    address_space: int | str = 2 << 30  # bytes, or "unlimited" (a CUDA program)
    cpu_s: int = 20
    nproc: int = 64                 # per uid: bounds a fork bomb (the uid is the slot's own)
    file_size: int = 64 << 20       # bytes
    open_files: int = 256
    wall_s: float = 20.0


@dataclass
class View:
    """What a sandboxed step sees besides the system: paths bound at their own place."""
    read_only: tuple = ()
    writable: tuple = ()
    devices: bool = False  # /dev's usual nodes (zero, urandom, shm); else /dev/null alone
    gpu: bool = False      # also the NVIDIA device nodes (/dev/nvidia*), for a CUDA program


def _uids_running() -> set:
    """The real uids of every live process on the machine. A zombie is left out: it runs
    nothing, holds nothing but its pid, and only its parent (maybe not ours) can reap it."""
    uids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue
        if "Uid" in fields and not fields.get("State", "").strip().startswith("Z"):
            uids.add(int(fields["Uid"].split()[0]))
    return uids


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


class _CappedOutput(threading.Thread):
    """Reads a pipe to its end, keeping the first OUTPUT_HEAD and last OUTPUT_TAIL bytes and
    counting the rest: 2 GiB printed by a student costs the grader 12 KiB."""

    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe, self.head, self.tail, self.dropped = pipe, bytearray(), bytearray(), 0

    def run(self):
        while chunk := self.pipe.read1(65536):
            room = max(0, OUTPUT_HEAD - len(self.head))
            self.head += chunk[:room]
            self.tail += chunk[room:]
            if len(self.tail) > OUTPUT_TAIL:
                self.dropped += len(self.tail) - OUTPUT_TAIL
                del self.tail[:-OUTPUT_TAIL]
        self.pipe.close()

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes not kept ...]\n" if self.dropped else ""
        return printable((bytes(self.head).decode("utf-8", "replace") + middle
                          + bytes(self.tail).decode("utf-8", "replace")))


def signal_in_words(number: int) -> str:
    """SIGSEGV (segmentation fault), SIGABRT (aborted), ..."""
    try:
        return f"{signal.Signals(number).name} ({signal.strsignal(number).lower()})"
    except ValueError:
        return f"signal {number}"


class Sandbox:
    def __init__(self, mode: str):
        """A sandbox of `mode` (kitlib.isolation) with a uid of its own, unless "none": the first of
        UID_BASE.. that no account, no process and no other grader's lock holds."""
        self.mode = mode
        self.uid, self.gid, self._lock = os.getuid(), os.getgid(), None
        if mode == "none":
            return
        os.makedirs(LOCKS, mode=0o700, exist_ok=True)
        running = _uids_running()
        for uid in range(UID_BASE, UID_BASE + UID_COUNT):
            if _has_account(uid) or uid in running:
                continue
            lock = open(os.path.join(LOCKS, str(uid)), "w")
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.close()
                continue
            self.uid = self.gid = uid
            self._lock = lock
            return
        raise RuntimeError(f"no free sandbox uid in {UID_BASE}..{UID_BASE + UID_COUNT - 1}")

    def release(self) -> None:
        """Gives the uid back to the machine's graders (else it is given back at exit)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @property
    def isolated(self) -> bool:
        return self.mode != "none"

    def give(self, path: str, mode: int = 0o700) -> None:
        """Makes `path` the sandbox user's own (its results folder, its working folder)."""
        if self.isolated:
            os.chown(path, self.uid, self.gid)
        os.chmod(path, mode)

    def _limits(self, limits: Limits) -> list:
        # CPU: SIGXCPU at the limit (its default ends the program), SIGKILL a second later for
        # one that handles SIGXCPU. With the two equal, the kernel sends SIGKILL first, which
        # cannot be told from the memory limit's.
        prlimit = ["prlimit", f"--as={limits.address_space}",
                   f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
                   f"--fsize={limits.file_size}", f"--nofile={limits.open_files}", "--core=0"]
        if self.isolated:  # NPROC counts the real uid's processes: the slot's own, so its own
            prlimit.append(f"--nproc={limits.nproc}")
        return prlimit + ["--"]

    def _setpriv(self, groups: tuple) -> list:
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}",
                f"--groups={','.join(map(str, groups))}" if groups else "--clear-groups",
                "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]

    @staticmethod
    def _bwrap(view: View, cwd: str, environment: dict) -> list:
        """bubblewrap's command line for one run: the namespaces, the system read-only, the
        view's paths, private bounded temporary folders; setpriv (in the sandbox) then needs
        CAP_SETUID/CAP_SETGID for the uid change, and drops every capability with it."""
        argv = ["bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
                "--ro-bind", "/usr", "/usr"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):  # merged /usr: /lib -> usr/lib
                argv += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                argv += ["--ro-bind", top, top]
        made = set()

        def parents_of(path: str) -> list:
            """bwrap makes a bind's missing parents 0700, which the uid could not pass:
            make them 0755 first."""
            steps = []
            for parent in reversed(Path(path).parents[:-1]):  # /srv, /srv/out, ... not /
                if str(parent) not in made:
                    made.add(str(parent))
                    steps += ["--perms", "0755", "--dir", str(parent)]
            return steps

        for path in ETC_FILES:
            if os.path.exists(path):
                argv += parents_of(path) + ["--ro-bind", path, path]
        argv += ["--proc", "/proc"]
        argv += ["--dev", "/dev"] if view.devices else ["--dev-bind", "/dev/null", "/dev/null"]
        if view.gpu:
            argv += [arg for node in sorted(glob.glob("/dev/nvidia*"))
                     for arg in ("--dev-bind", node, node)]
        for folder in ("/tmp", "/var/tmp") + (("/dev/shm",) if view.devices else ()):
            argv += ["--perms", "1777", "--size", str(PRIVATE_TMP_BYTES), "--tmpfs", folder]
        for path in view.read_only:
            argv += parents_of(str(path)) + ["--ro-bind", str(path), str(path)]
        for path in view.writable:
            argv += parents_of(str(path)) + ["--bind", str(path), str(path)]
        argv += ["--chdir", cwd, "--clearenv"]
        for name, value in environment.items():
            argv += ["--setenv", name, value]
        return argv + ["--"]

    def command(self, argv: list, cwd: str, limits: Limits, view: View, environment: dict,
                groups: tuple = (), seal_fd: int | None = None) -> list:
        """`seal_fd`: the one-process filter, bwrap's to read (--seccomp) or, in the other
        modes, a loader's to install, before the first program of the run starts."""
        if self.mode == "bwrap":
            bwrap = self._bwrap(view, cwd, environment)
            if seal_fd is not None:
                bwrap[-1:-1] = ["--seccomp", str(seal_fd)]
            return bwrap + self._setpriv(groups) + self._limits(limits) + list(argv)
        seal = [] if seal_fd is None else [sys.executable, "-I", "-S", "-c", _FILTER_LOADER,
                                           one_process_filter().hex()]
        if self.mode == "uid":
            return seal + self._setpriv(groups) + self._limits(limits) + list(argv)
        return seal + self._limits(limits) + list(argv)

    def run(self, argv: list, cwd: str, limits: Limits, view: View = View(),
            env: dict | None = None, groups: tuple = (), one_process: bool = False) -> Outcome:
        """`one_process`: a program of the student's. It may start threads but no process, so
        that its exit ends everything it started: what it leaves is final (sealed) the moment
        it exits, and no process of it outlives the run (where seal_problem() says it can)."""
        environment = {"PATH": "/usr/bin:/bin", "HOME": cwd, "LANG": "C.UTF-8", "TMPDIR": "/tmp",
                       "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        environment.update(env or {})
        seal_fd = None
        if one_process and not seal_problem(self.mode):
            seal_fd, write_end = os.pipe()
            os.write(write_end, one_process_filter())
            os.close(write_end)
        start = time.monotonic()
        # bwrap takes the environment from its --setenv options; the others inherit this one.
        try:
            process = subprocess.Popen(
                self.command(argv, cwd, limits, view, environment, groups, seal_fd),
                cwd=cwd, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True,
                pass_fds=() if seal_fd is None or self.mode != "bwrap" else (seal_fd,))
        finally:
            if seal_fd is not None:
                os.close(seal_fd)
        output = _CappedOutput(process.stdout)
        output.start()
        timed_out = False
        try:
            process.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # bwrap's death takes its PID namespace, and every process in it, along.
            self._kill_group(process.pid)
            process.wait()
            self.sweep()
        output.join(timeout=5)
        seconds = time.monotonic() - start
        code = process.returncode
        signal_number = -code if code < 0 else code - 128 if code > 128 else 0
        status, why = "ok", ""
        if timed_out:
            status, why = "timed-out", f"stopped after {limits.wall_s:g} s (wall clock)" + (
                f", within its {limits.cpu_s} s of CPU time: it waits for something, or the "
                f"machine is overloaded" if limits.cpu_s < limits.wall_s else "")
        elif signal_number:
            status = "crashed"  # SIGSEGV, SIGKILL (memory, CPU limit), SIGABRT, ...
            why = f"crashed: {signal_in_words(signal_number)}"
            # Only RLIMIT_CPU sends SIGXCPU: threads that spin together reach it before the
            # wall clock does (2 threads in half the time). A SIGKILL is the CPU limit only
            # when the run lasted that long.
            if signal_number == signal.SIGXCPU or (
                    signal_number == signal.SIGKILL and limits.cpu_s <= seconds + 1):
                status, why = "timed-out", f"stopped after {limits.cpu_s} s of CPU time"
        elif code != 0:
            status = "failed"
        return Outcome(status, code, seconds, output.text(), why)

    @staticmethod
    def _kill_group(pid: int) -> None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def sweep(self) -> None:
        """Waits until the slot's uid has no process left, killing them without namespaces
        (a fork bomb's children fork while they are killed: kill until none is left). With
        bwrap the PID namespace is already gone; its processes may take a moment to be reaped."""
        if not self.isolated or self.uid == 0:  # seal_problem's probe runs as root
            return
        for _ in range(1000):
            if self.uid not in _uids_running():
                return
            if self.mode == "uid":
                subprocess.run(["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}",
                                "--clear-groups", "/bin/kill", "-9", "-1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            time.sleep(0.01)
        raise RuntimeError(f"uid {self.uid} still has processes after 1000 rounds")

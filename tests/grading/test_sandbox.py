#!/usr/bin/env python3
"""tests/grading/test_sandbox.py — tools/grade's sandbox and Gradescope split, without a build.

  python3 tests/grading/test_sandbox.py               (ctest: kit.grade_sandbox)
  python3 tests/grading/test_sandbox.py --namespaces  (ctest: kit.grade_sandbox_namespaces)

The first: split() (an exercise's points shared over its tests add up exactly, to 0.01); the
toolchain's folders a compile sees; a run's limit is CPU time, the wall clock its backstop; as
root, two sandboxes never share a uid; kitbuild.lock_down, the sandbox's only protection where
namespaces are refused, leaves a program of the sandbox uid able to read the kit's headers but
not a solution's source, and the build's files only with the link step's group.

The second, the bubblewrap sandbox's promises, each tested: the uid is the slot's; the view is
all a run sees (no kit, no /etc/passwd, no other process in /proc); /tmp and /dev/shm are
private, empty, bounded and gone afterwards; a daemon (fork, setsid, fork) dies with the run;
SysV IPC objects die with it; no network; open files and output are capped; results are sealed
when the program exits: attacks/rewrites_results.cpp, whose static initializer starts a daemon
that rewrites the results in a tight loop once the runner has exited (and one that burns CPU),
run 20 times each, must never change them, nor leave a process, while the same attack without
the one-process filter gets through (it did in 8 of 10 runs here). Where this machine refuses
namespaces (a chroot, Docker's default profile) it exits 77, which ctest reports as "Not Run",
never as passed. Standard library only.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))

from grader import kitbuild  # noqa: E402  (after the path is set)
from grader.grade import GPU_TRACK_THREADS, Grader, run_limits  # noqa: E402
from grader.reports import split  # noqa: E402
from grader import sandbox as sandbox_module  # noqa: E402
from grader.sandbox import (LINK_GID, OUTPUT_HEAD, OUTPUT_TAIL, UID_BASE, Limits,  # noqa: E402
                            Outcome, Sandbox, View, seal_problem)
from kitlib.isolation import namespaces_problem  # noqa: E402

AS_ROOT = os.geteuid() == 0


class SplitTest(unittest.TestCase):
    def test_parts_add_up_exactly(self):
        for amount, weights in ((10, [5, 3, 3]), (3.33, [1, 1, 1]), (7.77, [16, 581]),
                                (20, [1, 2]), (0.01, [1, 1, 1])):
            parts = split(amount, weights)
            self.assertEqual(len(parts), len(weights))
            self.assertAlmostEqual(sum(parts), amount, places=9)
            self.assertTrue(all(round(part, 2) == part for part in parts))

    def test_no_weight_gives_all_to_the_last(self):
        self.assertEqual(split(0, [0, 0]), [0.0, 0.0])
        self.assertEqual(split(4, []), [])


@unittest.skipUnless(AS_ROOT, "the sandbox changes uid: root only")
class ToolchainTest(unittest.TestCase):
    """The compilers' own folders are in the sandbox when they are outside the system's: a GPU
    image's nvcc with /opt/gcc/bin/g++ as its host compiler (seen on a lent H100 machine:
    every student's file failed with "/opt/gcc/bin/g++: No such file or directory")."""

    def setUp(self):
        self.top = Path(tempfile.mkdtemp(prefix="attn-toolchain-test."))
        self.addCleanup(shutil.rmtree, self.top)

    def compiler(self, relative: str) -> str:
        path = self.top / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return str(path)

    def commands(self, compile_argv, link_argv):
        return kitbuild.ExerciseCommands(compile_argv, [], link_argv, [], [])

    def test_host_compiler_and_linker_prefixes(self):
        nvcc = self.compiler("cuda/bin/nvcc")
        gcc = self.compiler("gcc/bin/g++")
        for host in (["-ccbin", gcc], [f"-ccbin={gcc}"], [f"--compiler-bindir={gcc}"]):
            with self.subTest(host=host):
                found = kitbuild.toolchain_dirs(self.commands([nvcc, *host, "-c", "s.cu"],
                                                              [gcc, "s.o", "-o", "p"]))
                self.assertEqual(found, [self.top / "cuda", self.top / "gcc"])

    def test_links_are_followed_and_kept(self):
        real = self.compiler("opt/cuda-13/bin/nvcc")
        (self.top / "cuda").symlink_to(self.top / "opt" / "cuda-13")
        found = kitbuild.toolchain_dirs(self.commands([str(self.top / "cuda/bin/nvcc")],
                                                      ["/usr/bin/g++"]))
        self.assertEqual(found, [self.top / "cuda", Path(real).parents[1]])  # named, real

    def test_system_compilers_need_nothing(self):
        self.assertEqual(kitbuild.toolchain_dirs(self.commands(["/usr/bin/g++", "-c"],
                                                               ["/usr/bin/g++"])), [])


class StudentLinkTest(unittest.TestCase):
    """A library folder holding a dangling link does not stop a student's link. The GPU image's
    /opt/gcc/lib/gcc/.../libstdc++.so points nowhere; ld and lld search on, gold stopped there,
    and every student of a class graded on the H100 machine failed to link."""

    def test_a_dangling_library_link_is_passed_over(self):
        top = Path(tempfile.mkdtemp(prefix="attn-link-test."))
        self.addCleanup(shutil.rmtree, top)
        (top / "lib").mkdir()
        (top / "lib" / "libstdc++.so").symlink_to("../nowhere/libstdc++.so.6")
        (top / "main.cpp").write_text("#include <string>\nint main() { return "
                                      "static_cast<int>(std::string(\"ok\").size()) - 2; }\n")
        subprocess.run(["g++", "-c", str(top / "main.cpp"), "-o", str(top / "main.o")],
                       check=True)
        commands = kitbuild.ExerciseCommands([], [], ["g++", f"-L{top / 'lib'}", kitbuild.OBJECT,
                                                      "-o", kitbuild.PROGRAM], [], [])
        which = shutil.which
        for lld in (True, False):  # the grader's packages bring lld; a GPU image has none
            with self.subTest(lld=lld), mock.patch.object(
                    kitbuild.shutil, "which",
                    lambda name, **kw: which(name, **kw) if lld or name != "ld.lld" else None):
                program = top / f"program-{lld}"
                argv = kitbuild.student_link(commands, str(top / "main.o"), str(program))
                linked = subprocess.run(argv, capture_output=True, text=True)
                self.assertEqual(linked.returncode, 0, linked.stderr)
                self.assertEqual(subprocess.run([str(program)]).returncode, 0)


class RunLimitsTest(unittest.TestCase):
    """A test program's time limit is CPU time: a busy grading machine (here a run that waits,
    as one waits for a core) slows it without failing it; the wall clock ends one that waits
    for ever, and bounds a CUDA run, whose kernels' time is not CPU time."""

    def test_cpu_time_bounds_a_run_the_wall_clock_backs_it_up(self):
        limits = run_limits(8, 40, cuda=False)
        self.assertEqual((limits.cpu_s, limits.wall_s), (8, 40))
        self.assertEqual(run_limits(0.5, 2.5, cuda=False).cpu_s, 1)
        cuda = run_limits(20, 100, cuda=True)
        self.assertEqual((cuda.cpu_s, cuda.wall_s, cuda.address_space), (20, 20, "unlimited"))

    def test_a_run_that_waits_within_its_cpu_time_passes(self):
        with tempfile.TemporaryDirectory(prefix="attn-limits-test.") as folder:
            sandbox = Sandbox("none")
            waits = sandbox.run(["/bin/sh", "-c", "sleep 2; echo done"], folder,
                                run_limits(1, 5, cuda=False))
            self.assertEqual((waits.status, waits.output.strip()), ("ok", "done"), waits.why)
            spins = sandbox.run(["/bin/sh", "-c", "while :; do :; done"], folder,
                                run_limits(1, 5, cuda=False))
            self.assertEqual(spins.status, "timed-out")
            self.assertEqual(spins.why, "stopped after 1 s of CPU time")
            stuck = sandbox.run(["/bin/sh", "-c", "sleep 60"], folder,
                                run_limits(0.4, 2, cuda=False))
            self.assertEqual(stuck.status, "timed-out")
            self.assertIn("stopped after 2 s (wall clock), within its 1 s of CPU time", stuck.why)


class ExitInWordsTest(unittest.TestCase):
    """A run that exited in the middle of a case: the student reads its status, its last line
    and, when that line says threads ran out, the limit it met."""

    def test_a_thread_limit_exit_names_the_limit(self):
        ran = Outcome("failed", 1, 0.2, "case 3\nlibgomp: Thread creation failed: Resource "
                                        "temporarily unavailable\n")
        self.assertEqual(
            Grader.exit_in_words(ran, gpu=True),
            "the program exited with status 1 (its last words: libgomp: Thread creation failed: "
            f"Resource temporarily unavailable): a test program may run {Limits().nproc} "
            f"threads and processes in all, and a GPU-track kernel gets {GPU_TRACK_THREADS} "
            "OpenMP threads")

    def test_another_exit_says_only_what_it_printed(self):
        ran = Outcome("failed", 3, 0.2, "bye\n")
        self.assertEqual(Grader.exit_in_words(ran, gpu=False),
                         "the program exited with status 3 (its last words: bye)")


class UidTest(unittest.TestCase):
    """The uid a sandbox takes, with a lock folder and a view of the running uids of the test's
    own: another grader on this machine (CI's Debian 13 stage runs beside the main one) takes
    uids from the same pool and would make the answers here a matter of timing."""

    def setUp(self):
        locks = tempfile.TemporaryDirectory(prefix="attn-uid-test.")
        self.addCleanup(locks.cleanup)
        self.running = set()
        for name, value in (("LOCKS", locks.name), ("_uids_running", lambda: self.running)):
            patcher = mock.patch.object(sandbox_module, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def take(self) -> Sandbox:
        taken = Sandbox("uid")
        self.addCleanup(taken.release)
        return taken

    def test_two_sandboxes_never_share_a_uid(self):
        first, second = self.take(), self.take()
        self.assertEqual((first.uid, second.uid), (UID_BASE, UID_BASE + 1))
        first.release()
        third = self.take()
        self.assertEqual(third.uid, UID_BASE, "a released uid is taken again")
        self.assertNotEqual(third.uid, second.uid)

    def test_a_uid_some_process_runs_as_is_passed_over(self):
        self.running.add(UID_BASE)  # a process of a grader that died, say
        self.assertEqual(self.take().uid, UID_BASE + 1)


class LockDownTest(unittest.TestCase):
    """Runs programs as a sandbox uid: one from the machine's real pool, as the grader takes."""

    def test_lock_down_hides_the_answers(self):
        with tempfile.TemporaryDirectory() as top:
            os.chmod(top, 0o711)
            source, build = Path(top, "src"), Path(top, "build")
            for path, text in ((source / "include" / "attn" / "api.hpp", "// header"),
                               (source / "solutions" / "01.cpp", "// the answer"),
                               (source / "reference_data" / "MANIFEST.json", "{}"),
                               (build / "libex01_solutions.a", "archive"),
                               (build / "pch" / "cmake_pch.hxx", "// pch")):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            kitbuild.lock_down([source, build], [source / "include", build / "pch"], LINK_GID)
            sandbox = Sandbox("uid")  # what is left where namespaces are refused
            self.addCleanup(sandbox.release)

            def readable(path, groups=()):
                return sandbox.run(["/bin/cat", str(path)], top, Limits(wall_s=10),
                                   groups=groups).status == "ok"

            self.assertTrue(readable(source / "include" / "attn" / "api.hpp"))
            self.assertTrue(readable(build / "pch" / "cmake_pch.hxx"))
            self.assertFalse(readable(source / "solutions" / "01.cpp"))
            self.assertFalse(readable(source / "reference_data" / "MANIFEST.json"))
            self.assertFalse(readable(build / "libex01_solutions.a"))
            self.assertTrue(readable(build / "libex01_solutions.a", groups=(LINK_GID,)))
            self.assertFalse(readable(source / "solutions" / "01.cpp", groups=(LINK_GID,)))


ATTACK = KIT / "tests" / "grading" / "attacks" / "rewrites_results.cpp"
SEALED_RUNS = 20


def build_attack(folder: str) -> Path:
    """attacks/rewrites_results.cpp compiled into `folder` (the kit's C++ compiler)."""
    program = Path(folder, "rewrites_results")
    subprocess.run([os.environ.get("CXX", "g++"), "-std=c++17", "-O1", "-o", str(program),
                    str(ATTACK)], check=True)
    os.chmod(program, 0o755)
    return program


def attack_once(sandbox: Sandbox, folder: str, program: Path, burn: bool,
                one_process: bool = True) -> tuple:
    """One run of the attack in a fresh work folder: (what its result says, whether its fork
    was refused, the Outcome)."""
    work = Path(folder, "attack")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    sandbox.give(str(work))
    ran = sandbox.run([str(program)], str(work), Limits(wall_s=10, cpu_s=5),
                      View(read_only=(program,), writable=(work,)),
                      env={"ATTACK_BURN": "1"} if burn else {}, one_process=one_process)
    result = (work / "results" / "case_1" / "out.txt").read_text()
    return result, (work / "fork-refused").exists(), ran


def uids_processes(uid: int) -> list:
    """The live processes of `uid`. A zombie runs nothing: the kernel reaps those of an ended
    PID namespace a moment after its init (as Sandbox.sweep, which leaves them out)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            status = Path("/proc", entry, "status").read_text()
        except OSError:
            continue
        lines = status.splitlines()
        if any(line.startswith("Uid:") and line.split()[1] == str(uid) for line in lines) \
                and not any(line.startswith("State:") and line.split()[1] in "ZX"
                            for line in lines):
            found.append(entry)
    return found


class SealedResultsMixin:
    """The attack, SEALED_RUNS times per variant: the result is the runner's, its fork was
    refused, no process of the uid is left; and the control: the same sandbox without the
    one-process filter lets the daemon forge the result (else this test could not fail)."""
    mode = "bwrap"

    def test_results_are_sealed_when_the_runner_exits(self):
        if seal_problem(self.mode):
            self.skipTest(seal_problem(self.mode))
        sandbox = Sandbox(self.mode)
        self.addCleanup(sandbox.release)
        with tempfile.TemporaryDirectory(prefix="attn-seal-test.") as folder:
            os.chmod(folder, 0o711)
            program = build_attack(folder)
            start = time.monotonic()
            for burn in (False, True):
                for run in range(SEALED_RUNS):
                    result, refused, ran = attack_once(sandbox, folder, program, burn)
                    where = f"run {run + 1} of {SEALED_RUNS}{' (burning CPU)' if burn else ''}"
                    self.assertEqual((ran.status, result), ("ok", "real\n"), where)
                    self.assertTrue(refused, f"{where}: its fork was not refused")
                    self.assertEqual(uids_processes(sandbox.uid), [], where)
            sealed_s = time.monotonic() - start
            forged = 0
            for _ in range(SEALED_RUNS):
                result, refused, _ = attack_once(sandbox, folder, program, False, False)
                self.assertFalse(refused)
                if result != "real\n":
                    forged += 1
                    break
            sandbox.sweep()  # in mode "uid", the unsealed daemons are killed by uid
            self.assertEqual(forged, 1, "without the filter the daemon never got through: "
                             "this test shows nothing")
            print(f"\n{2 * SEALED_RUNS} sealed runs of the attack ({self.mode}) in "
                  f"{sealed_s:.2f} s", file=sys.stderr)


@unittest.skipUnless(AS_ROOT, "the sandbox changes uid: root only")
class SealedWithoutNamespacesTest(SealedResultsMixin, unittest.TestCase):
    """What holds where namespaces are refused (mode "uid"): the same filter, installed by
    the grader's loader; no PID namespace."""
    mode = "uid"


class BubblewrapTest(SealedResultsMixin, unittest.TestCase):
    """Runs only with --namespaces (main() below decides whether they can run here)."""

    @classmethod
    def setUpClass(cls):
        cls.sandbox = Sandbox("bwrap")
        cls.folder = tempfile.mkdtemp(prefix="attn-sandbox-test.")
        os.chmod(cls.folder, 0o711)
        cls.work = Path(cls.folder, "work")
        cls.work.mkdir()
        cls.sandbox.give(str(cls.work))

    @classmethod
    def tearDownClass(cls):
        # Nothing of the sandbox's uid may outlive the test (leftovers.py would see it).
        cls.sandbox.sweep()
        cls.sandbox.release()
        shutil.rmtree(cls.folder)

    def run_sh(self, script, view=None, **limits):
        view = view or View(writable=(self.work,), devices=True)
        return self.sandbox.run(["/bin/sh", "-c", script], str(self.work),
                                Limits(**({"wall_s": 10} | limits)), view)

    def test_runs_as_the_slots_uid(self):
        ran = self.run_sh("id -u; id -G")
        self.assertEqual(ran.output.split(), [str(self.sandbox.uid), str(self.sandbox.gid)])

    def test_sees_only_the_system_and_its_view(self):
        hidden = Path(self.folder, "answers")
        hidden.mkdir()
        (hidden / "secret.txt").write_text("42")
        os.chmod(hidden, 0o755)
        os.chmod(hidden / "secret.txt", 0o644)  # readable by mode: only the view hides it
        for path in (hidden / "secret.txt", KIT / "solutions", KIT / "exercises.json",
                     Path("/etc/passwd"), Path("/root"), Path("/home"), Path("/run/lock")):
            self.assertEqual(self.run_sh(f"ls -d {path}").status, "failed", f"{path} is seen")
        shown = self.run_sh(f"cat {hidden}/secret.txt",
                            View(read_only=(hidden,), writable=(self.work,)))
        self.assertEqual((shown.status, shown.output), ("ok", "42"))
        written = self.run_sh(f"echo x > {hidden}/new.txt",
                              View(read_only=(hidden,), writable=(self.work,)))
        self.assertEqual(written.status, "failed", "a read-only view was written")
        processes = self.run_sh("ls /proc | grep -c '^[0-9]'")
        self.assertLessEqual(int(processes.output), 4, "other processes are visible in /proc")

    def test_tmp_and_shm_are_private_bounded_and_gone(self):
        marker = f"attn-sandbox-test-{os.getpid()}"
        wrote = self.run_sh(f"ls -A /tmp /dev/shm /var/tmp; echo x > /tmp/{marker}; "
                            f"echo x > /dev/shm/{marker}")
        self.assertEqual(wrote.status, "ok", wrote.output)
        own = [Path(self.folder).name] if self.folder.startswith("/tmp/") else []
        self.assertEqual(wrote.output.split(), ["/dev/shm:", "/tmp:", *own, "/var/tmp:"],
                         "a run's /tmp, /var/tmp or /dev/shm does not start empty")
        self.assertFalse(Path("/tmp", marker).exists(), "a run's /tmp outlived it")
        self.assertFalse(Path("/dev/shm", marker).exists(), "a run's /dev/shm outlived it")
        again = self.run_sh(f"cat /tmp/{marker}")
        self.assertEqual(again.status, "failed", "the next run saw the last one's /tmp")
        full = self.run_sh("head -c 100000000 /dev/zero > /tmp/big; echo $?",
                           file_size=1 << 30)
        self.assertNotEqual(full.output.strip(), "0", "/tmp took 100 MB")

    def test_a_daemon_dies_with_the_run(self):
        ran = self.run_sh("(setsid sh -c 'sleep 60' >/dev/null 2>&1 &); echo started")
        self.assertEqual((ran.status, ran.output.strip()), ("ok", "started"))
        self.assertEqual(uids_processes(self.sandbox.uid), [], "a daemon outlived its run")

    def test_a_time_out_kills_everything(self):
        ran = self.run_sh("(setsid sh -c 'sleep 60' &); sleep 60", wall_s=1)
        self.assertEqual(ran.status, "timed-out")
        self.assertIn("wall clock", ran.why)
        self.assertEqual(uids_processes(self.sandbox.uid), [])

    def test_ipc_objects_die_with_the_run(self):
        before = {name: Path("/proc/sysvipc", name).read_text().count("\n")
                  for name in ("shm", "msg", "sem")}
        made = self.run_sh("ipcmk -M 4096 && ipcmk -Q && ipcmk -S 1 && ipcs | grep -c 0x")
        self.assertEqual(made.status, "ok", made.output)
        after = {name: Path("/proc/sysvipc", name).read_text().count("\n") for name in before}
        self.assertEqual(after, before, "a SysV IPC object outlived its run")

    def test_no_network(self):
        # Only a loopback of its own: nothing outside is reachable (192.0.2.1: TEST-NET-1).
        ran = self.run_sh("python3 -c \"import socket; "
                          "socket.create_connection(('192.0.2.1', 80), timeout=2)\"")
        self.assertEqual(ran.status, "failed")
        self.assertIn("unreachable", ran.output.lower())

    def test_open_files_and_output_are_capped(self):
        opened = self.run_sh("python3 -c \"import os\nfiles = []\ntry:\n  while True: "
                             "files.append(os.open('/dev/null', os.O_RDONLY))\n"
                             "except OSError: print(len(files))\"", open_files=64)
        self.assertEqual(opened.status, "ok", opened.output)
        self.assertLess(int(opened.output), 64)
        loud = self.run_sh("head -c 50000000 /dev/zero | tr '\\0' 'x'; echo; echo the-end")
        self.assertEqual(loud.status, "ok")
        self.assertLess(len(loud.output), OUTPUT_HEAD + OUTPUT_TAIL + 100)
        self.assertIn("bytes not kept", loud.output)
        self.assertTrue(loud.output.rstrip().endswith("the-end"), "the last lines are kept")

    def test_control_characters_are_not_passed_on(self):
        ran = self.run_sh("printf 'a\\033[31mb\\000c\\n'")
        self.assertEqual(ran.output, "a?[31mb?c\n")


def main() -> int:
    if "--namespaces" not in sys.argv:
        unittest.main(defaultTest=[name for name, value in globals().items()
                                   if isinstance(value, type)
                                   and issubclass(value, unittest.TestCase)
                                   and value is not BubblewrapTest])
    sys.argv.remove("--namespaces")
    problem = "not root: the sandbox changes uid" if not AS_ROOT else namespaces_problem()
    if problem:
        print(f"the bubblewrap sandbox's checks NOT RUN: {problem}")
        return 77  # ctest's SKIP_RETURN_CODE: "Not Run", never "Passed"
    unittest.main(defaultTest="BubblewrapTest")


if __name__ == "__main__":
    sys.exit(main())

"""The pristine kit, built once per grading run, and the commands that put a student in it.

The kit's git HEAD (never the working tree) is exported to OUT/.kit-src and built in
OUT/.kit-build with its own stubs as the exercises: the judge, the kit libraries, every
exNN_tests object and the earlier exercises' solutions. A student's exercise file is then
compiled with the exact command the kit's build uses for the stub (compile_commands.json), and
test_exNN_exercises is linked with the exact link line (`ninja -t commands`), the student's
object in place of libexNN_exercises.a: one compile failure costs that exercise only.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


KIT = Path(__file__).resolve().parents[2]
BUILT_STAMP = ".grader-built"  # in .kit-build: the commit a finished build is of


class BuildError(Exception):
    pass


def catalogue() -> dict:
    """The kit's exercises.json: "exercises" in course order and "settings"."""
    return json.loads((KIT / "exercises.json").read_text(encoding="utf-8"))


@dataclass
class ExerciseCommands:
    compile: list   # argv; the stub's source and object are replaced per student
    stub_source: str
    stub_object: str
    link: list      # argv; the stub's library and the output are replaced per student
    stub_library: str
    stub_program: str


def git_head(kit: Path) -> str:
    return subprocess.run(["git", "-C", str(kit), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def export_head(kit: Path, source: Path) -> str:
    """Writes the files of the kit's HEAD commit to `source`; returns the commit."""
    head = git_head(kit)
    stamp = source / ".grader-head"
    if stamp.is_file() and stamp.read_text().strip() == head:
        return head
    if source.exists():
        shutil.rmtree(source)
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(kit), "archive", "--format=tar", head],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    stamp.write_text(head + "\n")
    return head


def prepare(folder: Path, exercises: list, jobs: int) -> str:
    """Exports the kit's HEAD to FOLDER/.kit-src and builds it in FOLDER/.kit-build (log:
    FOLDER/build.log), both readable by the sandbox user; returns the commit. The build is
    then stamped finished, so the tasks of `tools/grade slurm` can reuse it (reuse())."""
    source, build_dir = folder / ".kit-src", folder / ".kit-build"
    (build_dir / BUILT_STAMP).unlink(missing_ok=True)
    head = export_head(KIT, source)
    with open(folder / "build.log", "w", encoding="utf-8") as log:
        os.chmod(folder / "build.log", 0o600)
        build(source, build_dir, exercises, jobs, log)
    for path in (source, build_dir):
        os.chmod(path, 0o755)
    (build_dir / BUILT_STAMP).write_text(head + "\n")
    return head


def reuse(folder: Path) -> str:
    """The commit of a kit prepare() finished in FOLDER, if it is the kit's HEAD. Nothing is
    rebuilt: the shards of one class may use it at the same time, and two ninjas in one build
    folder corrupt its logs."""
    head = git_head(KIT)
    stamp = folder / ".kit-build" / BUILT_STAMP
    if not stamp.is_file():
        raise BuildError(f"no finished kit build in {folder} (tools/grade slurm builds one "
                         f"before it submits)")
    built = stamp.read_text().strip()
    if built != head:
        raise BuildError(f"the kit build in {folder} is of commit {built[:10]}, the kit's HEAD "
                         f"is {head[:10]}: build it again (run tools/grade slurm again)")
    return head


def build(source: Path, build_dir: Path, exercises: list, jobs: int, log) -> None:
    """Configures and builds the pristine kit."""
    if not (build_dir / "build.ninja").is_file():
        configure = ["cmake", "-S", str(source), "-B", str(build_dir), "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                     f"-DATTN_EXERCISES_DIR={source / 'exercises'}"]
        _run(configure, log)
    targets = ["attn_judge"] + [f"test_ex{ex['id']}_exercises" for ex in exercises]
    _run(["ninja", "-C", str(build_dir), f"-j{jobs}"] + targets, log)


def _run(argv, log):
    done = subprocess.run(argv, capture_output=True, text=True)
    log.write(f"$ {shlex.join(argv)}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        raise BuildError(f"the pristine kit does not build ({shlex.join(argv[:3])} ...):\n"
                         f"{(done.stdout + done.stderr)[-3000:]}")


def commands(source: Path, build_dir: Path, exercise: dict) -> ExerciseCommands:
    stub_source = str(source / "exercises" / Path(exercise["stub"]).name)
    entries = json.loads((build_dir / "compile_commands.json").read_text())
    compile_argv = None
    for entry in entries:
        if entry["file"] == stub_source and f"ex{exercise['id']}_exercises.dir" in entry["command"]:
            compile_argv = shlex.split(entry["command"])
    if compile_argv is None:
        raise BuildError(f"no compile command for {stub_source} in {build_dir}")
    stub_object = compile_argv[compile_argv.index("-o") + 1]
    program = f"test_ex{exercise['id']}_exercises"
    lines = subprocess.run(["ninja", "-C", str(build_dir), "-t", "commands", program],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    link_line = lines[-1].strip()
    if link_line.startswith(": &&"):
        link_line = link_line[len(": &&"):]
    if link_line.endswith("&& :"):
        link_line = link_line[:-len("&& :")]
    link_argv = shlex.split(link_line)
    library = f"libex{exercise['id']}_exercises.a"
    if library not in link_argv:
        raise BuildError(f"the link line of {program} has no {library}: {link_line}")
    return ExerciseCommands(compile_argv, stub_source, stub_object, link_argv, library,
                            link_argv[link_argv.index("-o") + 1])


def student_compile(cmds: ExerciseCommands, source: str, obj: str) -> list:
    argv = list(cmds.compile)
    argv[argv.index("-o") + 1] = obj
    argv[argv.index(cmds.stub_source)] = source
    return argv


def student_link(cmds: ExerciseCommands, obj: str, program: str) -> list:
    argv = list(cmds.link)
    argv[argv.index(cmds.stub_library)] = obj
    argv[argv.index("-o") + 1] = program
    return argv

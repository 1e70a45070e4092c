"""The pristine kit, built once per grading run, and the commands that put a student in it.

The kit's git HEAD (never the working tree) is exported to OUT/.kit-src and built in
OUT/.kit-build with its own stubs as the exercises: the judge, the kit libraries, every
exNN_tests object and the earlier exercises' solutions. That build writes each exercise's
build recipe (recipes/, cmake/attn_record_step.py): the stub's compile and its test program's
link exactly as CMake ran them, with the source, object and program as placeholders. A
student's exercise file is compiled and test_exNN_exercises linked from that recipe, the
student's object in place of libexNN_exercises.a: one compile failure costs that exercise
only. Nothing here parses or edits a command line.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import kitlib.catalogue
from kitlib import precompiled

from .sandbox import LINK_GID

KIT = Path(__file__).resolve().parents[2]
BUILT_STAMP = ".grader-built"  # in .kit-build: the commit a finished build is of
JUDGE_BUILD = ".judge-build"  # beside .kit-build: the judge, optimised; never in a sandbox


class BuildError(Exception):
    pass


def catalogue() -> dict:
    """The kit's exercises.json: "exercises" in course order and "settings" (format_version
    checked: kitlib.catalogue)."""
    return kitlib.catalogue.load(KIT)


@dataclass
class ExerciseCommands:
    """One exercise's build recipe: its two commands, with placeholders (fill())."""
    compile: list             # argv: SOURCE compiled to OBJECT
    compile_reads: list       # what it reads: include folders, the precompiled header
    link: list                # argv: the test program (PROGRAM) with OBJECT for the stub
    link_reads: list          # what it reads: objects and libraries, by absolute path
    solution_archives: list   # the earlier exercises' solutions among them
    stub_library: str = ""    # the stub's library the kit's build linked (its declarations)
    api_archives: list = ()   # kit libraries a student's file may call (the GPU backend)


# A kit without .git (Gradescope's copy, unzipped from `tools/grade gradescope-zip`) names the
# commit it was made from in this file; its files are that commit's.
COMMIT_FILE = "KIT_COMMIT"


def git_head(kit: Path) -> str:
    return subprocess.run(["git", "-C", str(kit), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def kit_commit(kit: Path) -> str:
    """The commit the kit's pristine files are: git's HEAD, or an autograder copy's COMMIT_FILE."""
    if (kit / ".git").exists():
        return git_head(kit)
    if (kit / COMMIT_FILE).is_file():
        return (kit / COMMIT_FILE).read_text().strip()
    raise BuildError(f"{kit} is neither a git checkout nor an autograder copy with "
                     f"{COMMIT_FILE}: there is no pristine kit to grade against")


def extract_head(kit: Path, head: str, folder: Path) -> None:
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(kit), "archive", "--format=tar", head],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)


def sync_tree(fresh: Path, target: Path) -> None:
    """Makes `target` hold exactly `fresh`'s files, rewriting only those whose bytes differ
    (the others keep their times, so ninja sees them unchanged)."""
    wanted = {path.relative_to(fresh) for path in fresh.rglob("*")}
    for path in sorted(target.rglob("*"), reverse=True):  # the deepest first
        relative = path.relative_to(target)
        stale = relative not in wanted or path.is_symlink() or \
            path.is_dir() != (fresh / relative).is_dir()
        if stale:
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for relative in sorted(wanted):
        new, old = fresh / relative, target / relative
        if new.is_dir() and not new.is_symlink():
            old.mkdir(exist_ok=True)
        elif new.is_symlink():
            old.symlink_to(os.readlink(new))
        elif not old.is_file() or old.read_bytes() != new.read_bytes():
            old.unlink(missing_ok=True)
            shutil.copy2(new, old)
            os.utime(old)  # newer than what was built from the old version


def export_head(kit: Path, source: Path) -> str:
    """Writes the files of the kit's HEAD commit to `source`; returns the commit."""
    versioned = (kit / ".git").exists()
    head = kit_commit(kit)
    stamp = source / ".grader-head"
    if stamp.is_file() and stamp.read_text().strip() == head:
        return head
    if versioned and source.is_dir():
        # Only the files that changed are written again: the build then recompiles what the
        # new commit changed, not everything (tools/kit test keeps one export across commits).
        fresh = source.with_name(source.name + ".new")
        shutil.rmtree(fresh, ignore_errors=True)
        extract_head(kit, head, fresh)
        sync_tree(fresh, source)
        shutil.rmtree(fresh)
    elif versioned:
        extract_head(kit, head, source)
    else:
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(kit, source, symlinks=True, ignore=lambda folder, names: [
            name for name in names if Path(folder) == kit and
            (name in ("build", ".kit", "autograder") or name.startswith("build-"))])
    stamp.write_text(head + "\n")
    return head


def prepare(folder: Path, exercises: list, jobs: int) -> str:
    """Exports the kit's HEAD to FOLDER/.kit-src and builds it in FOLDER/.kit-build (log:
    FOLDER/build.log), as root, then locked down for the sandbox (lock_down); returns the
    commit. The build is
    then stamped finished, so the tasks of `tools/grade slurm` can reuse it (reuse())."""
    source, build_dir = folder / ".kit-src", folder / ".kit-build"
    (build_dir / BUILT_STAMP).unlink(missing_ok=True)
    head = export_head(KIT, source)
    with open(folder / "build.log", "w", encoding="utf-8") as log:
        os.chmod(folder / "build.log", 0o600)
        build(source, build_dir, exercises, jobs, log)
    (build_dir / BUILT_STAMP).write_text(head + "\n")
    if os.geteuid() == 0:  # the sandbox's uids: see lock_down
        readable = [path for ex in exercises for path in
                    compile_inputs(commands(build_dir, ex), [source, build_dir])]
        lock_down([source, build_dir], readable, LINK_GID)
        os.chmod(folder / JUDGE_BUILD, 0o700)
    return head


def reuse(folder: Path) -> str:
    """The commit of a kit prepare() finished in FOLDER, if it is the kit's HEAD. Nothing is
    rebuilt: the shards of one class may use it at the same time, and two ninjas in one build
    folder corrupt its logs."""
    head = kit_commit(KIT)
    stamp = folder / ".kit-build" / BUILT_STAMP
    if not stamp.is_file():
        raise BuildError(f"no finished kit build in {folder} (`tools/grade prepare-kit "
                         f"{folder}` builds one)")
    if not judge_program(folder).is_file():
        raise BuildError(f"the kit build in {folder} has no optimised judge "
                         f"({JUDGE_BUILD}): build it again (`tools/grade prepare-kit {folder}`)")
    built = stamp.read_text().strip()
    if built != head:
        raise BuildError(f"the kit build in {folder} is of commit {built[:10]}, the kit's HEAD "
                         f"is {head[:10]}: build it again (`tools/grade prepare-kit {folder}`)")
    return head


def judge_program(folder: Path) -> Path:
    """The judge the grader runs: an optimised build of its own (JUDGE_BUILD), as the Debug
    one spends half a second parsing the case set's manifest, once per exercise and set."""
    return folder / JUDGE_BUILD / "bin" / "attn_judge"


def build(source: Path, build_dir: Path, exercises: list, jobs: int, log) -> None:
    """Configures and builds the pristine kit: Debug, as students build it, for their
    programs, with the build recipe (ATTN_BUILD_RECIPE); Release in JUDGE_BUILD beside it for
    the judge alone. Configured every time (a second or two): a build folder kept from an
    older kit gets this kit's options. The environment may name the CMake to use
    (ATTN_KIT_CMAKE) and options of the instructor's (ATTN_KIT_CMAKE_ARGS: a linker, CUDA
    architectures), and the GPU track's backend (ATTN_GPU=CUDA grades it on a GPU; default
    OMP)."""
    judge_dir = build_dir.parent / JUDGE_BUILD
    cmake = os.environ.get("ATTN_KIT_CMAKE") or "cmake"
    options = shlex.split(os.environ.get("ATTN_KIT_CMAKE_ARGS", ""))
    for folder, build_type, recipe in ((build_dir, "Debug", "ON"), (judge_dir, "Release", "OFF")):
        argv = [cmake, "-S", str(source), "-B", str(folder), "-G", "Ninja",
                f"-DCMAKE_BUILD_TYPE={build_type}", f"-DATTN_BUILD_RECIPE={recipe}",
                f"-DATTN_EXERCISES_DIR={source / 'exercises'}",
                f"-DATTN_GPU={os.environ.get('ATTN_GPU', '')}", *options]
        # Another CMake or other options: configured afresh, as CMake keeps what it found of
        # the toolchain (the linker it detected) in its cache.
        stamp = folder / ".grader-configure"
        if folder.is_dir() and (not stamp.is_file() or stamp.read_text() != json.dumps(argv)):
            shutil.rmtree(folder)
        _run(argv, log)
        stamp.write_text(json.dumps(argv))
    for folder in (build_dir, judge_dir):
        precompiled.remove_stale_for_ccache(folder)
    _run(["ninja", "-C", str(judge_dir), f"-j{jobs}", "attn_judge"], log)
    _run(["ninja", "-C", str(build_dir), f"-j{jobs}"]
         + [f"test_ex{ex['id']}_exercises" for ex in exercises], log)


def gpu_backend(build_dir: Path) -> str:
    """The GPU track's backend of a kit build (OFF, OMP or CUDA), from its CMakeCache.txt."""
    cache = build_dir / "CMakeCache.txt"
    for line in cache.read_text(errors="replace").splitlines() if cache.is_file() else ():
        if line.startswith("ATTN_GPU_BACKEND:"):
            return line.split("=", 1)[1].strip()
    return "OFF"


def _run(argv, log):
    done = subprocess.run(argv, capture_output=True, text=True)
    log.write(f"$ {shlex.join(argv)}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        raise BuildError(f"the pristine kit does not build ({shlex.join(argv[:3])} ...):\n"
                         f"{(done.stdout + done.stderr)[-3000:]}")


# The recipe's format (cmake/attn_record_step.py writes it) and its placeholders.
RECIPE_FORMAT = ["attn-kit/build-recipe", 1]
SOURCE, OBJECT = "@ATTN_SOURCE@", "@ATTN_OBJECT@"
PROGRAM, SCRATCH = "@ATTN_PROGRAM@", "@ATTN_SCRATCH@"


def commands(build_dir: Path, exercise: dict) -> ExerciseCommands:
    """Exercise NN's build recipe, as the kit's build wrote it (recipes/exNN.compile.json and
    .link.json: cmake/attn_record_step.py, launched by CMake on the stub's compile and its
    test program's link with ATTN_BUILD_RECIPE on)."""
    steps = {}
    for step in ("compile", "link"):
        path = build_dir / "recipes" / f"ex{exercise['id']}.{step}.json"
        try:
            recipe = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise BuildError(f"no build recipe {path} ({error}): the kit build must be "
                             f"configured with -DATTN_BUILD_RECIPE=ON and build "
                             f"test_ex{exercise['id']}_exercises") from None
        if recipe.get("format") != RECIPE_FORMAT:
            raise BuildError(f"{path} is format {recipe.get('format')}, this grader reads "
                             f"{RECIPE_FORMAT}: build the kit again")
        steps[step] = recipe
    link = steps["link"]
    return ExerciseCommands(steps["compile"]["argv"], steps["compile"]["reads"], link["argv"],
                            link["reads"], link["solution_archives"], link["stub_library"],
                            link["api_archives"])


def fill(argv: list, values: dict) -> list:
    """A recipe's command with its placeholders filled."""
    filled = []
    for arg in argv:
        for placeholder, value in values.items():
            arg = arg.replace(placeholder, value)
        filled.append(arg)
    return filled


def student_compile(cmds: ExerciseCommands, source: str, obj: str) -> list:
    """The stub's compile command for the student's file, without debug information: no one
    debugs a graded object, and -g costs a quarter of the compile (15.7 s, not 11.8 s, for
    the 15 solutions as one unit). Everything that decides whether it compiles is kept. Its
    dependency file, if the kit's compiler writes one, goes beside the object."""
    return fill(cmds.compile, {SOURCE: source, OBJECT: obj,
                               SCRATCH: str(Path(obj).parent)}) + ["-g0"]


# lld (the grader's packages) links these programs in 0.13 s, ld in 0.36 s, once per exercise
# and student; the kit's own build links with it too where it is installed (CMakeLists.txt).
# Not gold (0.18 s): it stops at a library path that is a dangling link, where ld searches on
# (a GPU image's /opt/gcc/lib/gcc/.../libstdc++.so: every student's link failed there, while
# the kit's own build linked), and binutils 2.44 drops it. lld honours an object's .deplibs
# section (clang's `#pragma comment(lib, ...)`): a student's object could name the kit's
# solutions' archives and link them in. It is told not to; GNU ld never reads .deplibs.
LLD_OPTIONS = ["-fuse-ld=lld", "-Wl,--no-dependent-libraries"]


def student_link(cmds: ExerciseCommands, obj: str, program: str, weak: bool = False) -> list:
    """The link of the exercise's program with `obj` for the stub's library; the linker's
    dependency file (CMake >= 3.27) beside the program. `weak`: obj defines the student's
    versions of earlier exercises' functions too, weakly; the linker would take those rather
    than open the earlier solutions' archives, so those archives are linked whole (their
    strong definitions then win)."""
    argv = fill(cmds.link, {OBJECT: obj, PROGRAM: program, SCRATCH: str(Path(program).parent)})
    if weak:
        argv = [part for arg in argv for part in (
            ["-Wl,--whole-archive", arg, "-Wl,--no-whole-archive"]
            if arg in cmds.solution_archives else [arg])]
    return argv + (LLD_OPTIONS if shutil.which("ld.lld") else [])


def compile_inputs(cmds: ExerciseCommands, kit_dirs) -> list:
    """What compiling a student's file reads inside the kit's folders (the recipe's "reads":
    its include folders and the precompiled header)."""
    return [Path(path) for path in cmds.compile_reads
            if any(Path(path) == folder or folder in Path(path).parents for folder in kit_dirs)]


def link_inputs(cmds: ExerciseCommands, kit_dirs) -> list:
    """What linking reads inside the kit's folders: the test objects and the archives."""
    return [Path(path) for path in cmds.link_reads
            if any(folder in Path(path).parents for folder in kit_dirs)]


# What the sandbox binds anyway (sandbox.py): a compiler installed below these needs nothing more.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
HOST_COMPILER_FLAGS = ("-ccbin", "--compiler-bindir")  # nvcc's host compiler


def toolchain_dirs(cmds: ExerciseCommands) -> list:
    """The install folders of the compilers a student's file is compiled and linked with, where
    they are outside the system folders the sandbox binds: a GPU image's nvcc calling
    /opt/gcc/bin/g++ as its host compiler and linker needs /opt/gcc in the sandbox. A compiler
    in a bin/ folder brings its whole prefix (gcc reads its libexec/ and lib/ beside it), by
    the name it is called by and where its links lead: /usr/local/cuda -> /opt/cuda-13 brings
    both."""
    programs = [cmds.compile[0], cmds.link[0]]
    for index, arg in enumerate(cmds.compile):
        for flag in HOST_COMPILER_FLAGS:
            if arg == flag and index + 1 < len(cmds.compile):
                programs.append(cmds.compile[index + 1])
            elif arg.startswith(flag + "="):
                programs.append(arg[len(flag) + 1:])
    folders = []
    for program in programs:
        found = shutil.which(program)
        if not found:
            continue
        # Both the path as named and the one its links lead to: /opt/gcc may be a tree of
        # links into /usr, and gcc then reads /opt/gcc/lib/... by the name.
        named, real = Path(os.path.abspath(found)), Path(os.path.realpath(found))
        for path in (named, real):
            prefix = path.parent.parent if path.parent.name == "bin" else path.parent
            if prefix != Path("/") and prefix not in folders and not any(
                    prefix == Path(system) or Path(system) in prefix.parents
                    for system in SYSTEM_DIRS):
                folders.append(prefix)
    return folders


def lock_down(kit_dirs, readable: list, link_gid: int) -> None:
    """The pristine kit as the sandbox may see it. Folders: 0711 (passable, not listable).
    Files: root's alone (0600), except what compiling reads (`readable`: the kit's headers and
    the precompiled header, 0644) and, under the build folder, what linking reads (0640, group
    `link_gid`, which only the sandbox's link step holds). So no sandboxed step reads a
    solution's source or the goldens, and a running program reads nothing of the kit at all:
    not the solutions' libraries, not the pristine test programs."""
    build_dir = kit_dirs[-1]
    for top in kit_dirs:
        for folder, _, files in os.walk(top):
            os.chown(folder, 0, 0)
            os.chmod(folder, 0o711)
            for name in files:
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    continue
                executable = os.stat(path).st_mode & 0o100  # the judge, tools/ scripts
                if top == build_dir:
                    os.chown(path, 0, link_gid)
                    os.chmod(path, 0o750 if executable else 0o640)
                else:
                    os.chmod(path, 0o700 if executable else 0o600)
    for path in readable:
        files = [path] if path.is_file() else \
            [Path(folder) / name for folder, _, names in os.walk(path) for name in names]
        for entry in files:
            os.chmod(entry, 0o644)

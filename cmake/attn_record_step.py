"""Runs one build step of an exercise program and writes it down as the grader's recipe.

cmake/AttnExercise.cmake makes this the launcher (RULE_LAUNCH_COMPILE / RULE_LAUNCH_LINK) of
exactly two steps per exercise: the compile of the stub (exNN_exercises) and the link of the
stub's test program (test_exNN_exercises). CMake names each part of the step on its command
line: the source, the object or program it writes, the target's own folder; the targets file
that attn_add_exercise() generates names the stub's library and the kit's archives. So the
recipe is the step exactly as CMake ran it, for every CMake version, language and linker, with
each part CMake named turned into a placeholder, which the grader fills for a student:

  @ATTN_SOURCE@   the file compiled (the stub; the student's file when graded)
  @ATTN_OBJECT@   the object compiled, and the object linked in place of the stub's library
  @ATTN_PROGRAM@  the program linked
  @ATTN_SCRATCH@  a folder of the step's own: what CMake keeps in CMakeFiles/<target>.dir/
                  besides those (a compiler's or a linker's dependency file, CMake >= 3.27)

Paths relative to the build folder become absolute: no step the grader runs elsewhere needs
the build folder as its working directory. Usage (written by CMake, never by hand):

  attn_record_step.py compile RECIPE TARGETS BUILD_DIR TARGET_NAME SOURCE OBJECT N -- COMMAND
  attn_record_step.py link    RECIPE TARGETS BUILD_DIR TARGET_NAME PROGRAM N -- COMMAND

N: how many words of COMMAND are a compiler launcher (ccache), which the recipe leaves out.
The step runs first; the recipe is written only when it succeeds, and never changes its exit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

FORMAT = ("attn-kit/build-recipe", 1)  # tools/grader/kitbuild.py reads it


def absolute(path: str, build_dir: str) -> str:
    return os.path.normpath(os.path.join(build_dir, path))


def placeholders(argv: list, parts: dict, scratch: str, build_dir: str) -> list:
    """argv with each part CMake named replaced by its placeholder: an argument that is the
    part (or a file named after it, as `object.d`), or that names it after `=` or `,` (a
    linker option); relative paths that exist (inputs) made absolute; the target's own folder
    in the other paths (outputs, relative or absolute) by @ATTN_SCRATCH@. A part is never
    replaced inside another word: `test_ex02_exercises` is a program, and a piece of
    `CMakeFiles/test_ex02_exercises.dir`."""
    def named(value: str, placeholder: str, arg: str) -> str:
        return re.sub(rf"(^|[=,]){re.escape(value)}(?=$|\.)", lambda m: m.group(1) + placeholder,
                      arg)

    scratch_names = (scratch + "/", os.path.relpath(scratch, build_dir) + "/")
    recorded = []
    for arg in argv:
        for value, placeholder in sorted(parts.items(), key=lambda item: -len(item[0])):
            arg = named(value, placeholder, arg)
        if not arg.startswith("-") and "@ATTN_" not in arg \
                and os.path.exists(os.path.join(build_dir, arg)):
            recorded.append(absolute(arg, build_dir))  # an input: a library, an object
            continue
        for folder in scratch_names:  # an output CMake keeps there: a dependency file
            arg = re.sub(rf"(^|[=,]){re.escape(folder)}",
                         lambda m: m.group(1) + "@ATTN_SCRATCH@/", arg)
        recorded.append(arg)
    return recorded


def reads_of_compile(argv: list) -> list:
    """What compiling reads of the kit: the include folders and the forced includes (a
    precompiled header, with its .gch beside it)."""
    reads = []
    for index, arg in enumerate(argv):
        for flag in ("-I", "-isystem", "-iquote", "-include"):
            if arg == flag and index + 1 < len(argv):
                reads.append(argv[index + 1])
            elif arg.startswith(flag) and len(arg) > len(flag) and flag != "-include":
                reads.append(arg[len(flag):])
        if arg == "-include" and index + 1 < len(argv):
            reads.append(argv[index + 1] + ".gch")
    return [path for path in reads if os.path.isabs(path)]


def reads_of_link(argv: list) -> list:
    """What linking reads: every input named by path (objects, archives, shared libraries)."""
    return [arg for arg in argv[1:] if os.path.isabs(arg) and os.path.isfile(arg)]


def main(argv: list) -> int:
    split = argv.index("--")
    head, command = argv[:split], argv[split + 1:]
    step, recipe, targets_file, build_dir, target_name = head[:5]
    result = subprocess.run(command).returncode
    if result != 0:
        return result
    compiler_argv = command[int(head[-1]):]
    build_dir = os.path.abspath(build_dir)
    scratch = os.path.join(build_dir, "CMakeFiles", target_name + ".dir")
    with open(targets_file, encoding="utf-8") as file:
        targets = json.load(file)
    if step == "compile":
        source, obj = head[5], head[6]
        parts = {source: "@ATTN_SOURCE@", absolute(obj, build_dir): "@ATTN_OBJECT@",
                 obj: "@ATTN_OBJECT@"}
    else:
        program = head[5]
        library = targets["stub_library"]
        parts = {absolute(program, build_dir): "@ATTN_PROGRAM@", program: "@ATTN_PROGRAM@",
                 library: "@ATTN_OBJECT@", os.path.relpath(library, build_dir): "@ATTN_OBJECT@"}
    recorded = placeholders(compiler_argv, parts, scratch, build_dir)
    for placeholder in set(parts.values()):
        if not any(placeholder in arg for arg in recorded):
            sys.stderr.write(f"attn_record_step.py: CMake's {step} command for {target_name} "
                             f"names no {placeholder}: the grader's recipe is not written\n")
            return 1
    document = {"format": list(FORMAT), "exercise": targets["exercise"], "step": step,
                "argv": recorded,
                "reads": reads_of_compile(recorded) if step == "compile"
                else reads_of_link(recorded)}
    if step == "link":
        document.update({key: targets[key] for key in
                         ("stub_library", "solution_archives", "api_archives")})
    temporary = f"{recipe}.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=1)
    os.replace(temporary, recipe)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

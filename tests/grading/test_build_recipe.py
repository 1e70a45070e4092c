"""The grader's build recipe (cmake/AttnRecipe.cmake, cmake/attn_record_step.py): written by
CMake's own build, read by tools/grader/kitbuild.py, with no command line edited by position;
and the rules of what a student's object may define and call (tools/grader/symbols.py).

A toy project with the kit's recipe module (an earlier exercise's solution, a stub, its test
program) is built by CMake; a "student's" file is then compiled and linked from the recipe in
another folder, as the grader's sandbox does, and its program run. With a CMake that writes
link dependency files (>= 3.27, with a linker that takes them: GNU ld >= 2.41 or lld), the
recipe must carry the linker's --dependency-file into the student's folder: every student's
link failed where the grader replayed CMake's relative CMakeFiles/<target>.dir/link.d. The
CMake under test is ATTN_KIT_CMAKE (as for tools/grade's kit build), else the one on PATH;
where it is older than 3.27, that case says so and passes on the rest (.ci/run brings a newer
one and requires it: ATTN_REQUIRE_LINK_DEPFILES=1).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))

from grader import kitbuild, symbols  # noqa: E402

RECORD_STEP = KIT / "cmake" / "attn_record_step.py"

TOY_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(toy LANGUAGES CXX)
set(ATTN_PYTHON "{python}")
list(APPEND CMAKE_MODULE_PATH "{kit}/cmake")
include(AttnRecipe)
add_library(ex01_solutions STATIC earlier.cpp)
add_library(ex02_exercises STATIC stub.cpp)
add_executable(test_ex02_exercises main.cpp)
target_link_libraries(test_ex02_exercises PRIVATE ex02_exercises ex01_solutions)
set(ATTN_EARLIER_SOLUTIONS ex01_solutions)
attn_record_recipe(02 OFF OFF)
"""
TOY_FILES = {
    "earlier.cpp": "int earlier() { return 40; }\n",
    "stub.cpp": "int answer() { return -1; }\n",
    "main.cpp": "int answer();\nint main() { return answer() == 42 ? 0 : 1; }\n",
}
STUDENT = "int earlier();\nint answer() { return earlier() + 2; }\n"


def cmake_under_test() -> str:
    return os.environ.get("ATTN_KIT_CMAKE") or shutil.which("cmake") or "cmake"


def version_of(cmake: str) -> tuple:
    text = subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"(\d+)\.(\d+)", text)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


class RecorderTest(unittest.TestCase):
    """attn_record_step.py on its own: the parts CMake names become placeholders, relative
    paths absolute, the target's folder the step's own; a failed step records nothing."""

    def setUp(self):
        self.build = Path(tempfile.mkdtemp(prefix="attn-recipe-unit."))
        self.addCleanup(shutil.rmtree, self.build)
        (self.build / "recipes").mkdir()
        (self.build / "libex01_solutions.a").write_text("")
        (self.build / "CMakeFiles" / "t.dir").mkdir(parents=True)
        (self.build / "CMakeFiles" / "t.dir" / "test.o").write_text("")
        self.targets = self.build / "recipes" / "ex02.targets.json"
        self.targets.write_text(json.dumps({
            "exercise": "02", "stub_library": str(self.build / "libex02_exercises.a"),
            "solution_archives": [str(self.build / "libex01_solutions.a")],
            "api_archives": []}))

    def record(self, step: str, parts: list, command: list) -> tuple:
        recipe = self.build / "recipes" / f"ex02.{step}.json"
        done = subprocess.run([sys.executable, str(RECORD_STEP), step, str(recipe),
                               str(self.targets), str(self.build), "t", *parts, "--", *command],
                              cwd=self.build, capture_output=True, text=True)
        return done.returncode, (json.loads(recipe.read_text()) if recipe.exists() else None)

    def test_link_step(self):
        code, recipe = self.record("link", ["bin/prog", "0"], [
            "true", "-g1", "CMakeFiles/t.dir/test.o", "-o", "bin/prog", "libex02_exercises.a",
            "libex01_solutions.a", "-Wl,--dependency-file=CMakeFiles/t.dir/link.d", "-lm"])
        self.assertEqual(code, 0)
        self.assertEqual(recipe["argv"], [
            "true", "-g1", str(self.build / "CMakeFiles/t.dir/test.o"), "-o", "@ATTN_PROGRAM@",
            "@ATTN_OBJECT@", str(self.build / "libex01_solutions.a"),
            "-Wl,--dependency-file=@ATTN_SCRATCH@/link.d", "-lm"])
        self.assertEqual(recipe["solution_archives"], [str(self.build / "libex01_solutions.a")])
        self.assertEqual(recipe["reads"], [str(self.build / "CMakeFiles/t.dir/test.o"),
                                           str(self.build / "libex01_solutions.a")])

    def test_compile_step_leaves_the_launcher_out(self):
        obj = "CMakeFiles/t.dir/stub.cpp.o"
        code, recipe = self.record("compile", ["/src/stub.cpp", obj, "1"], [
            "env", "true", "-I/src/include", "-include", "/b/pch.hxx", "-MD", "-MT", obj,
            "-MF", obj + ".d", "-o", obj, "-c", "/src/stub.cpp"])
        self.assertEqual(code, 0)
        self.assertEqual(recipe["argv"], [
            "true", "-I/src/include", "-include", "/b/pch.hxx", "-MD", "-MT", "@ATTN_OBJECT@",
            "-MF", "@ATTN_OBJECT@.d", "-o", "@ATTN_OBJECT@", "-c", "@ATTN_SOURCE@"])
        self.assertEqual(recipe["reads"], ["/src/include", "/b/pch.hxx", "/b/pch.hxx.gch"])

    def test_a_failed_step_keeps_its_exit_and_records_nothing(self):
        code, recipe = self.record("link", ["bin/prog", "0"], ["false", "-o", "bin/prog"])
        self.assertEqual(code, 1)
        self.assertIsNone(recipe)

    def test_a_step_without_a_named_part_is_refused(self):
        code, recipe = self.record("link", ["bin/prog", "0"], ["true", "-o", "bin/prog"])
        self.assertNotEqual(code, 0)  # no stub library on the line: no recipe to trust
        self.assertIsNone(recipe)


class ToyProjectTest(unittest.TestCase):
    """CMake builds the toy project with the recipe on; a student's file is graded from it."""

    def setUp(self):
        self.top = Path(tempfile.mkdtemp(prefix="attn-recipe-toy."))
        self.addCleanup(shutil.rmtree, self.top)

    def build_toy(self, cmake: str, options: list) -> Path:
        source, build = self.top / "src", self.top / "build"
        source.mkdir()
        (source / "CMakeLists.txt").write_text(TOY_CMAKE.format(python=sys.executable,
                                                                kit=KIT))
        for name, text in TOY_FILES.items():
            (source / name).write_text(text)
        for argv in ([cmake, "-S", str(source), "-B", str(build), "-G", "Ninja",
                      "-DATTN_BUILD_RECIPE=ON", *options],
                     [cmake, "--build", str(build)]):
            done = subprocess.run(argv, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(subprocess.run([str(build / "test_ex02_exercises")]).returncode, 1)
        return build

    def grade_student(self, build: Path) -> tuple:
        """The student's file compiled and linked from the recipe, in a folder of its own,
        from there (not the build folder): (the link's argv, the student's folder)."""
        cmds = kitbuild.commands(build, {"id": "02"})
        student = self.top / "student"
        student.mkdir()
        (student / "02.cpp").write_text(STUDENT)
        obj, program = student / "02.o", student / "test_ex02_exercises"
        for argv in (kitbuild.student_compile(cmds, str(student / "02.cpp"), str(obj)),
                     kitbuild.student_link(cmds, str(obj), str(program))):
            done = subprocess.run(argv, cwd=student, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, f"{argv}\n{done.stdout}{done.stderr}")
        self.assertEqual(subprocess.run([str(program)]).returncode, 0)
        self.assertEqual(sorted(os.listdir(build / "recipes")),
                         ["ex02.compile.json", "ex02.link.json", "ex02.targets.json"])
        return kitbuild.student_link(cmds, str(obj), str(program)), student

    def test_graded_from_the_recipe(self):
        argv, _ = self.grade_student(self.build_toy(cmake_under_test(), []))
        self.assertFalse([arg for arg in argv if "CMakeFiles" in arg and
                          not os.path.isabs(arg.split("=")[-1])], argv)

    def test_graded_with_gnu_ld_alone(self):
        """A CUDA image has GNU ld (2.42: link dependency files from CMake >= 3.27) and neither
        lld nor gold: the kit's own build and the student's link both use ld.bfd."""
        cmake = cmake_under_test()
        options = ["-DCMAKE_LINKER_TYPE=BFD"] if version_of(cmake) >= (3, 29) else []
        with mock.patch.object(kitbuild.shutil, "which",
                               lambda name: None if name.startswith("ld.") else
                               shutil.which(name)):
            argv, student = self.grade_student(self.build_toy(cmake, options))
        self.assertFalse([arg for arg in argv if arg.startswith("-fuse-ld=")
                          and arg != "-fuse-ld=bfd"], argv)
        # GNU ld >= 2.41 gets a dependency file from CMake: in the student's folder too
        self.assertFalse([arg for arg in argv if "--dependency-file=" in arg
                          and not arg.endswith(f"={student}/link.d")], argv)

    def test_graded_through_link_depfiles(self):
        cmake = cmake_under_test()
        version = version_of(cmake)
        if version < (3, 27):
            message = (f"CMake {version[0]}.{version[1]} writes no link dependency files: "
                       f"set ATTN_KIT_CMAKE to a CMake >= 3.27")
            if os.environ.get("ATTN_REQUIRE_LINK_DEPFILES") == "1":
                self.fail(message)
            print(f"NOT RUN: {message}")
            return
        # GNU ld before 2.41 gets none from CMake (a bug with LTO): lld then, where CMake can
        # be told (CMAKE_LINKER_TYPE, 3.29).
        options = ["-DCMAKE_LINKER_TYPE=LLD"] if version >= (3, 29) and shutil.which("ld.lld") \
            else []
        argv, student = self.grade_student(self.build_toy(cmake, options))
        depfiles = [arg for arg in argv if "--dependency-file=" in arg]
        self.assertEqual(depfiles, [f"-Wl,--dependency-file={student}/link.d"], argv)
        self.assertTrue((student / "link.d").is_file())


class LinkRulesTest(unittest.TestCase):
    """symbols.py on objects g++ makes: what a student's file may define and call."""

    def setUp(self):
        self.top = Path(tempfile.mkdtemp(prefix="attn-symbols."))
        self.addCleanup(shutil.rmtree, self.top)
        stub = self.compile("stub", "int answer() { throw 1; }\n")
        # The kit's internals, with its hook on the C++ runtime's throw (throw_hook.cpp).
        internal = self.compile("internal", "int kit_helper() { return 1; }\n"
                                "extern \"C\" void __cxa_throw(void*, void*, void (*)(void*)) "
                                "{ for (;;) {} }\n")
        api = self.compile("api", "int api_call() { return 2; }\n")
        self.rules = symbols.LinkRules(
            declared=set(symbols.defined_strongly(stub)),
            kit=set(symbols.defined_strongly(internal) | symbols.defined_strongly(api)),
            internal=set(symbols.defined_strongly(internal)))

    def compile(self, name: str, text: str) -> str:
        (self.top / f"{name}.cpp").write_text(text)
        obj = self.top / f"{name}.o"
        subprocess.run(["g++", "-c", str(self.top / f"{name}.cpp"), "-o", str(obj)], check=True)
        return str(obj)

    def refusal(self, text: str) -> str:
        obj = self.compile("student", text)
        listing = subprocess.run(["/bin/sh", "-c", symbols.listing_command(Path(obj))],
                                 capture_output=True, text=True, check=True).stdout
        return symbols.refusal(listing, self.rules)

    def test_the_declared_functions_and_own_helpers_are_allowed(self):
        self.assertEqual(self.refusal(
            "int api_call();\nstatic int twice(int x) { return 2 * x; }\n"
            "inline int inlined() { return 3; }\nint my_helper() { return inlined(); }\n"
            "int answer() { return twice(api_call()) + my_helper(); }\n"), "")

    def test_a_kit_symbol_strong_or_weak_is_refused(self):
        for text in ("int kit_helper() { return 42; }\n",
                     "__attribute__((weak)) int kit_helper() { return 42; }\n",
                     "int api_call() { return 42; }\n"):
            with self.subTest(text=text):
                self.assertIn("which is the kit's own", self.refusal(text))

    def test_a_throw_calls_the_kits_hook_on_the_runtime_and_is_allowed(self):
        self.assertEqual(self.refusal("int answer() { throw 1; }\n"), "")
        self.assertIn("it defines __cxa_throw, which is the kit's own", self.refusal(
            'extern "C" void __cxa_throw(void*, void*, void (*)(void*)) { for (;;) {} }\n'))

    def test_main_is_refused(self):
        self.assertIn("main()", self.refusal("int main() { return 0; }\n"))

    def test_a_call_into_the_kits_internals_is_refused(self):
        self.assertIn("it calls kit_helper(...)", self.refusal(
            "int kit_helper();\nint answer() { return kit_helper(); }\n"))

    def test_a_deplibs_section_is_refused(self):
        self.assertIn(".deplibs", self.refusal(
            'asm(".pushsection .deplibs,\\"MS\\",@0x6fff4c04,1\\n.asciz \\"libx.a\\"\\n'
            '.popsection\\n");\nint answer() { return 42; }\n'))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""tests/kit/test_cli_show.py — `tools/kit show NN [CASE]` (tools/kitcli/show.py): the test
program shows the case (`--attn-show-json`), show presents it.

Without arguments (ctest's kit.cli runs it so): show's reading and presentation of what the
test programs really wrote (fixtures/show/, see its record.sh): a stub, a solution, a wrong
answer, a throw, a crash, a hang, a file that does not compile, what the code printed, an
unknown case, and the heatmap SVG with yours beside the expected matrix.
With --bin DIR (ctest: kit.show): also the solutions' programs of a build (never the
student's): what they write, and the fixtures checked against it.

One file alone: python3 tests/kit/test_cli_show.py [--bin build-selftest/bin]
"""

import io
import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from contextlib import redirect_stdout
from pathlib import Path
from unittest import mock

import cli_testing  # noqa: F401  (puts tools/ on the path)
from kitcli import build, cli, show
from kitcli.catalogue import Kit, KitError

KIT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "show"
BIN = None  # --bin: a build's bin/ folder


def program_writing(fixture: str, end: build.ProgramEnd = build.ProgramEnd(0), cut: int = 0):
    """A stand-in for build.run_program: writes the recorded JSON lines (the last `cut`
    left out, as a program that died there) where --attn-show-json says, and ends as `end`."""
    def run(program, arguments, timeout_s, cwd):
        [target] = [a.split("=", 1)[1] for a in arguments if a.startswith("--attn-show-json=")]
        lines = (FIXTURES / fixture).read_text(encoding="utf-8").splitlines(keepends=True)
        Path(target).write_text("".join(lines[:len(lines) - cut]), encoding="utf-8")
        return end
    return run


def at_the_kits_root(test: unittest.TestCase) -> None:
    """Commands in what show says are relative to the working folder: the kit's root here."""
    test.addCleanup(os.chdir, os.getcwd())
    os.chdir(KIT)


class ShowFixtureTest(unittest.TestCase):
    def setUp(self):
        self.kit = Kit.load(KIT)
        at_the_kits_root(self)

    def shown(self, number: str, fixture: str, **program) -> tuple:
        ex = self.kit.exercise(number)
        with mock.patch.object(build, "run_program", side_effect=program_writing(fixture,
                                                                                 **program)):
            shown = show.run_show(self.kit, Path("test_program"), None)
        return shown, show.presented(self.kit, ex, shown)

    def records(self, fixture: str) -> list:
        return [json.loads(line) for line in
                (FIXTURES / fixture).read_text(encoding="utf-8").splitlines()]

    def test_a_stub_shows_inputs_expected_and_its_one_line(self):
        shown, lines = self.shown("13", "13_notebook.stub.jsonl")
        case = self.records("13_notebook.stub.jsonl")[0]
        self.assertEqual(lines[0], "Exercise 13, case notebook: causal_attention_weights "
                                   f"({case['source']})")
        self.assertIn("input scores, shape (6, 6):", lines)
        self.assertIn("input d_k, shape ():", lines)
        self.assertIn("expected weights, shape (6, 6):", lines)
        # The C++ printer's text, indented, line for line.
        expected = next(r for r in self.records("13_notebook.stub.jsonl")
                        if r.get("role") == "expected")
        at = lines.index("expected weights, shape (6, 6):")
        self.assertEqual(lines[at + 1:at + 7], ["  " + line for line in
                                                expected["repr"].splitlines()])
        self.assertIn("yours: exercises/13_causal_softmax.cpp: attn::causal_attention_weights("
                      "scores, d_k) is not implemented yet (replace the throw with your code)",
                      lines)
        self.assertFalse(any(line.startswith("Why yours differs") for line in lines))
        self.assertTrue(lines[-1].startswith("Other cases: future_mask_nine, "), lines[-1])
        self.assertTrue(lines[-1].endswith("(`tools/kit show 13 CASE`)"), lines[-1])
        self.assertNotIn(", notebook,", lines[-1])

    def test_a_solution_matches_and_prints_like_the_expected(self):
        shown, lines = self.shown("13", "13_notebook.solution.jsonl")
        at = lines.index("yours weights, shape (6, 6): matches the expected output")
        expected_at = lines.index("expected weights, shape (6, 6):")
        self.assertEqual(lines[at + 1:at + 7], lines[expected_at + 1:expected_at + 7])
        self.assertFalse(any(line.startswith("yours:") for line in lines))

    def test_a_wrong_answer_says_how_it_differs_and_where_to_look(self):
        shown, lines = self.shown("02", "02_default.divided_by_max.jsonl")
        [verdict] = [line for line in lines if line.startswith("yours weights,")]
        self.assertRegex(verdict, r"^yours weights, shape \(6,\): differs: 6 of 6 values differ")
        self.assertIn("Why yours differs: `tools/kit check 02`", lines)

    def test_a_throw_is_its_one_line(self):
        shown, lines = self.shown("02", "02_default.loop_past_end.jsonl")
        self.assertIn('yours: normalize_by_sum(scores) threw std::runtime_error: "index 6 is out '
                      'of bounds for axis 0 (size 6)" — called with scores (6,)', lines)

    def test_a_crash_or_a_hang_still_shows_the_case(self):
        for end, says in ((build.ProgramEnd(-11), "crashed"),
                          (build.ProgramEnd(None, timed_out=True), "did not finish")):
            with self.subTest(says=says):
                shown, lines = self.shown("13", "13_notebook.stub.jsonl", end=end, cut=2)
                self.assertIn("expected weights, shape (6, 6):", lines)
                [yours] = [line for line in lines if line.startswith("yours")]
                self.assertTrue(yours.startswith("yours: not shown: "), yours)
                self.assertIn(says, yours)

    def test_what_the_code_printed_is_shown(self):
        printed = "\n".join(f"line {i}" for i in range(15)) + "\n"
        shown, lines = self.shown("13", "13_notebook.stub.jsonl",
                                  end=build.ProgramEnd(0, output=printed))
        at = lines.index("Your code printed (its last lines):")
        self.assertEqual(lines[at + 1:at + 11], [f"  | line {i}" for i in range(5, 15)])

    def test_an_unknown_case_names_the_cases(self):
        with self.assertRaisesRegex(KitError, "exercise 03 has no case nope; its cases are "
                                              "naive_large_logits, "):
            self.shown("03", "03_nope.jsonl", end=build.ProgramEnd(2))

    def test_a_program_that_writes_nothing_says_why(self):
        def silent(program, arguments, timeout_s, cwd):
            return build.ProgramEnd(-6)
        with mock.patch.object(build, "run_program", side_effect=silent):
            with self.assertRaisesRegex(KitError, "showed no case: .*crashed"):
                show.run_show(self.kit, Path("test_ex13_exercises"), None)

    def test_a_file_that_does_not_compile_shows_the_case_from_the_solutions_program(self):
        ex = self.kit.exercise("13")
        built = iter([(True, False, "error"), (True, True, "")])
        ran = []

        def run(program, arguments, timeout_s, cwd):
            ran.append(program.name)
            return program_writing("13_notebook.solution.jsonl")(program, arguments,
                                                                 timeout_s, cwd)
        with mock.patch.object(build, "configure_and_build", side_effect=lambda *a: next(built)), \
                mock.patch.object(build, "run_program", side_effect=run), \
                mock.patch.object(show, "say"):
            lines = show.case_lines(self.kit, ex, "notebook")
        self.assertEqual(ran, ["test_ex13_solutions"])
        self.assertIn("expected weights, shape (6, 6):", lines)
        self.assertFalse(any(line.startswith("yours weights") for line in lines))
        self.assertIn("yours: not shown: exercises/13_causal_softmax.cpp does not compile yet "
                      "(`tools/kit check 13` shows where)", lines)


SVG = "{http://www.w3.org/2000/svg}"


class ShowSvgTest(unittest.TestCase):
    def setUp(self):
        self.kit = Kit.load(KIT)
        at_the_kits_root(self)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.out = Path(folder.name) / "w.svg"

    def draw(self, number: str, fixture: str) -> list:
        with mock.patch.object(build, "run_program", side_effect=program_writing(fixture)):
            shown = show.run_show(self.kit, Path("test_program"), None)
        return show.svg_of(self.kit.exercise(number), shown, self.out)

    def cells(self) -> list:
        root = ElementTree.fromstring(self.out.read_text(encoding="utf-8"))
        return [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "cell"]

    def test_yours_beside_the_expected(self):
        said = self.draw("13", "13_notebook.solution.jsonl")
        self.assertEqual(said, [f"Wrote {self.out}: weights [6, 6], yours beside it (it "
                                "matches)"])
        cells = self.cells()
        self.assertEqual(len(cells), 72)
        # Yours (the solution's) is shaded exactly like the expected matrix.
        self.assertEqual([c.get("fill") for c in cells[:36]], [c.get("fill") for c in cells[36:]])
        self.assertFalse(any(c.get("stroke") == "#d00000" for c in cells))

    def test_a_stub_draws_the_expected_and_says_why_yours_is_missing(self):
        said = self.draw("13", "13_notebook.stub.jsonl")
        self.assertEqual(len(self.cells()), 36)
        self.assertIn("weights [6, 6]; yours: exercises/13_causal_softmax.cpp: ", said[0])

    def test_a_case_without_a_matrix_is_refused(self):
        with self.assertRaisesRegex(KitError, "no matrix of weights or scores to draw; its "
                                              "outputs: weights"):
            self.draw("03", "03_default.stub.jsonl")


class CommandLineTest(unittest.TestCase):
    def setUp(self):
        at_the_kits_root(self)
        self.ran = []

    def run_cli(self, *arguments) -> tuple:
        def run(program, arguments, timeout_s, cwd):
            self.ran.append((program, arguments[0]))
            return program_writing("13_notebook.solution.jsonl")(program, arguments,
                                                                 timeout_s, cwd)
        with redirect_stdout(io.StringIO()) as said, \
                mock.patch.object(Kit, "load", return_value=Kit.load(KIT)), \
                mock.patch.object(build, "configure_and_build", return_value=(True, True, "")), \
                mock.patch.object(build, "run_program", side_effect=run):
            code = cli.main(list(arguments))
        return code, said.getvalue()

    def test_show_runs_the_exercises_test_program_on_the_case(self):
        code, said = self.run_cli("show", "13", "notebook")
        self.assertEqual(code, 0, said)
        self.assertEqual(self.ran, [(KIT / "build" / "bin" / "test_ex13_exercises",
                                     "--attn-show=notebook")])
        self.assertIn("yours weights, shape (6, 6): matches the expected output\n", said)

    def test_show_svg_writes_the_file(self):
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "m.svg"
            code, said = self.run_cli("show", "13", "--svg", str(out))
            self.assertEqual(code, 0, said)
            self.assertEqual(self.ran[0][1], "--attn-show")
            self.assertIn(f"Wrote {out}: weights [6, 6], yours beside it", said)
            ElementTree.fromstring(out.read_text(encoding="utf-8"))  # well-formed


class RealProgramTest(unittest.TestCase):
    """The test programs themselves (--bin DIR): what they write, and the fixtures still what
    they write."""

    def setUp(self):
        if BIN is None:
            self.skipTest("needs --bin DIR (ctest: kit.show)")
        self.bin = Path(BIN)

    def run_program(self, name: str, *arguments) -> tuple:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "show.jsonl"
            end = build.run_program(self.bin / name, [*arguments, f"--attn-show-json={path}"],
                                    60, KIT)
            text = path.read_text(encoding="utf-8") if path.exists() else ""
        return end, [json.loads(line) for line in text.splitlines()]

    def test_the_solutions_fixture_is_what_the_program_writes(self):
        end, records = self.run_program("test_ex13_solutions", "--attn-show=notebook")
        self.assertEqual(end.exit_code, 0)
        self.assertEqual(records, [json.loads(line) for line in (
            FIXTURES / "13_notebook.solution.jsonl").read_text(encoding="utf-8").splitlines()])

    def test_a_solution_matches_every_output(self):
        end, records = self.run_program("test_ex03_solutions", "--attn-show=rows_notebook")
        roles = [(r["event"], r.get("role"), r.get("name")) for r in records]
        self.assertEqual(roles, [("case", None, "rows_notebook"), ("tensor", "input", "scores"),
                                 ("tensor", "input", "dim"), ("tensor", "expected", "weights"),
                                 ("tensor", "yours", "weights"), ("end", None, None)])
        self.assertTrue(records[4]["comparison"]["passed"])
        self.assertEqual(records[4]["repr"], records[3]["repr"])

    def test_the_default_case_is_the_first_notebook_case(self):
        # The solutions' programs only: a student's build runs this test too.
        end, records = self.run_program("test_ex03_solutions", "--attn-show")
        self.assertEqual(records[0]["name"], "naive_notebook")
        self.assertEqual(records[0]["cases"][:3], ["naive_large_logits", "naive_nine_logits",
                                                   "naive_notebook"])
        self.assertEqual(records[-1]["event"], "end")

    def test_an_unknown_case_exits_2_naming_the_cases(self):
        end, records = self.run_program("test_ex03_solutions", "--attn-show=nope")
        self.assertEqual(end.exit_code, 2)
        self.assertEqual([r["event"] for r in records], ["error"])
        self.assertIn("its cases are naive_large_logits, ", records[0]["message"])


if __name__ == "__main__":
    if "--bin" in sys.argv:
        at = sys.argv.index("--bin")
        BIN = str(Path(sys.argv[at + 1]).resolve())
        del sys.argv[at:at + 2]
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)

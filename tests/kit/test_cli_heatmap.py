#!/usr/bin/env python3
"""tests/kit/test_cli_heatmap.py — the picture of attention weights (tools/kitcli/heatmap.py):
plain and colour grids where a leaking upper triangle, a hidden diagonal and columns that sum
to 1 differ visibly from the causal answer, the worst head chosen among several, the size cap,
the verdict stream's "matrix" read and drawn under `check`'s first failure, and the SVG
(well-formed, one cell per value, yours beside it; `show NN CASE --svg`: test_cli_show.py).
"""

import json
import re
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from unittest import mock

import cli_testing  # noqa: F401  (puts tools/ on the path)
from kitcli import heatmap, reports, student

ESCAPE = re.compile(r"\033\[[0-9;]*m")
SVG = "{http://www.w3.org/2000/svg}"


def causal(t: int) -> list:
    """Causal attention weights, row r spread evenly over keys 0..r."""
    return [1 / (r + 1) if c <= r else 0.0 for r in range(t) for c in range(t)]


def leaking(t: int) -> list:
    """Every query attends to every key: the mask is missing."""
    return [1 / t] * (t * t)


def beyond(got: list, expected: list) -> list:
    return [i for i, (g, e) in enumerate(zip(got, expected)) if abs(g - e) > 1e-6]


def rows(lines: list) -> list:
    """The grid rows of terminal_lines' output (they start with the row number)."""
    return [line for line in lines if re.match(r"^\s+\d+ ", ESCAPE.sub("", line))]


def upper(text: str, t: int, r: int, start: int, cell: int = 2) -> str:
    """The cells right of the diagonal in row r of a panel that starts at `start`."""
    return text[start + (r + 1) * cell:start + t * cell]


class TerminalTest(unittest.TestCase):
    T = 6

    def panels(self, got, expected, colour=False, width=80):
        lines = heatmap.terminal_lines(got, expected, [self.T, self.T], colour, width,
                                       beyond=beyond(got, expected))
        grid = [ESCAPE.sub("", line) if not colour else line for line in rows(lines)]
        self.assertEqual(len(grid), self.T)
        return lines, grid

    def test_plain_shows_a_leaking_upper_triangle(self):
        lines, grid = self.panels(leaking(self.T), causal(self.T))
        self.assertTrue(all("\033" not in line for line in lines), "no escape codes in plain")
        mine_start = 4  # after "  0 "
        want_start = mine_start + 2 * self.T + 4
        for r in range(self.T - 1):
            self.assertEqual(upper(grid[r], self.T, r, want_start).strip(), "",
                             f"expected row {r}: nothing right of the diagonal")
            self.assertNotEqual(upper(grid[r], self.T, r, mine_start).strip(), "",
                                f"yours row {r}: the leak shows right of the diagonal")
        self.assertIn("beyond", lines[1])  # its own panel of ×, the shading kept whole
        self.assertTrue(grid[0].endswith("    ××××××"), grid[0])  # 1/6 where 1 is due, too
        self.assertTrue(grid[-1].endswith("    ......"), grid[-1])
        self.assertRegex(lines[-1], r"scale: 0 ░▒▓█ 1; × beyond the tolerance \(30\)")

    def test_plain_correct_and_causal_look_the_same(self):
        _, grid = self.panels(causal(self.T), causal(self.T))
        for line in grid:
            mine, want = line[4:4 + 2 * self.T], line[8 + 2 * self.T:8 + 4 * self.T]
            self.assertEqual(mine, want)

    def test_plain_shows_a_hidden_diagonal_and_columns_that_sum_to_one(self):
        t = self.T
        want = causal(t)
        hidden = [0.0 if r == c else v for r in range(t) for c, v in
                  enumerate(want[r * t:(r + 1) * t])]
        _, grid = self.panels(hidden, want)
        for r in range(t):
            self.assertEqual(grid[r][4 + 2 * r:6 + 2 * r], "  ", f"yours [{r}, {r}] blank")
            self.assertNotEqual(grid[r][8 + 2 * t + 2 * r:10 + 2 * t + 2 * r], "  ")
        columns = [want[c * t + r] for r in range(t) for c in range(t)]  # the transpose
        _, grid = self.panels(columns, want)
        self.assertEqual(grid[t - 1][4:2 + 2 * t].strip(), "",
                         "the transpose's last row is blank but for its last cell")
        self.assertNotEqual(grid[t - 1][2 + 2 * t:4 + 2 * t].strip(), "")
        self.assertNotEqual(grid[0][4:4 + 2 * t].strip(), "")  # its first row is full

    def test_colour_shades_the_leak_with_the_palette(self):
        lines, grid = self.panels(leaking(self.T), causal(self.T), colour=True)
        self.assertIn("\033[48;5;", lines[2])
        # Row 0 right of the diagonal: yours not the darkest grey, the expected the darkest.
        codes = re.findall(r"\033\[48;5;(\d+)m", grid[0])
        mine, want = codes[:self.T], codes[self.T:2 * self.T]
        self.assertTrue(all(code == "232" for code in want[1:]), want)
        self.assertTrue(all(code != "232" for code in mine[1:]), mine)
        self.assertIn(heatmap.BEYOND, grid[0])  # marked in place with colour
        self.assertNotIn("beyond    ", lines[1])
        plain = ESCAPE.sub("", "\n".join(lines))
        self.assertNotIn("\033", plain)

    def test_colour_only_on_a_terminal_that_has_it(self):
        tty = mock.Mock(isatty=lambda: True)
        with mock.patch.dict("os.environ", {"TERM": "xterm-256color"}, clear=True):
            self.assertTrue(heatmap.colour_wanted(tty))
            self.assertFalse(heatmap.colour_wanted(mock.Mock(isatty=lambda: False)))
        with mock.patch.dict("os.environ", {"TERM": "dumb"}, clear=True):
            self.assertFalse(heatmap.colour_wanted(tty))
        with mock.patch.dict("os.environ", {"TERM": "xterm", "NO_COLOR": ""}, clear=True):
            self.assertFalse(heatmap.colour_wanted(tty))

    def test_several_heads_show_the_worst_one(self):
        t, heads = 4, 3
        want = causal(t) * heads
        got = list(want)
        got[2 * t * t + 1] = 0.5  # head 2, [0, 1]: a leak
        got[0] += 1e-5            # head 0: a small slip
        lines = heatmap.terminal_lines(got, want, [1, heads, t, t], False, 80,
                                       beyond=beyond(got, want), name="weights")
        self.assertIn("weights[0, 2, :, :], the matrix with the worst value (of 1×3)", lines[0])
        grid = rows(lines)
        self.assertNotEqual(upper(grid[0], t, 0, 4).strip(), "")
        # The comparison's own worst index wins over the largest difference.
        lines = heatmap.terminal_lines(got, want, [1, heads, t, t], False, 80,
                                       worst=[0, 1, 3, 3])
        self.assertIn("weights[0, 1, :, :]", lines[0])

    def test_matrices_larger_than_the_cap_are_named_not_drawn(self):
        t = heatmap.MAX_SHOWN_T + 1
        lines = heatmap.terminal_lines(leaking(t), causal(t), [t, t], False, 80,
                                       too_big="`tools/kit show 05 big --svg w.svg`")
        self.assertEqual(lines, ["  (weights is 17×17: too large to draw here; "
                                 "`tools/kit show 05 big --svg w.svg` draws it)"])
        t = heatmap.MAX_SHOWN_T
        self.assertEqual(len(rows(heatmap.terminal_lines(leaking(t), causal(t), [t, t], False,
                                                         80))), t)

    def test_narrow_terminals_get_one_character_cells(self):
        t = 16
        lines = heatmap.terminal_lines(leaking(t), causal(t), [t, t], False, 60,
                                       beyond=beyond(leaking(t), causal(t)))
        self.assertTrue(all(len(line) <= 60 for line in rows(lines)), lines)

    def test_masked_scores_and_nan(self):
        t = 3
        want = [0.5 if c <= r else float("-inf") for r in range(t) for c in range(t)]
        got = [0.5 if c <= r else "nan" for r in range(t) for c in range(t)]
        lines = heatmap.terminal_lines(got, ["-inf" if v < 0 else v for v in want], [t, t],
                                       False, 80, beyond=[1, 2, 5], name="masked")
        self.assertIn(heatmap.MASKED, rows(lines)[0])
        self.assertIn(heatmap.NOT_A_NUMBER, rows(lines)[0])
        self.assertIn("· -inf", lines[-1])
        self.assertIn("? nan or inf", lines[-1])


def verdict_line(matrix: dict | None, output: str = "weights") -> str:
    failure = {"kind": "mismatch", "message": "`causal_attention_weights(scores, d_k)`: ...",
               "text": "`causal_attention_weights(scores, d_k)`: 30 of 36 values differ",
               "file": "tests/test_13_causal_softmax.cpp", "line": 30, "output": output,
               "comparison": {"passed": False, "reason": "30 of 36 values differ",
                              "mistake": "", "hint": "", "diagnosis": "",
                              "worst": {"index": [0, 1], "got": 0.16, "expected": 0,
                                        "times_tolerance": 1e5}}}
    if matrix is not None:
        failure["matrix"] = matrix
    return json.dumps({"event": "test", "test": "causal_attention_weights.notebook",
                       "case": "13_causal_softmax/notebook", "status": "failed",
                       "failures": [failure], "ruled_out": []})


class VerdictStreamTest(unittest.TestCase):
    def stream(self, *lines) -> reports.VerdictStream:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = Path(folder.name) / "ex13.exercises.verdicts"
        head = json.dumps({"event": "program", "schema": reports.SCHEMA,
                           "version": reports.VERSION, "program": "test_ex13_exercises"})
        path.write_text("\n".join([head, *lines]) + "\n", encoding="utf-8")
        return reports.read_verdicts(path)

    def test_the_matrix_is_read_and_drawn_under_the_first_failure(self):
        t = 6
        matrix = {"shape": [t, t], "got": leaking(t), "expected": causal(t),
                  "beyond": beyond(leaking(t), causal(t))}
        test = self.stream(verdict_line(matrix)).tests[0]
        self.assertEqual(test.failures[0].matrix["shape"], [t, t])
        self.assertEqual(test.failures[0].output, "weights")
        with mock.patch.object(heatmap, "colour_wanted", return_value=False):
            screen = student.failure_screen([test])
        self.assertIn("  weights: yours beside the expected; rows are queries, columns keys",
                      screen)
        self.assertEqual(len(rows(screen)), t)

    def test_no_matrix_no_picture(self):
        test = self.stream(verdict_line(None)).tests[0]
        self.assertIsNone(test.failures[0].matrix)
        self.assertEqual(heatmap.failure_picture(test), [])
        self.assertFalse(any("yours beside" in line for line in student.failure_screen([test])))

    def test_a_large_matrix_names_the_command_that_draws_it(self):
        t = 17
        matrix = {"shape": [t, t], "got": leaking(t), "expected": causal(t), "beyond": []}
        test = self.stream(verdict_line(matrix)).tests[0]
        picture = heatmap.failure_picture(test, 80, colour=False)
        self.assertIn("`tools/kit show 13 notebook --svg weights.svg` draws it", picture[-1])


class SvgTest(unittest.TestCase):
    def cells(self, text: str) -> list:
        root = ElementTree.fromstring(text)  # well-formed, or this raises
        return [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "cell"]

    def test_one_cell_per_value_and_yours_beside(self):
        t, heads = 5, 2
        want = causal(t) * heads
        self.assertEqual(len(self.cells(heatmap.svg(want, [heads, t, t]))), heads * t * t)
        got = leaking(t) * heads
        cells = self.cells(heatmap.svg(want, [heads, t, t], got=got, beyond=beyond(got, want),
                                       title="a <title> & more"))
        self.assertEqual(len(cells), 2 * heads * t * t)
        outlined = [cell for cell in cells if cell.get("stroke") == "#d00000"]
        self.assertEqual(len(outlined), len(beyond(got, want)))
        # The expected cells right of the diagonal are white (0), yours are not.
        fills = [cell.get("fill") for cell in cells]
        self.assertEqual(fills[t * t + 1], "#ffffff")  # head 0 expected [0, 1]
        self.assertNotEqual(fills[1], "#ffffff")       # head 0 yours [0, 1]


if __name__ == "__main__":
    sys.exit(unittest.main())

#!/usr/bin/env python3
"""tests/kit/test_laws_status.py — a broken law reaches the student's status line, and never hides
a named mistake.

    test_laws_status.py --build DIR

Laws beside the goldens (kit/core/include/kit/laws.hpp) are checked by the test programs on a
variant of each case. With the build's test_ex19_slips program (tests/kit/slips/):
  - ATTN_SLIP=no_mask (a forward without its causal mask): its goldens name the mistake, and
    that name is the status line; the verdict stream also holds the broken causal law (a
    failure of kind "law", after the named mismatch of the same case);
  - ATTN_SLIP=mask_transposed (the mask read the wrong way round, which no recorded mistake
    names): the status line is the law's sentence, "the future leaks in".
And on verdict streams as a hard-coded answer leaves them (every golden passes, a law breaks):
the status line is the law's sentence; with a named mismatch in another case, the name.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIT = HERE.parents[1]
sys.path.insert(0, str(KIT / "tools"))
sys.path.insert(0, str(HERE))
from kitcli import progress, reports  # noqa: E402
from kitcli.catalogue import Kit  # noqa: E402
from test_slips import status_line  # noqa: E402

BUILD = KIT / "build"  # or --build
KIT_CATALOGUE = Kit.load(KIT)
EX19 = next(e for e in KIT_CATALOGUE.exercises if e["id"] == "19")
LAW_SENTENCE = "the output of token 0 changed when tokens 3.. of x changed"


def run_slip(slip: str, folder: Path):
    """(state, reason, the verdict stream's tests) of test_ex19_slips with ATTN_SLIP=slip."""
    program = BUILD / "bin" / "test_ex19_slips"
    state, reason, _, _ = status_line(program, EX19, slip, KIT_CATALOGUE, folder)
    return state, reason, reports.read_verdicts(folder / f"{slip}.verdicts").tests


def law_failure(case: str) -> reports.TestVerdict:
    message = (f"{LAW_SENTENCE} (context[0, 0, 0]: 0.1, then 0.2): the future leaks in (a "
               "causal mask missing, on the wrong side of the diagonal, or applied after softmax)")
    return reports.TestVerdict(f"multi_head_attention.{case}", f"19_multi_head_attention/{case}",
                               "failed", (reports.Failure("law", message, message),))


def passed(case: str) -> reports.TestVerdict:
    return reports.TestVerdict(f"multi_head_attention.{case}", f"19_multi_head_attention/{case}",
                               "passed")


class LawsOnTheStatusLine(unittest.TestCase):
    def test_a_named_mistake_stays_first_and_the_law_is_reported_beside_it(self):
        with tempfile.TemporaryDirectory() as folder:
            state, reason, tests = run_slip("no_mask", Path(folder))
        self.assertEqual(state, progress.FAILING)
        self.assertIn("no causal mask", reason)
        failed = [test for test in tests if test.outcome == "failed" and test.value_case]
        self.assertTrue(failed)
        for test in failed:
            kinds = [failure.kind for failure in test.failures]
            self.assertEqual(kinds[0], "mismatch", test.name)
            self.assertIn("law", kinds, test.name)
            law = test.failures[kinds.index("law")]
            self.assertTrue(law.message.startswith("the output of token"), law.message)
            self.assertIn("the future leaks in", law.message)

    def test_a_broken_law_names_what_no_recorded_mistake_does(self):
        with tempfile.TemporaryDirectory() as folder:
            state, reason, _ = run_slip("mask_transposed", Path(folder))
        self.assertEqual(state, progress.FAILING)
        self.assertTrue(reason.startswith("the output of token 0 changed"), reason)
        self.assertIn("the future leaks in", reason)

    def test_a_hard_coded_answer_shows_the_law(self):
        state = progress.verdict(EX19, [passed("notebook"), law_failure("three_heads")],
                                 program_passed=False)
        self.assertEqual(state.name, progress.FAILING)
        self.assertTrue(state.reason.startswith(LAW_SENTENCE), state.reason)


def main() -> int:
    global BUILD
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=BUILD)
    options, rest = parser.parse_known_args()
    BUILD = options.build.resolve()
    if not (BUILD / "bin" / "test_ex19_slips").exists():
        print(f"test_laws_status: {BUILD}/bin/test_ex19_slips is not built")
        return 1
    program = unittest.main(argv=[sys.argv[0], *rest], exit=False)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tests/kit/test_recorder_hidden_key.py — a hidden case set's cases come from its secret key.

The seed of each drawn case is HMAC-SHA256(key, "NN_name/case"), never a function of the
case's name and a guessable number: two keys draw other inputs for the same case, one key
draws the same ones again, and the key is stored 0600 in a 0700 folder. `tools/record --out`
refuses --seed, and to replace a keyed set without --new-key. Draws inputs only (no golden is
computed): a few seconds. ctest: kit.recorder_hidden_key. Needs PyTorch; run by Debian's
python3 when the one running it lacks it, "Not Run" (exit 77) where neither has it.
"""

import contextlib
import hashlib
import hmac
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

DEBIAN_PYTHON = "/usr/bin/python3"  # python3-torch's


def has_torch(python):
    return subprocess.run([python, "-c", "import torch, numpy"],
                          capture_output=True).returncode == 0


if importlib.util.find_spec("torch") is None or importlib.util.find_spec("numpy") is None:
    if os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON) and \
            os.access(DEBIAN_PYTHON, os.X_OK) and has_torch(DEBIAN_PYTHON):
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, __file__, *sys.argv[1:]])
    print("not run: no Python with PyTorch here (tools/kit setup --recorder)")
    sys.exit(77)  # ctest's SKIP_RETURN_CODE: "Not Run", never "Passed"

import torch  # noqa: E402  (after the interpreter is settled)

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "tools"))

import recorder  # noqa: E402
from recorder import exercises, hidden_key, store  # noqa: E402
from recorder.cases import Exercise  # noqa: E402

CATALOGUE = json.loads((KIT / "exercises.json").read_text(encoding="utf-8"))


class DrawnInputs(Exercise):
    """An Exercise that keeps each drawn case's seed and inputs instead of recording it."""

    def __init__(self, exercise_id, folder, key, drawn):
        super().__init__(exercise_id, folder, key, recording=None)
        self.drawn_cases = drawn

    def _record(self, name, kind, source, seed, inputs, tolerance):
        self.drawn_cases[f"{self.folder}/{name}"] = (seed, inputs)


def draw_hidden_set(key):
    """{case: (seed, inputs)} of every drawn case of the hidden set keyed by `key`."""
    drawn = {}
    for exercise_id, folder, record in exercises.registered(CATALOGUE):
        record(DrawnInputs(exercise_id, folder, key, drawn))
    return drawn


def same_inputs(first, second):
    """Whether two cases' inputs (tensors, or ints as recorders give sizes) are equal."""
    def same(a, b):
        a, b = torch.as_tensor(a), torch.as_tensor(b)
        return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)
    return first.keys() == second.keys() and all(same(first[n], second[n]) for n in first)


class CaseSeedTest(unittest.TestCase):
    def test_the_seed_is_the_hmac_of_the_case_under_the_key(self):
        key, case = bytes(range(32)), "03_softmax/odd_shape"
        expected = hmac.new(key, case.encode(), hashlib.sha256).digest()[:4]
        self.assertEqual(hidden_key.case_seed(key, case), int.from_bytes(expected, "big"))

    def test_the_name_alone_does_not_give_the_seed(self):
        case = "03_softmax/odd_shape"
        seed = hidden_key.case_seed(hidden_key.new(), case)
        from_name = {int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")
                     for text in [case] + [f"seed {n}: {case}" for n in range(10000)]}
        self.assertNotIn(seed, from_name)  # 1 in 430 000 by chance
        self.assertNotEqual(seed, hidden_key.case_seed(b"", case))

    def test_one_key_repeats_its_seeds_and_two_keys_differ(self):
        first, second = hidden_key.new(), hidden_key.new()
        self.assertNotEqual(first, second)
        cases = [f"{n:02d}_exercise/case_{i}" for n in range(1, 16) for i in range(4)]
        self.assertEqual([hidden_key.case_seed(first, case) for case in cases],
                         [hidden_key.case_seed(bytes(first), case) for case in cases])
        differing = sum(hidden_key.case_seed(first, case) != hidden_key.case_seed(second, case)
                        for case in cases)
        self.assertEqual(differing, len(cases))

    def test_the_key_id_names_the_key_without_being_it(self):
        key = hidden_key.new()
        key_id = hidden_key.identifier(key)
        self.assertEqual(key_id, hashlib.sha256(b"attn-kit key id" + key).hexdigest()[:12])
        self.assertNotIn(key_id, key.hex())
        self.assertNotEqual(key_id, hidden_key.identifier(hidden_key.new()))


class DrawnCasesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.key, cls.other_key = hidden_key.new(), hidden_key.new()
        cls.drawn = draw_hidden_set(cls.key)

    def test_every_drawn_case_is_seeded_from_the_key(self):
        self.assertGreater(len(self.drawn), 20)
        for case, (seed, _) in self.drawn.items():
            self.assertEqual(seed, hidden_key.case_seed(self.key, case), case)

    def test_the_same_key_draws_the_same_inputs(self):
        again = draw_hidden_set(bytes(self.key))
        self.assertEqual(again.keys(), self.drawn.keys())
        for case, (seed, inputs) in again.items():
            self.assertEqual(seed, self.drawn[case][0], case)
            self.assertTrue(same_inputs(inputs, self.drawn[case][1]), case)

    def test_another_key_draws_other_inputs_for_every_case_with_random_values(self):
        # A case of sizes only (a mask's context length, 2 to 16) may draw the same size
        # under two keys; random float values never coincide.
        other = draw_hidden_set(self.other_key)
        self.assertEqual(other.keys(), self.drawn.keys())
        alike = [case for case, (_, inputs) in other.items()
                 if same_inputs(inputs, self.drawn[case][1])
                 and any(torch.as_tensor(value).is_floating_point() for value in inputs.values())]
        self.assertEqual(alike, [])


class ManifestTest(unittest.TestCase):
    def test_a_hidden_manifest_names_its_key_and_the_public_one_none(self):
        key = hidden_key.new()
        hidden = json.loads(store.Recording("hidden", hidden_key.identifier(key)).manifest_text())
        self.assertEqual((hidden["case_set"], hidden["key_id"]),
                         ("hidden", hidden_key.identifier(key)))
        self.assertNotIn(key.hex(), json.dumps(hidden))
        public = json.loads(store.Recording("public").manifest_text())
        self.assertEqual(public["case_set"], "public")
        self.assertNotIn("key_id", public)


class FolderTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.TemporaryDirectory(prefix="attn-hidden-key-test.")
        self.folder = Path(self.top.name, "hidden")

    def tearDown(self):
        self.top.cleanup()

    def parse(self, *argv):
        """(exit status or None, what parse printed to stderr)."""
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            try:
                recorder.parse(list(argv))
            except SystemExit as stop:
                return stop.code, errors.getvalue()
        return None, errors.getvalue()

    def make_keyed_set(self):
        hidden_key.write(self.folder, hidden_key.new())
        (self.folder / store.MANIFEST).write_text(json.dumps({"about": store.ABOUT}))

    def test_the_key_is_stored_for_the_instructor_only(self):
        key = hidden_key.new()
        hidden_key.write(self.folder, key)
        self.assertEqual(self.folder.stat().st_mode & 0o777, 0o700)
        self.assertEqual((self.folder / hidden_key.KEY_FILE).stat().st_mode & 0o777, 0o600)
        self.assertEqual(hidden_key.read(self.folder), key)
        self.assertEqual(sorted(os.listdir(self.folder)), [hidden_key.KEY_FILE])

    def test_a_missing_or_malformed_key_is_named(self):
        with self.assertRaisesRegex(ValueError, "no SECRET_KEY"):
            hidden_key.read(self.folder)
        self.folder.mkdir()
        (self.folder / hidden_key.KEY_FILE).write_text("7\n")
        with self.assertRaisesRegex(ValueError, "not a key"):
            hidden_key.read(self.folder)

    def test_seed_is_refused_in_one_line_naming_the_new_command(self):
        code, said = self.parse("--out", str(self.folder), "--seed", "7")
        self.assertEqual(code, 2)
        self.assertEqual(len(said.strip().splitlines()), 1, said)
        self.assertIn("`tools/record --out DIR`", said)
        self.assertFalse(self.folder.exists())

    def test_a_keyed_set_is_replaced_only_with_new_key(self):
        self.make_keyed_set()
        code, said = self.parse("--out", str(self.folder))
        self.assertEqual(code, 2)
        self.assertEqual(len(said.strip().splitlines()), 1, said)
        self.assertIn("--new-key", said)
        self.assertEqual(self.parse("--out", str(self.folder), "--new-key"), (None, ""))
        self.assertEqual(self.parse("--out", str(self.folder), "--check"), (None, ""))
        self.assertEqual(self.parse("--out", str(self.folder / "new")), (None, ""))

    def test_new_key_needs_a_set_to_write(self):
        self.assertEqual(self.parse("--new-key")[0], 2)
        self.assertEqual(self.parse("--out", str(self.folder), "--check", "--new-key")[0], 2)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""tests/kit/test_cli.py — the tests of tools/kit (the package tools/kitcli/).

ctest runs this file as kit.cli; it runs every test_cli_*.py beside it (standard library
unittest only, no build needed):

  test_cli_reports.py    ctest's JUnit file and GoogleTest's reports, on real samples
  test_cli_progress.py   each exercise's state: done, failing, skipped, not started; the
                         output of status and check
  test_cli_stubs.py      "not started" and reset go by the stub's git blob, not git status
  test_cli_catalogue.py  tools/kit dev catalogue and --check: stub_blob values, README blocks;
                         exercises.json's format_version refused by every reader; kitlib
                         shared by kitcli and grader, which never import each other
  test_cli_diagnose.py   the first compile error, warnings, sanitizer reports (real g++ output)
  test_cli_check.py      check's report: one per failure, per function, a hang; the commands
  test_cli_bench.py      bench and compare: Google Benchmark's JSON, ratios, JSON lines, CSV, SVG
  test_cli_analyse.py    cppcheck on the student's file: findings by line, none on solutions
  test_cli_heatmap.py    the picture of attention weights: terminal grid (plain, colour), SVG
  test_cli_show.py       show: the case as the test program wrote it (fixtures/show/), presented
  test_cli_setup.py      setup on a system the kit is not tested on: one line, no claim

test_student_view.py (ctest: kit.student_view) drives tools/kit on a built copy of the kit.

One file alone: python3 tests/kit/test_cli_progress.py
"""

import sys

from cli_testing import run_every_test_module

if __name__ == "__main__":
    sys.exit(0 if run_every_test_module() else 1)

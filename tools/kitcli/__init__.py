"""kitcli — the code behind tools/kit, the Attention Kit's command line.

Python 3 standard library only, so any python3 runs it. One module per concern:

  cli        the commands and their arguments; `main()` is what tools/kit runs
  catalogue  exercises.json: the exercises in course order and the shared settings
  build      cmake and ctest through the presets, compile errors, one test program run
  reports    what the runs wrote: ctest's JUnit file and GoogleTest's JSON reports
  progress   an exercise's state (done, failing, skipped, not started) and why
  stubs      the pristine stubs: git blob ids, "not started", restoring a stub
  student    status, check, hint, watch and reset
  selftest   `tools/kit test`, the kit's own test suite
  generated  `tools/kit dev catalogue`: the README's generated blocks and the stub_blob values
  timings    `tools/kit dev timings`: a student's commands timed in a fresh clone, docs/timings.md
  setup      the Debian packages the kit needs
  terminal   printing: one line at a time, shortened lines, the progress bar

What tools/grade needs too (exercises.json's loader, the Debian packages, the sandbox's
isolation, text escaping) is tools/kitlib; kitcli never imports the grader.
"""

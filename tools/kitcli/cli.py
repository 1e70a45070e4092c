"""The commands of tools/kit and their arguments; `main()` parses and dispatches."""

from __future__ import annotations

import argparse
from pathlib import Path

# Only the student's loop is imported up front: check after an edit pays every import, and
# bench, book, compare, selftest and timings (xml.sax, urllib: 60 ms) are imported where
# their command runs.
from . import generated, setup, student
from . import show as show_case
from .catalogue import Kit, KitError
from .terminal import say


def numbers(text: str) -> tuple:
    """ "1,2" as (1, 2), for bench's --threads, --batches and --tokens."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers (1,2)") from None
    if any(value < 1 for value in values):
        raise argparse.ArgumentTypeError(f"{text!r}: every number must be at least 1")
    return values


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="tools/kit", description="Your progress, checks and hints for the Attention "
                                      "Kit's exercises.")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("status", help="build, test and show your progress")
    check = commands.add_parser("check", help="build and test one exercise (the Next one "
                                              "without a number), explaining failures")
    check.add_argument("exercise", nargs="?", help="its number, e.g. 03")
    check.add_argument("pattern", nargs="?",
                       help="only the tests whose name contains it, e.g. rows or dim")
    check.add_argument("--all", action="store_true", dest="everything",
                       help="every kind of failure in full, not only the first")
    check.add_argument("--asan", action="store_true",
                       help="also run it under AddressSanitizer, even if nothing looks like "
                            "a memory error (about 7 s more)")
    hint = commands.add_parser("hint", help="show a hint for one exercise (the Next one "
                                            "without a number)")
    hint.add_argument("exercise", nargs="?", help="its number, e.g. 03")
    hint.add_argument("level", nargs="?", type=int, default=1,
                      help="1 (gentlest, the default) up to the last, nearly the answer")
    commands.add_parser("watch", help="check an exercise now and on every save (without a "
                                      "number: the Next one, then any you save)"
                        ).add_argument("exercise", nargs="?", help="its number, e.g. 03")
    show = commands.add_parser("show", help="a case's inputs, expected output and yours, as "
                                            "PyTorch prints them")
    show.add_argument("exercise", nargs="?", help="its number, e.g. 03")
    show.add_argument("case", nargs="?", help="the case (default: the notebook's)")
    show.add_argument("--svg", type=Path, metavar="FILE",
                      help="write its matrices of weights or scores as a heatmap SVG, yours "
                           "beside them")
    commands.add_parser("reset", help="restore an exercise's stub (yours goes to .kit/backups/)"
                        ).add_argument("exercise", help="its number, e.g. 03")
    packages = commands.add_parser("setup", help="install the Debian packages")
    packages.add_argument("--recorder", action="store_true",
                          help="also install PyTorch, to record and check goldens")
    packages.add_argument("--grader", action="store_true",
                          help="also install bubblewrap, tools/grade's sandbox")
    test = commands.add_parser("test", help="the kit's own test suite (minutes; your exercises "
                                            "neither count nor get in the way)")
    test.add_argument("--full", action="store_true",
                      help="also what only maintainers and CI need: goldens recomputed by "
                           "PyTorch, the whole synthetic class, AddressSanitizer, a hidden case "
                           "set graded, Gradescope and Slurm")
    test.add_argument("--no-goldens-check", action="store_true",
                      help="with --full: skip tools/record --check")
    test.add_argument("--no-grading", action="store_true",
                      help="skip grading the synthetic class")
    side_by_side = commands.add_parser(
        "compare", help="CPU solution, your exercise 23, the GPU solution and PyTorch on the "
                        "same inputs: a table, compare.csv and compare.svg")
    side_by_side.add_argument("--quick", action="store_true", help="B = 1, T = 128 only")
    side_by_side.add_argument("--cuda", action="store_true",
                              help="the CUDA build (preset cuda, build-cuda/; needs a GPU)")
    side_by_side.add_argument("--no-build", action="store_true",
                              help="use the programs already built, as bench --no-build")
    side_by_side.add_argument("--out", type=Path, help="folder for compare.csv and compare.svg "
                                                       "(default: build/compare/)")
    notebook = commands.add_parser(
        "book", help="the notebooks' printed tensors, computed in C++ beside the book's own")
    notebook.add_argument("cells", nargs="*", metavar="ID",
                          help="show these prints in full: a document or cell id's start, "
                               "e.g. \"ch03.ipynb In [29]\" or 002")
    notebook.add_argument("--all", action="store_true", dest="everything",
                          help="every print in full (either way the exit status is 0 only "
                               "if every print C++ can reproduce matches)")
    # The maintainer's commands, kept apart from the student's (as rustlings keeps `dev`).
    dev = commands.add_parser("dev", help="the kit's maintainers' commands (bench, catalogue, "
                                          "timings)")
    maintainer = dev.add_subparsers(dest="dev_command", metavar="DEV_COMMAND", required=True)
    timing = maintainer.add_parser("bench", help="time MultiHeadAttention at GPT-2 width: "
                                                 "CPU, the GPU track and PyTorch (minutes)")
    timing.add_argument("--json", action="store_true", help="one JSON object per line")
    timing.add_argument("--quick", action="store_true", help="B = 1, T = 128 only (seconds)")
    timing.add_argument("--cuda", action="store_true",
                        help="the CUDA build (preset cuda, build-cuda/; needs nvcc and a GPU)")
    timing.add_argument("--save", action="store_true",
                        help="also write the run's raw output (device, driver, commit, JSON "
                             "lines) to benchmarks/results/")
    timing.add_argument("--threads", type=numbers, default=(),
                        help="thread counts to time, each in the same run: 1,2 (default: "
                             "every core)")
    timing.add_argument("--no-build", action="store_true",
                        help="time the programs already in the build folder, building nothing "
                             "(a GPU machine that has the programs but not the build's packages)")
    timing.add_argument("--batches", type=numbers, default=(), help="B values: 1,8")
    timing.add_argument("--tokens", type=numbers, default=(), help="T values: 256,512,1024")
    catalogue = maintainer.add_parser(
        "catalogue", help="rewrite the README's generated blocks and the stub_blob values")
    catalogue.add_argument("--check", action="store_true",
                           help="only check that they are up to date")
    catalogue.add_argument("--readme-only", action="store_true",
                           help="with --check: only the README's blocks (a student's edited "
                                "stubs are not stale stub_blob values)")
    timings = maintainer.add_parser(
        "timings", help="time a student's commands in a fresh clone (status, the first check, a "
                        "check after an edit) and write docs/timings.md")
    timings.add_argument("--all", action="store_true", dest="everything",
                         help="also compare --quick and book (minutes)")
    return top


def main(argv: list | None = None) -> int:
    arguments = parser()
    args = arguments.parse_args(argv)
    if args.command is None:  # `tools/kit` alone
        arguments.print_help()
        return 0
    try:
        kit = Kit.load()
        if args.command == "status":
            return student.status(kit)
        if args.command == "check":
            return student.check(kit, args.exercise, args.pattern, sanitize=args.asan,
                                 everything=args.everything)
        if args.command == "hint":
            return student.hint(kit, args.exercise, args.level)
        if args.command == "watch":
            return student.watch(kit, args.exercise)
        if args.command == "show":
            if args.svg:
                for line in show_case.write_svg(kit, student.chosen(kit, args.exercise),
                                                args.case, args.svg):
                    say(line)
                return 0
            return student.show(kit, args.exercise, args.case)
        if args.command == "reset":
            return student.reset(kit, args.exercise)
        if args.command == "setup":
            return 0 if setup.install(kit, with_recorder=args.recorder, say_so=True,
                                      with_grader=args.grader) else 1
        if args.command == "test":
            from . import selftest
            return selftest.run(kit, goldens_check=not args.no_goldens_check,
                                grading=not args.no_grading, full=args.full)
        if args.command == "compare":
            from . import compare
            return compare.run(kit, quick=args.quick, out=args.out, cuda=args.cuda,
                               no_build=args.no_build)
        if args.command == "book":
            from . import book
            return book.run(kit, args.cells, args.everything)
        if args.dev_command == "timings":
            from . import timings
            return timings.run(kit, args.everything)
        if args.dev_command == "bench":
            from . import bench
            return bench.run(kit, as_json=args.json, quick=args.quick, cuda=args.cuda,
                             save=args.save, threads=args.threads, batches=args.batches,
                             tokens=args.tokens, no_build=args.no_build)
        return generated.catalogue(kit, check=args.check, readme_only=args.readme_only)
    except KitError as error:
        say(f"kit: {error}")
        return 1

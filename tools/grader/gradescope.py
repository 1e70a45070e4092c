"""Gradescope: one submission graded in Gradescope's own container (tools/grader/README.md).

    tools/grade gradescope-zip ZIP [--hidden CASES] [--rubric FILE]     (on your machine)
    tools/grade --gradescope [--prepare] [--root /autograder]         (in the container)

Gradescope unzips the autograder zip into /autograder/source, runs its setup.sh once when it
builds the image, then per submission runs run_autograder with the student's files in
/autograder/submission and reads /autograder/results/results.json. The zip holds the kit's
HEAD (the pristine tests and goldens; KIT_COMMIT names the commit), setup.sh and
run_autograder from tools/grader/gradescope/, and, if given, the hidden case set and the
rubric under autograder/ (Gradescope never shows the zip to students), never a hidden set's
SECRET_KEY. setup.sh installs the packages and builds the pristine kit once (`--prepare`), so
a submission only compiles its own exercise files, then locks /autograder/source (the kit, its
solutions, the hidden set) to root, 0700; run_autograder grades it (`--gradescope`) as one
student of a class of one. Its base image: BASE_IMAGE.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from kitlib.isolation import isolation

from . import kitbuild

HERE = Path(__file__).resolve().parent
EXTRAS = "autograder"  # in the zip: the hidden case set and the rubric
GRADE_DIR = "grade"    # under --root: the pristine build, kept from setup.sh to each run
SECRET_KEY = "SECRET_KEY"  # a hidden set's key (tools/record --out): never in the zip
# One truth with docs/working.md ("Platforms"): Debian 12 and 13, Ubuntu 24.04. Gradescope
# documents Ubuntu (22.04 by default), Fedora and CentOS base images; Ubuntu 22.04's CMake
# (3.22) is older than the kit's 3.25.
BASE_IMAGE = ("choose a Debian 12 or 13 or an Ubuntu 24.04 base image (the kit's "
              "docs/working.md, \"Platforms\"; setup.sh installs their packages with apt-get); "
              "on another image "
              "the kit needs CMake >= 3.25 and xtensor >= 0.24 with xtensor-blas (Ubuntu 22.04, "
              "Gradescope's default, has CMake 3.22: it will not build)")


def grader_args(kit: Path, root: Path, prepare_only: bool) -> argparse.Namespace:
    """The arguments of a class run, for the zip's own hidden set and rubric: setup.sh builds the
    kit in ROOT/grade, each submission is graded in ROOT/run on that build."""
    hidden, rubric = kit / EXTRAS / "hidden", kit / EXTRAS / "rubric.json"
    return argparse.Namespace(
        out=root / (GRADE_DIR if prepare_only else "run"), jobs=1, build_jobs=2, shard=None,
        kit_build=None if prepare_only else root / GRADE_DIR,
        hidden=hidden if (hidden / "MANIFEST.json").is_file() else None,
        rubric=rubric if rubric.is_file() else None,
        # Gradescope's container may refuse namespaces (Docker's default profile): the
        # solutions and the hidden set are then kept from the student's uid by setup.sh's
        # chmod 0700 of /autograder/source (tools/grader/README.md).
        without_namespaces=isolation() == "uid")


def main(grader_class, argv) -> int:
    """--gradescope: ROOT/submission in, ROOT/results/results.json out."""
    parser = argparse.ArgumentParser(prog="tools/grade --gradescope",
                                     description="grade one submission in Gradescope's layout")
    parser.add_argument("--gradescope", action="store_true", required=True)
    parser.add_argument("--prepare", action="store_true",
                        help="only build the pristine kit (setup.sh does, once)")
    parser.add_argument("--root", type=Path, default=Path("/autograder"),
                        help="the autograder's root (default /autograder)")
    args = parser.parse_args(argv)
    grader = grader_class(grader_args(HERE.parents[1], args.root, args.prepare))
    try:
        grader.prepare()
    except kitbuild.BuildError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 1
    if args.prepare:
        print(f"grade: the pristine kit {grader.head[:10]} is built in {grader.out}")
        return 0
    for note in grader.notes:
        print(f"grade: {note}")
    submission = args.root / "submission"
    record = grader.grade_student(submission, grader.sandbox())
    results = args.root / "results"
    results.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(grader.out / "students" / record["id"] / "results.json",
                    results / "results.json")
    print(f"grade: {record['total']} of {record['max']} ({record['status']}); "
          f"{results / 'results.json'}")
    return 0


def zip_main(argv) -> int:
    parser = argparse.ArgumentParser(prog="tools/grade gradescope-zip",
                                     description="the autograder zip for Gradescope")
    parser.add_argument("zip", type=Path, help="the zip to write")
    parser.add_argument("--hidden", type=Path, help="a hidden case set to grade with too")
    parser.add_argument("--rubric", type=Path, help="a rubric JSON")
    args = parser.parse_args(argv)
    return make_zip(HERE.parents[1], args.zip, args.hidden, args.rubric)


def make_zip(kit: Path, target: Path, hidden: Path | None, rubric: Path | None) -> int:
    """The autograder zip: the kit's HEAD, KIT_COMMIT, setup.sh, run_autograder, extras."""
    head = kitbuild.git_head(kit)
    archive = subprocess.run(["git", "-C", str(kit), "archive", "--format=zip", head],
                             check=True, capture_output=True).stdout
    with zipfile.ZipFile(io.BytesIO(archive)) as source, \
            zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zipped:
        for item in source.infolist():
            zipped.writestr(item, source.read(item))
        zipped.writestr(kitbuild.COMMIT_FILE, head + "\n")
        for script in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(script)
            info.external_attr = 0o100755 << 16  # executable once unzipped
            zipped.writestr(info, (HERE / "gradescope" / script).read_bytes())
        if hidden is not None:
            for path in hidden_files(hidden):
                zipped.write(path, f"{EXTRAS}/hidden/{path.relative_to(hidden)}")
        if rubric is not None:
            zipped.write(rubric, f"{EXTRAS}/rubric.json")
    print(f"grade: {target} (kit {head[:10]}"
          + (", hidden cases" if hidden else "") + (", rubric" if rubric else "")
          + f"): upload it as the assignment's autograder; {BASE_IMAGE}")
    return 0


def hidden_files(hidden: Path) -> list:
    """The files of a hidden set that go into the zip: its regular files, never its SECRET_KEY
    (the judge needs none; it would let the next set's cases be computed) and never what a
    link points to."""
    files = []
    for folder, _, names in os.walk(hidden):  # links to folders are not followed
        for name in names:
            path = Path(folder) / name
            if name != SECRET_KEY and path.is_file() and not path.is_symlink():
                files.append(path)
    return sorted(files)

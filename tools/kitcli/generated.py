"""`tools/kit dev catalogue`: what is written from exercises.json and never by hand.

  - each exercise's "stub_blob" in exercises.json: the git blob id of its stub now
    (see stubs.py), so a maintainer who changes a stub runs `tools/kit dev catalogue`;
  - the README's catalogue table (<!-- catalogue:begin --> ... end), whose "Kit status"
    column counts the exercise's cases and recorded mistakes in reference_data/MANIFEST.json
    (format_version 2, written by tools/record);
  - the README's dependency sentence (<!-- packages:begin --> ... end), from the settings.

`--check` writes nothing and fails when any of them is stale (ctest runs it as
kit.readme_catalogue_is_current).
"""

from __future__ import annotations

import json
import re
import textwrap

from kitlib import catalogue as catalogue_file

from . import diagnose, stubs
from .catalogue import Kit, KitError, notebook_cells
from .terminal import say

TABLE_MARKERS = ("<!-- catalogue:begin -->", "<!-- catalogue:end -->")
PACKAGES_MARKERS = ("<!-- packages:begin -->", "<!-- packages:end -->")
MANIFEST_FORMAT = 2
README_WIDTH = 92


def manifest_counts(kit: Kit) -> dict:
    """{exercise id: (cases, distinct named mistakes)} from the golden manifest (a mistake
    recorded on several cases counts once)."""
    try:
        manifest = json.loads(kit.manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise KitError(f"cannot read {kit.manifest_path}: {error}") from None
    if manifest.get("format_version") != MANIFEST_FORMAT:
        raise KitError(f"reference_data/MANIFEST.json is format "
                       f"{manifest.get('format_version', 1)}, the catalogue table needs format "
                       f"{MANIFEST_FORMAT}: re-run the recorder (/usr/bin/python3 tools/record)")
    cases = {ex["id"]: 0 for ex in kit.exercises}
    mistakes = {ex["id"]: set() for ex in kit.exercises}
    for case in manifest["cases"].values():
        if case["exercise"] in cases:
            cases[case["exercise"]] += 1
    for entry in manifest["files"].values():
        if entry["role"] == "mistake" and entry["exercise"] in mistakes:
            mistakes[entry["exercise"]].add(entry["name"])
    return {ex_id: (cases[ex_id], len(mistakes[ex_id])) for ex_id in cases}


def catalogue_table(kit: Kit, counts: dict) -> str:
    rows = ["| # | Exercise | Notebook cells | Your file | Kit status |",
            "|---|---|---|---|---|"]
    for ex in kit.exercises:
        cases, mistakes = counts[ex["id"]]
        cells = "; ".join(f"[{name}]({url}) {cited}" for name, url, cited in notebook_cells(ex))
        rows.append(f"| {ex['id']} | {ex['title']} | {cells} | `{ex['stub']}` | "
                    f"ready: {diagnose.count(cases, 'case')}, "
                    f"{diagnose.count(mistakes, 'named mistake')} |")
    return "\n".join(rows)


def packages_sentence(kit: Kit) -> str:
    packages = kit.settings["packages"]
    optional = (" (and, where it can, " + ", ".join(packages["optional"]) + ", which builds "
                "faster)") if packages.get("optional") else ""
    return textwrap.fill(
        "Dependencies (Debian 12 and 13 packages, installed by `tools/kit setup`): "
        + ", ".join(packages["build"]) + optional + "; " + ", ".join(packages["recorder"])
        + " to record goldens (`tools/kit setup --recorder`); and "
        + ", ".join(packages["grader"]) + " to grade a class (`tools/kit setup --grader`, "
        "which `tools/grade` runs itself).", width=README_WIDTH,
        break_on_hyphens=False, break_long_words=False)


def with_block(text: str, markers: tuple, body: str) -> str:
    begin, end = markers
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise KitError(f"README.md has no {begin} ... {end} block")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def current_stub_blobs(kit: Kit) -> dict:
    """{exercise id: the blob id of its stub file now}."""
    blobs = {}
    for ex in kit.exercises:
        blob = stubs.current_blob_id(kit, ex)
        if blob is None:
            raise KitError(f"{ex['stub']} is missing")
        blobs[ex["id"]] = blob
    return blobs


def with_stub_blobs(kit: Kit, catalogue_text: str, blobs: dict) -> str:
    """exercises.json's text with each exercise's "stub_blob" line, right after its "stub"
    line, set to `blobs`; the rest of the file keeps its layout."""
    for ex in kit.exercises:
        pattern = re.compile(r'^([ \t]*)("stub": ' + re.escape(json.dumps(ex["stub"]))
                             + r',\n)(?:[ \t]*"stub_blob": "[^"]*",\n)?', re.M)
        if len(pattern.findall(catalogue_text)) != 1:
            raise KitError(f'exercises.json: no single "stub" line for exercise {ex["id"]}')
        catalogue_text = pattern.sub(
            lambda match: f'{match[1]}{match[2]}{match[1]}"stub_blob": "{blobs[ex["id"]]}",\n',
            catalogue_text)
    rewritten = json.loads(catalogue_text)
    written = {ex["id"]: ex.get("stub_blob") for ex in rewritten["exercises"]}
    if written != blobs:
        raise KitError("exercises.json: the stub_blob values would land in the wrong place")
    try:
        catalogue_file.checked(rewritten)  # its format_version kept
    except catalogue_file.CatalogueError as error:
        raise KitError(str(error)) from None
    return catalogue_text


def readme_with_generated_blocks(kit: Kit, readme: str) -> str:
    readme = with_block(readme, TABLE_MARKERS, catalogue_table(kit, manifest_counts(kit)))
    return with_block(readme, PACKAGES_MARKERS, packages_sentence(kit))


def stale_parts(kit: Kit, blobs: dict | None, readme: str) -> list:
    """What `tools/kit dev catalogue` would change, one line each; [] if nothing. With `blobs`
    None, the stub_blob values are not checked."""
    problems = [f"exercises.json: the stub_blob of {ex['stub']} is not its content "
                "(a maintainer who changed the stub runs `tools/kit dev catalogue`; in a "
                "student's copy, their own work in the file is why)"
                for ex in kit.exercises if blobs and ex.get("stub_blob") != blobs[ex["id"]]]
    try:
        if readme_with_generated_blocks(kit, readme) != readme:
            problems.append("README.md's generated blocks (catalogue table, dependencies) are "
                            "out of date: run `tools/kit dev catalogue`")
    except KitError as error:
        problems.append(str(error))
    return problems


def catalogue(kit: Kit, check: bool, readme_only: bool = False) -> int:
    """Rewrites (or with `check`, checks) the README's blocks and the stub_blob values.
    `readme_only` checks the README alone: ctest runs that in students' copies too, where an
    edited stub is their work; CI checks the stub_blob values on a clean clone."""
    blobs = current_stub_blobs(kit)
    readme = kit.readme_path.read_text(encoding="utf-8")
    if check:
        problems = stale_parts(kit, None if readme_only else blobs, readme)
        for problem in problems:
            say(problem)
        if not problems:
            say("README.md's generated blocks are current" if readme_only else
                "README.md's generated blocks and exercises.json's stub_blob values are current")
        return 1 if problems else 0
    updated_readme = readme_with_generated_blocks(kit, readme)  # reads everything first
    catalogue_text = kit.catalogue_path.read_text(encoding="utf-8")
    kit.catalogue_path.write_text(with_stub_blobs(kit, catalogue_text, blobs), encoding="utf-8")
    kit.readme_path.write_text(updated_readme, encoding="utf-8")
    say("README.md's generated blocks and exercises.json's stub_blob values rewritten")
    return 0

"""The Debian packages the kit needs, from exercises.json's settings: "build" to build and
test the kit, "recorder" (PyTorch) to record or check its goldens, "grader" (bubblewrap, lld)
for tools/grade's sandbox and links."""

from __future__ import annotations

import os
import shutil
import subprocess

from .build import run_command
from .catalogue import Kit
from .terminal import say


def missing_packages(kit: Kit, packages: list) -> list:
    if not shutil.which("dpkg-query"):
        return []  # not Debian: the configure step will name what it cannot find
    # One query for all (each dpkg-query costs ~20 ms of every `check`); a package dpkg has
    # never heard of is reported on stderr and has no line.
    _, output = run_command(["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages],
                            kit.root)
    installed = {line.split()[0] for line in output.splitlines()
                 if line.endswith("install ok installed")}
    return [package for package in packages if package not in installed]


def install(kit: Kit, with_recorder: bool = False, say_so: bool = False,
            with_grader: bool = False) -> bool:
    """Installs what is missing when run as root; else says exactly what to install.
    `say_so`: also say when everything is installed (`tools/kit setup` itself)."""
    packages = kit.settings["packages"]
    wanted = (packages["build"] + (packages["recorder"] if with_recorder else [])
              + (packages["grader"] if with_grader else []))
    missing = missing_packages(kit, wanted)
    if not missing:
        if say_so:
            say("kit setup: everything is installed (" + ", ".join(wanted) + ")")
        return True
    if os.geteuid() != 0:
        say("kit: these Debian packages are missing: " + " ".join(missing))
        say("     install them with: sudo apt-get install " + " ".join(missing))
        return False
    say("kit setup: installing " + " ".join(missing) + " ...")
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing]):
        result = subprocess.run(command, env=environment, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            say(result.stdout[-3000:])
            say(f"kit setup: `{' '.join(command)}` failed (exit {result.returncode})")
            return False
    say("kit setup: done")
    return True

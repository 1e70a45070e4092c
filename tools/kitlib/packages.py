"""The Debian packages the kit needs, from exercises.json's settings: "build" to build and
test the kit, "recorder" (PyTorch) to record or check its goldens, "grader" (bubblewrap, lld)
for tools/grade's sandbox and links; and "optional" ones that only make the build faster (lld,
which links a test program in a third of GNU ld's time): installed with the others where they
can be, never required. `tools/kit setup` and tools/grade install them."""

from __future__ import annotations

import os
import shutil
import subprocess


def say(text: str) -> None:
    print(text, flush=True)


# Where the README's two commands are checked from scratch (../shared/bin/bare-debian-check):
# Debian 12 and 13; Ubuntu 24.04 by its package versions (docs/working.md, "Platforms").
TESTED = {("debian", "12"): "Debian 12", ("debian", "13"): "Debian 13",
          ("ubuntu", "24.04"): "Ubuntu 24.04"}


def this_platform(os_release: str = "/etc/os-release") -> tuple:
    """(ID, VERSION_ID, PRETTY_NAME) of this system, from os-release; ("", "", "an unknown
    system") where it has none."""
    fields = {}
    try:
        with open(os_release, encoding="utf-8", errors="replace") as file:
            for line in file:
                key, _, value = line.strip().partition("=")
                fields[key] = value.strip().strip('"')
    except OSError:
        pass
    return (fields.get("ID", ""), fields.get("VERSION_ID", ""),
            fields.get("PRETTY_NAME") or "an unknown system")


def platform_note(platform: tuple) -> str:
    """One line on a system the kit is not tested on; "" on one it is."""
    ident, version, name = platform
    if (ident, version) in TESTED:
        return ""
    tested = ", ".join(TESTED.values())
    if not shutil.which("dpkg-query"):
        return (f"kit setup: {name} has no dpkg: the kit cannot check or install its packages "
                f"here (tested on {tested}); install your system's equivalents of the Debian "
                f"packages in exercises.json's settings, and CMake names what it cannot find")
    return (f"kit setup: {name} is not one of the systems the kit is tested on ({tested}); "
            f"installing by Debian's package names")


def missing_packages(packages: list) -> list:
    """Of `packages`, those dpkg does not list as installed ([] where there is no dpkg)."""
    if not shutil.which("dpkg-query"):
        return []  # not Debian: the configure step will name what it cannot find
    # One query for all (each dpkg-query costs ~20 ms of every `check`); a package dpkg has
    # never heard of is reported on stderr and has no line.
    output = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages],
                            text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL).stdout
    installed = {line.split()[0] for line in output.splitlines()
                 if line.endswith("install ok installed")}
    return [package for package in packages if package not in installed]


def install(packages: dict, with_recorder: bool = False, say_so: bool = False,
            with_grader: bool = False) -> bool:
    """Installs what is missing of `packages` (exercises.json's settings' "packages") when run
    as root; else says exactly what to install, and returns False where a required package
    is missing (an optional one missing stops nothing). `say_so`: also say when everything
    is installed, and name a missing optional package (`tools/kit setup` itself)."""
    required = (packages["build"] + (packages["recorder"] if with_recorder else [])
                + (packages["grader"] if with_grader else []))
    optional = [package for package in packages.get("optional", []) if package not in required]
    note = platform_note(this_platform())
    if note and (say_so or not shutil.which("dpkg-query")):
        say(note)
    if not shutil.which("dpkg-query"):
        return True  # nothing to check here: the configure step names what it cannot find
    missing = missing_packages(required + optional)
    missing_required = [package for package in missing if package not in optional]
    missing_optional = [package for package in missing if package in optional]
    if not missing:
        if say_so:
            say("kit setup: everything is installed (" + ", ".join(required + optional) + ")")
        return True
    if os.geteuid() != 0:
        if missing_required:
            say("kit: these Debian packages are missing: " + " ".join(missing_required))
            say("     install them with: sudo apt-get install " + " ".join(missing))
            return False
        if say_so:
            say("kit setup: everything needed is installed; optional, for faster builds: "
                "sudo apt-get install " + " ".join(missing_optional))
        return True
    if missing_required and not apt_install(missing_required, note, update=True):
        return False
    # Apart, so that a system without them (another distribution's names) still sets up.
    if missing_optional and not apt_install(missing_optional, note,
                                            update=not missing_required):
        say("kit setup: the optional " + " ".join(missing_optional) + " could not be installed; "
            "the kit builds without, a little slower")
    say("kit setup: done")
    return True


def apt_install(names: list, note: str, update: bool) -> bool:
    """apt-get install `names` (after apt-get update where `update`); on failure, says what
    failed and returns False."""
    say("kit setup: installing " + " ".join(names) + " ...")
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    # Another apt-get of the machine may hold dpkg's lock a while: wait for it, not fail.
    apt = ["apt-get", "-o", "DPkg::Lock::Timeout=600"]
    commands = [[*apt, "update", "-qq"]] if update else []
    for command in commands + [[*apt, "install", "-y", "-qq", "--no-install-recommends", *names]]:
        result = subprocess.run(command, env=environment, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            say(result.stdout[-3000:])
            say(f"kit setup: `{' '.join(command)}` failed (exit {result.returncode})"
                + (f" on {this_platform()[2]}, which the kit is not tested on" if note else ""))
            return False
    return True

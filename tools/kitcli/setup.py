"""The Debian packages the kit needs (kitlib.packages, which tools/grade uses too), for this
kit's catalogue: `tools/kit setup`, and every command that builds first."""

from __future__ import annotations

from kitlib import packages

from .catalogue import Kit


def install(kit: Kit, with_recorder: bool = False, say_so: bool = False,
            with_grader: bool = False) -> bool:
    """Installs what is missing when run as root; else says exactly what to install.
    `say_so`: also say when everything is installed (`tools/kit setup` itself)."""
    return packages.install(kit.settings["packages"], with_recorder=with_recorder,
                            say_so=say_so, with_grader=with_grader)

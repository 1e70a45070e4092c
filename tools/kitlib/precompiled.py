"""Precompiled headers that ccache must not see stale (tools/kit test, tools/grade).

With ccache as the compiler launcher, a precompiled header's new build is keyed on the old
one: CMake compiles cmake_pch.hxx.gch with `-include cmake_pch.hxx`, ccache finds the old
cmake_pch.hxx.gch beside that header and preprocesses with -fpch-preprocess, which reads the
old .gch instead of the headers it was made of. A header changed since then is not hashed,
and ccache can hand back a .gch made of other headers: every file that includes one of them
then fails with "redefinition of class ...". A .gch that ninja is about to build again is
removed first, so that ccache hashes the headers themselves.
"""
from __future__ import annotations

import subprocess
from pathlib import Path


def uses_ccache(build_dir: Path) -> bool:
    """Whether the build folder was configured with ccache as its C++ compiler launcher."""
    cache = build_dir / "CMakeCache.txt"
    return cache.is_file() and any(
        line.startswith("CMAKE_CXX_COMPILER_LAUNCHER:") and line.rstrip().endswith("ccache")
        for line in cache.read_text(encoding="utf-8", errors="replace").splitlines())


def stale(build_dir: Path, gch: Path) -> bool:
    """Whether a file the .gch was made of (ninja's record of its dependencies) is newer
    than it, or gone: ninja builds it again then."""
    listed = subprocess.run(["ninja", "-t", "deps", str(gch.relative_to(build_dir))],
                            cwd=build_dir, capture_output=True, text=True,
                            check=False).stdout.splitlines()
    built = gch.stat().st_mtime_ns
    for line in listed:
        if not line.startswith(" "):  # the .gch's own line: "<path>: #deps 467, ..."
            continue
        source = build_dir / line.strip()  # an absolute path stays absolute
        if not source.exists() or source.stat().st_mtime_ns > built:
            return True
    return False


def remove_stale_for_ccache(build_dir: Path) -> list:
    """Removes the precompiled headers of a ccache build that ninja will build again (see
    above); returns them. Nothing to do in a build without ccache."""
    if not uses_ccache(build_dir):
        return []
    removed = [gch for gch in sorted(build_dir.glob("CMakeFiles/*/cmake_pch.hxx.gch"))
               if stale(build_dir, gch)]
    for gch in removed:
        gch.unlink()
    return removed

"""tools/kit book: every cell of the seed notebooks that prints a tensor, run in C++ (kit/book/:
the kit's solutions, attn::TorchGenerator for the cells that seed PyTorch) and set beside the
tensor the document printed. The C++ program decides (attn_book); this builds and runs it."""

from __future__ import annotations

import subprocess

from . import build
from .catalogue import Kit
from .terminal import say

PROGRAM = "attn_book"


def run(kit: Kit, prefixes: list, everything: bool) -> int:
    """Builds attn_book in the student's build folder and runs it: one line per print, or with
    `everything` (--all) or name prefixes ("ch03.ipynb In [29]", "002") each print in full. Its exit
    status: 0 when every print C++ can reproduce matches the document."""
    _, built, output = build.configure_and_build(kit, "default", PROGRAM)
    if not built:
        say("kit book: attn_book did not build:")
        say("\n".join(output.splitlines()[-20:]))
        return 1
    program = build.build_dir(kit, "default") / "bin" / PROGRAM
    return subprocess.call([str(program), *(["--all"] if everything else []), *prefixes],
                           cwd=kit.root)

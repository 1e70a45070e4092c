"""What a student's object may define and call: checked before it is linked (PrairieLearn's C
grader does the same with nm).

A linker takes a symbol from the first object that defines it, and opens an archive member
only for a symbol still undefined: a student's object that defines one of the kit's own
functions (the GPU track's attn::gpu::causal_attention, which the tests call with the
student's kernel) replaces it, and the kit's version is never linked. So an object may define:
- the functions its exercise declares: the strong global symbols of the stub's own object;
- its own helpers, under names the kit's link does not define;
- whatever the compiler makes on its own (inline functions, template instances: weak, and
  local symbols), except a weak definition of a symbol the kit defines strongly (a weak
  override wins where the kit's member is never opened);
and never `main`. It may call the exercise API (headers, the GPU backend's library) and the
earlier exercises' solutions, but nothing else of the kit's (its testing layer, case runner,
the GPU shim). An ELF `.deplibs` section, which asks lld to link the libraries it names, is
refused whatever it names.
"""

from __future__ import annotations

import functools
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

# nm -P's type letters: upper case is global. Weak: W, V (object), u (GNU unique global).
STRONG = set("TDBRGSCAI")
WEAK = set("WVu")

# The C++ runtime's functions the kit defines before the runtime does, to watch them: every
# `throw` calls __cxa_throw, which keeps the call stack for the line of the student's file
# (kit/core/src/throw_hook.cpp). A student's object calls it as it calls the runtime's, and
# may not define it (it is the kit's).
RUNTIME_HOOKS = frozenset({"__cxa_throw"})


def parse_nm(text: str) -> dict:
    """{name: type letter} from `nm -P` output (archives' member headers are skipped)."""
    symbols = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and not line.endswith(":") and len(fields[1]) == 1:
            symbols[fields[0]] = fields[1]
    return symbols


@functools.lru_cache(maxsize=None)
def defined_strongly(path: str) -> frozenset:
    """The strong global symbols a file of the kit's own build defines."""
    listing = subprocess.run(["nm", "-P", "-g", "--defined-only", path], capture_output=True,
                             text=True, errors="replace", check=True).stdout
    return frozenset(name for name, kind in parse_nm(listing).items() if kind in STRONG)


@dataclass
class LinkRules:
    """One exercise's rules: the symbols its stub declares, the kit's (all the link's kit
    inputs), and the kit's internals (those the student may not call)."""
    declared: set
    kit: set
    internal: set


def rules_for(cmds, kit_dirs) -> LinkRules:
    """The rules of one exercise, from its recipe's link inputs in the kit's build."""
    from .kitbuild import link_inputs  # the recipe's reader
    declared = set(defined_strongly(cmds.stub_library))
    allowed_calls = set(cmds.solution_archives) | set(cmds.api_archives)
    kit, internal = set(), set()
    for path in map(str, link_inputs(cmds, kit_dirs)):
        symbols = defined_strongly(path)
        kit |= symbols
        if path not in allowed_calls:
            internal |= symbols
    return LinkRules(declared, kit, internal)


def merged(rules: list) -> LinkRules:
    """The rules of one object holding several exercises' files (the grader's one unit)."""
    return LinkRules(set().union(*(r.declared for r in rules)),
                     set().union(*(r.kit for r in rules)),
                     set().union(*(r.internal for r in rules)))


# What the grader reads of an object's listing: far more than any exercise file defines.
MAX_LISTING_BYTES = 64 << 20


def listing_command(obj: Path) -> str:
    """The shell command, run in the sandbox (nm and readelf parse an untrusted file), whose
    output refusal() reads."""
    quoted = shlex.quote(str(obj))
    return f"nm -P {quoted} && echo @@sections@@ && readelf -S -W {quoted}"


def refusal(listing: str, rules: LinkRules) -> str:
    """Why a student's object may not be linked ("" if it may), from LISTING's output: the
    first symbol or section at fault, in words that say what the file may define."""
    symbols_text, _, sections = listing.partition("@@sections@@")
    if ".deplibs" in sections:
        return ("it has a .deplibs section, which asks the linker to link libraries of its "
                "choosing (`#pragma comment(lib, ...)` or a .pushsection in asm): an exercise "
                "file links only with the kit's own libraries")
    symbols = parse_nm(symbols_text)
    if symbols.get("main") in STRONG | WEAK:
        return "it defines main(): the kit's test program has its own"
    for name, kind in sorted(symbols.items()):
        if name in rules.declared:
            continue
        if kind in STRONG | WEAK and name in rules.kit:
            return (f"it defines {demangle(name)}, which is the kit's own: an exercise file "
                    f"may define the functions its stub declares and helpers of its own "
                    f"(static, or in an unnamed namespace)")
        if kind == "U" and name in rules.internal and name not in RUNTIME_HOOKS:
            return (f"it calls {demangle(name)}, which is the kit's own, not the exercise "
                    f"API: an exercise file may call the API in include/attn/ and the earlier "
                    f"exercises' functions")
    return ""


def demangle(name: str) -> str:
    """The C++ name of a symbol (c++filt) without its parameter list, which xtensor's types
    make a paragraph long: `attn::gpu::causal_attention(...)`; the mangled name where c++filt
    is missing."""
    try:
        readable = subprocess.run(["c++filt", name], capture_output=True, text=True,
                                  timeout=10).stdout.strip() or name
    except (OSError, subprocess.TimeoutExpired):
        return name
    return readable.split("(", 1)[0] + "(...)" if "(" in readable else readable

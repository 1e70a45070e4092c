"""A lint of device code for the GPU track (exercise 23), for a machine without nvcc.

g++ compiles exercises/23_fused_attention.cu for Thrust's OpenMP backend, where the functor's
operator() is a plain host function: a std::vector, a std::string, an exception or
std::getenv in it compiles and runs. nvcc compiles the same operator() for the GPU, where
none of them exists (the kit's CUDA build makes nvcc's "calling a __host__ function" warnings
errors, cmake/AttnGpu.cmake). This finds, in the text of the file alone, the code inside a
function marked ATTN_HOST_DEVICE (or __device__, __global__) that nvcc refuses or that goes
wrong on a GPU, and names it by its line:

    lint(text) -> [(line, message)]      e.g. (93, "std::vector in operator(): ...")

A pattern match, not a compiler: comments, string literals and preprocessor lines are ignored;
what it names is certain to be in device code. Standard library only.

    python3 tools/kitcli/device_lint.py FILE...   prints FILE:LINE: message; exit 1 if any
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DEVICE_MARKERS = re.compile(r"\b(ATTN_HOST_DEVICE|__device__|__global__)\b")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof",
                 "decltype", "static_assert", "defined", "do", "else", "noexcept", "throw",
                 "new", "delete", "operator", "alignas", "typeid"}

LOCAL_ARRAY = "keep a fixed-size local array (float acc[64]) or accumulate into context directly"
HEAP = ("the GPU's heap is small (8 MB by default) and slow to allocate from for every row; "
        + LOCAL_ARRAY)
HOST_ONLY = "a host function, which nvcc refuses in device code"

# (pattern, what it is ("{}": the text found), why and what to do instead); each is searched
# in a device function's body, comments and strings blanked.
RULES = [
    (r"\bstd::vector\b", "std::vector",
     f"it allocates through host functions, which nvcc refuses in device code; {LOCAL_ARRAY}"),
    (r"\bstd::(?:basic_)?string\b|\bstd::to_string\b", "std::string",
     "strings are host objects, which nvcc refuses in device code; a kernel only computes "
     "numbers"),
    (r"\bstd::(?:map|unordered_map|set|unordered_set|multimap|list|deque|forward_list|"
     r"priority_queue|queue|stack)\b", "{}",
     f"it allocates through host functions, which nvcc refuses in device code; {LOCAL_ARRAY}"),
    (r"\bstd::array\b", "std::array",
     "its operator[] is a host function to nvcc; use a plain local array, float acc[64]"),
    (r"\bstd::(?:unique_ptr|shared_ptr|make_unique|make_shared|function)\b",
     "{}",
     "host objects, which nvcc refuses in device code; use plain local variables"),
    (r"\bstd::(?:cout|cerr|clog|cin|endl|ostream|istream|ostringstream|stringstream|"
     r"ifstream|ofstream|fstream)\b", "{} (iostream)",
     "streams do not exist on a GPU (printf does, for debugging)"),
    (r"(?<![\w:])(?:std::)?(?:fprintf|fputs|puts|fopen|fclose|fwrite|fread|perror)\s*\(",
     "{}",
     "files do not exist on a GPU (printf does, for debugging)"),
    (r"\bthrow\b|\btry\b|\bcatch\b", "{} (an exception)",
     "device code has no exceptions: check sizes on the host, before the launch, as "
     "require_positive does"),
    (r"(?<![\w:])(?:new|delete)\b", "{}", HEAP),
    (r"(?<![\w:.>])(?:std::)?(?:malloc|calloc|realloc|free)\s*\(", "{}", HEAP),
    (r"(?<![\w:.>])(?:std::)?(?:getenv|system|exit|rand|srand)\s*\(",
     "{}", f"{HOST_ONLY}; read what the kernel needs on the host "
     "and pass it in a field of the functor"),
    (r"\bstd::(?:max|min)\b", "{}",
     f"{HOST_ONLY} (without --expt-relaxed-constexpr); use fmaxf / fminf"),
    (r"\bstd::numeric_limits\b", "std::numeric_limits",
     f"{HOST_ONLY} (without --expt-relaxed-constexpr); use INFINITY or FLT_MAX"),
    (r"\bstd::(?:swap|sort|fill|copy|accumulate|inner_product|transform|reduce|"
     r"max_element|min_element|iota)\b", "{}",
     f"{HOST_ONLY}; write the loop out"),
    (r"\bthrust::(?:device_vector|host_vector)\b", "{}",
     "it allocates through host functions; allocate buffers on the host before "
     "thrust::for_each and pass a pointer (one region per row: rows run at the same time)"),
    (r"\bstatic\b(?!\s+(?:constexpr|const)\b)", "a static variable",
     "there is one for every row, and rows running at the same time write it together (a "
     "race); declare it inside operator() without static"),
]
RULES = [(re.compile(pattern), what, why) for pattern, what, why in RULES]


def blank(text: str) -> str:
    """`text` with comments, string and character literals, and preprocessor lines replaced
    by spaces, newlines kept: the same length, the same line numbers."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def clear(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            clear(i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            clear(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            clear(i, j)
            i = j
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (
                text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren] if open_paren >= 0 else ""
            end = text.find(")" + delimiter + '"', max(open_paren, i))
            j = n if open_paren < 0 or end < 0 else end + len(delimiter) + 2
            clear(i + 1, j)
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            clear(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def matching(code: str, start: int, opening: str, closing: str) -> int:
    """The index of the bracket that closes the one at `start`, or len(code)."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == opening:
            depth += 1
        elif code[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return len(code)


def function_after(code: str, position: int):
    """The function whose declaration goes on at `position`: (name, index of its body's
    '{', index of the matching '}'), or None for a declaration without a body."""
    paren = code.find("(", position)
    if paren < 0:
        return None
    before = code[position:paren].rstrip()
    if before.endswith("operator") or re.search(r"operator\s*\(\s*\)$", before):
        if code[paren:paren + 2].replace(" ", "") == "()" or re.match(r"\(\s*\)", code[paren:]):
            paren = code.find("(", paren + 1)
        name = "operator()"
    else:
        words = re.findall(r"[A-Za-z_~]\w*(?:::[A-Za-z_~]\w*)*", before)
        name = (words[-1] + "()") if words else "a function"
    close = matching(code, paren, "(", ")")
    i = close + 1
    while i < len(code) and code[i] not in "{;":
        if code[i] == "(":
            i = matching(code, i, "(", ")")
        i += 1
    if i >= len(code) or code[i] == ";":
        return None
    return name, i, matching(code, i, "{", "}")


def device_functions(code: str) -> list:
    """[(name, body start, body end)] of the functions marked for the device."""
    found = []
    for marker in DEVICE_MARKERS.finditer(code):
        function = function_after(code, marker.end())
        if function and not any(start <= function[1] <= end for _, start, end in found):
            found.append(function)
    return found


DEFINITION = re.compile(r"(?<![\w:.>])([A-Za-z_]\w*)\s*\(")


def host_functions(code: str, device: list) -> dict:
    """{name: line} of the functions this file defines without a device marker (outside any
    device function), which device code must not call."""
    found = {}
    for match in DEFINITION.finditer(code):
        name, start = match.group(1), match.start(1)
        if name in NOT_FUNCTIONS or any(s <= start <= e for _, s, e in device):
            continue
        close = matching(code, match.end() - 1, "(", ")")
        after = re.match(r"\s*(?:const\b\s*)?(?:noexcept\b\s*)?(?:override\b\s*)?"
                         r"(?:final\b\s*)?(?:->\s*[\w:<>,\s*&]+?)?\s*\{", code[close + 1:])
        if not after:
            continue
        declaration_start = max(code.rfind(c, 0, start) for c in ";{}") + 1
        declaration = code[declaration_start:start]
        if DEVICE_MARKERS.search(declaration) or not re.search(r"[\w>&*]\s+$", declaration):
            continue  # a device function, or a call / a control statement, not a definition
        found.setdefault(name, code.count("\n", 0, start) + 1)
    return found


def undecorated_operators(code: str) -> list:
    """[(line, message)] for each functor's operator() defined without a device marker, in a
    file that runs functors with Thrust."""
    if "thrust::" not in code:
        return []
    findings = []
    for match in re.finditer(r"\boperator\s*\(\s*\)\s*\(", code):
        declaration_start = max(code.rfind(c, 0, match.start()) for c in ";{}") + 1
        if DEVICE_MARKERS.search(code[declaration_start:match.start()]):
            continue
        if function_after(code, match.start()) is None:
            continue
        findings.append((code.count("\n", 0, match.start()) + 1,
                         "operator() is not marked ATTN_HOST_DEVICE: thrust::for_each calls it "
                         "from device code, and nvcc refuses a host function there; keep the "
                         "stub's `ATTN_HOST_DEVICE void operator()(std::int64_t row) const`"))
    return findings


def lint(text: str) -> list:
    """[(line, message)], sorted by line, for the host-only or heap-allocating code inside the
    device functions of a .cu file's `text`."""
    code = blank(text)
    device = device_functions(code)
    host = host_functions(code, device)
    findings = set(undecorated_operators(code))
    for function, start, end in device:
        body = code[start:end + 1]

        def line_of(offset, start=start):
            return code.count("\n", 0, start + offset) + 1

        for pattern, what, why in RULES:
            for match in pattern.finditer(body):
                shown = what.format(match.group(0).rstrip("( \t\n"))
                findings.add((line_of(match.start()), f"{shown} in {function}: {why}"))
        for name, defined_at in host.items():
            for match in re.finditer(rf"(?<![\w:.>]){re.escape(name)}\s*\(", body):
                findings.add((line_of(match.start()),
                              f"{name}() called in {function}: it is a host function (line "
                              f"{defined_at}), which nvcc refuses in device code; mark it "
                              "ATTN_HOST_DEVICE, as operator() is"))
    return sorted(findings)


def lint_file(path: Path) -> list:
    return lint(Path(path).read_text(encoding="utf-8", errors="replace"))


def report(shown_path: str, findings: list) -> str:
    """One line per finding, `path:line: message`, as compilers write them."""
    return "".join(f"{shown_path}:{line}: {message}\n" for line, message in findings)


def exercise_findings(root: Path, ex: dict) -> list:
    """The findings in a GPU-track exercise's file (exercises.json "gpu" or "kernel": true);
    [] for any other exercise, or where the file cannot be read."""
    if not (ex.get("gpu") or ex.get("kernel")):
        return []
    try:
        return lint_file(Path(root) / ex["stub"])
    except OSError:
        return []


def status_reason(findings: list) -> str:
    """One line for a status that the findings make "not done", or "" where there are none:
    the first finding, and how many more."""
    if not findings:
        return ""
    line, message = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return f"device code nvcc would refuse, line {line}: {message}{more}"


def exercise_report(root: Path, ex: dict, shown_path: str) -> list:
    """What `tools/kit check` prints after building a GPU-track exercise: its findings, each
    `path:line: message`, under one heading line, then a blank line; [] where there are none."""
    findings = exercise_findings(root, ex)
    if not findings:
        return []
    count = f"{len(findings)} problem{'s' if len(findings) > 1 else ''}"
    return ([f"⚠ {count} in the device code of {shown_path}, which nvcc refuses or a GPU "
             "cannot run (the CPU build runs it, where it works):"]
            + [f"  {line}" for line in report(shown_path, findings).splitlines()] + [""])


def main(argv: list) -> int:
    if not argv:
        print("usage: device_lint.py FILE.cu...", file=sys.stderr)
        return 2
    any_found = False
    for name in argv:
        findings = lint_file(Path(name))
        sys.stdout.write(report(name, findings))
        any_found = any_found or bool(findings)
    return 1 if any_found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What the compiler, the linker and the sanitizers said, in the student's terms.

g++ and ninja print a lot around the one line a student needs: ninja's "FAILED:" line and
the 300-character compiler command, every file included on the way, forty overload
candidates, and xtensor's types spelled out in full. This module finds, in that output:

  - the first error of the student's own file (or, when there is none, the first error at
    all: a header, the linker), with its source line, its caret and the notes g++ attached
    to it in the student's file, plus the kit's advice for the errors beginners meet first;
  - the warnings g++ gave for the student's file, remembered per exercise, because a build
    that has nothing to do prints nothing;
  - in an AddressSanitizer or UBSan report: what went wrong and the first frame in the
    student's file, and whether it happened inside xtensor's lazy reducer (the keep_dims
    trap).

The tests run it on real g++ 12 and sanitizer output, recorded in tests/kit/fixtures/.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import stubs
from .catalogue import Kit

# xtensor's types as the student wrote them: attn::Vector and attn::Matrix (attn/tensor.hpp).
_CONTAINER = (r"xt::xtensor_container<xt::uvector<float, std::allocator<float> >, {rank}(?:ul)?, "
              r"(?:xt::layout_type::row_major|\(xt::layout_type\)1), xt::xtensor_expression_tag>")
TENSOR_NAMES = ((re.compile(_CONTAINER.format(rank=1)), "attn::Vector"),
                (re.compile(_CONTAINER.format(rank=2)), "attn::Matrix"))
# g++ adds " {aka 'the type spelled out'}" after a type; the name the student used is enough.
AKA = re.compile(r" \{aka (?:‘[^’]*’|'[^']*')\}")

LOCATION = r"(?P<path>[^\s:][^:]*):(?P<line>\d+):(?:(?P<column>\d+):)?"
DIAGNOSTIC = re.compile(LOCATION + r" (?P<severity>fatal error|error|warning|note): "
                                   r"(?P<message>.*)$")
REQUIRED_FROM = re.compile(LOCATION + r"\s+required from (?:here|.*)$")
EXCERPT = re.compile(r"^ *\d* \| ")  # g++'s "   18 |     code" and "      |     ^~~"
LINKER = re.compile(r"(?P<what>undefined reference to|multiple definition of) "
                    r"[`‘'](?P<symbol>.*)['’]$")
NINJA_STEP = re.compile(r"^\[\d+/\d+\] ")

XIO_ADVICE = ("To print a tensor with <<, add `#include <xtensor/xio.hpp>` at the top of your "
              "file: that header declares operator<< for xtensor's tensors.")


# An xtensor type's template arguments longer than this are cut: xt::xfunction<…>
LONG_TEMPLATE = 80
EXPRESSION = re.compile(r"xt::(xfunction|xview|xreducer|xgenerator|xbroadcast|xstrided_view|"
                        r"xindex_view|xscalar)\b")
EXPRESSION_ADVICE = (
    "That is an xtensor expression: a recipe, computed when it is read, not a tensor. Store "
    "it in one first, `const attn::Matrix m = <expression>;` (or attn::Vector), or call "
    "`xt::eval(<expression>)`; a single number from a reduction is `xt::sum(v)()`.")


def cut_long_templates(text: str) -> str:
    """`xt::xfunction<300 characters>` as `xt::xfunction<…>`: the kind of expression is what
    the student needs, not its every operand."""
    out, i = [], 0
    for match in re.finditer(r"xt::\w+<", text):
        if match.start() < i:
            continue  # inside a template already cut
        depth, j = 1, match.end()
        while j < len(text) and depth:
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            j += 1
        if j - match.end() > LONG_TEMPLATE:
            out.append(text[i:match.end()] + "…>")
            i = j
    return "".join(out) + text[i:]


def readable(text: str) -> str:
    """g++'s text with xtensor's container types named as the student wrote them, and long
    expression types cut."""
    for pattern, name in TENSOR_NAMES:
        text = pattern.sub(name, text)
    return cut_long_templates(AKA.sub("", text))


@dataclass
class Diagnostic:
    """One error or warning of g++ (or of the linker), with what belongs to it."""
    path: str            # as g++ printed it; "" for the linker
    line: int
    column: int
    severity: str        # "error", "fatal error", "warning" or "linker"
    message: str         # readable(): xtensor's types as attn::Vector / attn::Matrix
    excerpt: list = field(default_factory=list)  # g++'s source line and caret line
    notes: list = field(default_factory=list)    # [(path, line, message)] of its notes
    # For an error inside a header: where the student's file asked for it ("required from
    # here"), as (path, line, column), else None.
    required_from: tuple | None = None

    @property
    def is_error(self) -> bool:
        return self.severity != "warning"

    def as_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column,
                "severity": self.severity, "message": self.message, "excerpt": self.excerpt}


def is_students(path: str, ex: dict) -> bool:
    """True for the exercise's own file however the build spelled its path (absolute)."""
    path = path.replace("\\", "/")
    return path == ex["stub"] or path.endswith("/" + ex["stub"])


def parse_compiler_output(text: str) -> list:
    """Every error and warning in g++'s and the linker's output, in order."""
    found: list = []
    context: list = []  # "required from" locations since the last diagnostic
    last_was_diagnostic = False
    for line in text.splitlines():
        if EXCERPT.match(line):
            if last_was_diagnostic and len(found[-1].excerpt) < 2:  # code line and caret
                found[-1].excerpt.append(line)
            continue
        last_was_diagnostic = False
        match = DIAGNOSTIC.match(line)
        if match and match["severity"] == "note":
            if found:
                found[-1].notes.append((match["path"], int(match["line"]),
                                        readable(match["message"].strip())))
            continue
        if match:
            found.append(Diagnostic(
                path=match["path"], line=int(match["line"]), column=int(match["column"] or 0),
                severity=match["severity"], message=readable(match["message"]),
                required_from=context[-1] if context else None))
            context, last_was_diagnostic = [], True
            continue
        match = REQUIRED_FROM.match(line)
        if match:
            context.append((match["path"], int(match["line"]), int(match["column"] or 0)))
            continue
        match = LINKER.search(line)
        if match:
            found.append(Diagnostic(path="", line=0, column=0, severity="linker",
                                    message=f"{match['what']} {readable(match['symbol'])}"))
    return found


def failed_steps(build_output: str, ex: dict) -> str:
    """The output of the build steps of `ex`'s own targets that failed, without ninja's
    "FAILED:" line and the compiler command after it."""
    targets = (f"ex{ex['id']}_exercises", f"test_ex{ex['id']}_exercises")
    kept, inside, skip_command = [], False, False
    for line in build_output.splitlines():
        if line.startswith("FAILED:"):
            inside, skip_command = any(t in line for t in targets), True
            continue
        if NINJA_STEP.match(line) or line.startswith("ninja: "):
            inside = False
            continue
        if skip_command:  # the command ninja ran, unless this is already what it printed
            skip_command = False
            if not (DIAGNOSTIC.match(line) or LINKER.search(line)):
                continue
        if inside:
            kept.append(line)
    return "\n".join(kept)


def first_error(ex: dict, build_output: str) -> Diagnostic | None:
    """The first error of the exercise's failed build steps: preferably in its own file, or
    one its own file caused inside a header; else the first one at all (the linker's)."""
    errors = [d for d in parse_compiler_output(failed_steps(build_output, ex)) if d.is_error]
    own = [d for d in errors if is_students(d.path, ex)
           or (d.required_from and is_students(d.required_from[0], ex))]
    return (own or errors or [None])[0]


def own_file_errors(ex: dict, build_output: str) -> list:
    errors = parse_compiler_output(failed_steps(build_output, ex))
    return [d for d in errors if d.is_error and is_students(d.path, ex)]


def advice(ex: dict, error: Diagnostic) -> list:
    """The kit's words for the errors a beginner meets first, as lines."""
    message = error.message
    if "operator<<" in message and re.search(r"attn::(Vector|Matrix)|xt::", message):
        return [XIO_ADVICE]
    if EXPRESSION.search(message) and re.search(
            r"convert|conversion|no match for|no matching|cannot bind|assignment of", message):
        return [EXPRESSION_ADVICE]
    if re.match(r"expected ‘[,;]’|expected '[,;]'|expected ‘,’ or ‘;’|expected ',' or ';'",
                message):
        return ["A `;` is missing at the end of the statement before this point (often the "
                "end of the previous line)."]
    if error.severity == "linker" and message.startswith("undefined reference to"):
        symbol = message[len("undefined reference to "):]
        name = symbol.split("(")[0]
        if name.startswith("attn::"):
            header = ex.get("header", "the header")
            return [f"No file defines {name} exactly as the header declares it. If it is "
                    f"yours, make its definition in {ex['stub']} match {header} "
                    "exactly: the same name, the same parameter types, const& included "
                    "(a different parameter list defines another function)."]
        return [f"{name} is declared and called, but no file defines it: write its body, or "
                "call a function that exists."]
    if error.severity == "linker" and message.startswith("multiple definition of"):
        return ["The function is defined twice: an exercise's file defines only its own "
                "functions; call an earlier exercise's function, do not copy it."]
    return []


def render_error(kit: Kit, ex: dict, error: Diagnostic, shown_path) -> list:
    """The lines `check` prints for a compile or link error: location and message, the
    source excerpt, the notes in the student's file, the advice."""
    if error.severity == "linker":
        lines = [f"link error: {error.message}"]
    else:
        where = (shown_path(ex["stub"]) if is_students(error.path, ex) else error.path)
        lines = [f"{where}:{error.line}:{error.column}: {error.severity}: {error.message}"]
        lines += error.excerpt
        if error.required_from and is_students(error.required_from[0], ex):
            path, line, column = error.required_from
            lines.append(f"  required by {shown_path(ex['stub'])}:{line}:{column}:")
            source = source_line(kit, ex, line)
            if source is not None:
                lines.append(f"  {line:>4} | {source}")
    notes = []
    for path, line, message in error.notes:
        if is_students(path, ex) and message not in notes:
            notes.append(message)
    lines += [f"  note: {message}" for message in notes[:2]]
    lines += advice(ex, error)
    return lines


def one_line(ex: dict, error: Diagnostic) -> str:
    """The error as one line for `status`: "exercises/x.cpp:18:28: error: ..." """
    if error.severity == "linker":
        return f"link error: {error.message}"
    path = ex["stub"] if is_students(error.path, ex) else error.path
    text = f"{path}:{error.line}:{error.column}: {error.severity}: {error.message}"
    return text + (" — add `#include <xtensor/xio.hpp>`" if XIO_ADVICE in advice(ex, error)
                   else "")


def source_line(kit: Kit, ex: dict, number: int) -> str | None:
    try:
        lines = (kit.root / ex["stub"]).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return lines[number - 1].rstrip() if 0 < number <= len(lines) else None


# ---- warnings -------------------------------------------------------------------------

def compiled_now(ex: dict, build_output: str) -> bool:
    """Whether this build compiled the student's file (ninja names each step it runs)."""
    return any(NINJA_STEP.match(line) and f"ex{ex['id']}_exercises.dir/" in line
               for line in build_output.splitlines())


def student_warnings(ex: dict, build_output: str) -> list:
    """g++'s warnings for the student's file, each once (two targets may compile it)."""
    seen, kept = set(), []
    for d in parse_compiler_output(build_output):
        key = (d.line, d.column, d.message)
        if d.severity == "warning" and is_students(d.path, ex) and key not in seen:
            seen.add(key)
            kept.append(d)
    return kept


def warnings_file(kit: Kit, ex: dict) -> Path:
    return kit.root / "build" / "kit-warnings" / f"ex{ex['id']}.json"


def remember_warnings(kit: Kit, ex: dict, build_output: str, background_output: str = "") -> list:
    """The warnings of the student's file as it is now. A build that compiled it says them
    (and they are kept, keyed by the file's content); a build that had nothing to do says
    nothing, so the kept ones are used while the file is unchanged. Before any are kept, the
    compile of status's background build (`background_output`, build.start_kit_build) is the
    file's last one if it compiled it and this build did not."""
    path = warnings_file(kit, ex)
    blob = stubs.current_blob_id(kit, ex)
    if not compiled_now(ex, build_output) and not path.exists() and \
            compiled_now(ex, background_output):
        build_output = background_output
    if compiled_now(ex, build_output):
        found = student_warnings(ex, build_output)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"blob": blob, "warnings": [d.as_json() for d in found]},
                                   indent=1), encoding="utf-8")
        return found
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if kept.get("blob") != blob:
        return []
    return [Diagnostic(**d) for d in kept.get("warnings", [])]


def render_warning(ex: dict, warning: Diagnostic, shown_path) -> list:
    return [f"{shown_path(ex['stub'])}:{warning.line}:{warning.column}: warning: "
            f"{warning.message}", *warning.excerpt]


def count(number: int, thing: str) -> str:
    """ "1 compiler warning", "2 compiler warnings" """
    return f"{number} {thing}{'' if number == 1 else 's'}"


# ---- sanitizers -----------------------------------------------------------------------

ASAN_ERROR = re.compile(r"ERROR: AddressSanitizer: (?P<kind>[\w-]+)")
ASAN_ACCESS = re.compile(r"^(?P<access>(?:READ|WRITE) of size \d+)")
FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-f]+ in (?P<function>.*) (?P<path>/\S+?):(?P<line>\d+)"
                   r"(?::\d+)?$")
UBSAN = re.compile(LOCATION + r" runtime error: (?P<message>.*)$")
# libstdc++'s own checks (_GLIBCXX_ASSERTIONS, on in the sanitized build), which abort.
LIBRARY_CHECK = re.compile(r"^\S+\.h:\d+: .* Assertion '(?P<check>.*)' failed\.$")
REDUCER_FILE = "xtensor/xreducer.hpp"

KEEP_DIMS_TRAP = [
    "It happens inside xtensor's lazy reduction (xtensor/xreducer.hpp): this is the keep_dims "
    "trap. In xtensor 0.24, `e / xt::sum(e, {axis}, xt::keep_dims)` written as one expression "
    "reads past the end of a buffer while it broadcasts the sums, and returns garbage.",
    "Fix: store the reduction in a Matrix first, then divide:",
    "    const Matrix sums = xt::sum(e, {1}, xt::keep_dims);  // or {axis}",
    "    return e / sums;",
    "or evaluate it at once: xt::sum(e, {axis}, xt::keep_dims | "
    "xt::evaluation_strategy::immediate).",
]
MEMORY_ADVICE = ("Your code reads or writes outside a tensor's memory at this line: an index "
                 "past the end (indices run from 0 to size - 1), or a view of a tensor that "
                 "no longer exists.")


@dataclass(frozen=True)
class SanitizerReport:
    kind: str                 # "heap-buffer-overflow", or UBSan's message
    access: str               # "READ of size 4", or ""
    student_line: int | None  # the first frame in the student's file
    in_reducer: bool          # a frame in xtensor/xreducer.hpp, before the student's


def sanitizer_report(ex: dict, output: str) -> SanitizerReport | None:
    """What AddressSanitizer or UBSan reported first, or None if neither reported."""
    lines = output.splitlines()
    for number, line in enumerate(lines):
        match = UBSAN.match(line)
        if match:
            return SanitizerReport(f"undefined behaviour: {match['message']}", "",
                                   int(match["line"]) if is_students(match["path"], ex) else
                                   first_student_frame(ex, lines[number + 1:])[0], False)
        match = ASAN_ERROR.search(line)
        if match:
            access = next((m["access"] for m in map(ASAN_ACCESS.match, lines[number + 1:number + 3])
                           if m), "")
            student_line, in_reducer = first_student_frame(ex, lines[number + 1:])
            kind = match["kind"]
            if kind == "ABRT":  # an abort: a library check that failed says why
                check = next((m["check"] for m in map(LIBRARY_CHECK.match, lines[:number]) if m),
                             None)
                if check == "__n < this->size()":
                    kind = "an index past the end of a std::vector"
                elif check:
                    kind = f"a check of the C++ library failed ({check})"
            return SanitizerReport(kind, access, student_line, in_reducer)
    return None


def first_student_frame(ex: dict, lines: list) -> tuple:
    """(line of the first stack frame in the student's file, whether a frame before it is
    in xtensor's reducer), looking at the first stack only."""
    in_reducer, started = False, False
    for line in lines:
        match = FRAME.match(line)
        if not match:
            if started and not line.strip().startswith("#"):
                break  # the end of the first stack
            continue
        started = True
        if is_students(match["path"], ex):
            return int(match["line"]), in_reducer
        in_reducer |= match["path"].endswith(REDUCER_FILE)
    return None, in_reducer


def render_sanitizer(kit: Kit, ex: dict, report: SanitizerReport, test: str | None,
                     shown_path) -> list:
    what = report.kind + (f" ({report.access})" if report.access else "")
    during = f" in {test}" if test else ""
    if report.student_line is None:
        lines = [f"✗ {shown_path(ex['stub'])}: {what}{during}, outside your file's code"]
    else:
        lines = [f"✗ {shown_path(ex['stub'])}:{report.student_line}: {what}{during}"]
        source = source_line(kit, ex, report.student_line)
        if source is not None:
            lines.append(f"  {report.student_line:>4} | {source}")
    lines += KEEP_DIMS_TRAP if report.in_reducer else [sanitizer_advice(report.kind)]
    return lines


# What each kind of report means, for the sanitizer's first words (ASan's kind, or the start of
# UBSan's "runtime error" message); the first match wins.
SANITIZER_ADVICE = (
    (r"an index past the end of a std::vector",
     "Your code indexes a std::vector past its end at this line (indices run from 0 to "
     "size() - 1): a loop bound fixed to the notebook's count (2 heads), or <= instead of <. "
     "Take the count from the vector: `for (std::size_t h = 0; h < heads.size(); ++h)`."),
    (r"heap-use-after-free|stack-use-after-(?:return|scope)",
     "Your code uses memory that was already given back at this line: a reference, pointer or "
     "view into a tensor (or vector) that no longer exists. Keep the tensor alive, or copy it."),
    (r"undefined behaviour: (?:integer )?division by zero",
     "Your code divides an integer by zero at this line: a size or count that is 0 on this "
     "case (a loop's length, a number of heads or tokens). Check it before dividing."),
    (r"undefined behaviour: signed integer overflow",
     "An int product overflowed at this line (an int holds up to 2^31 - 1): compute in "
     "std::int64_t, converting the first factor before multiplying."),
    (r"undefined behaviour: load of value .* not a valid value",
     "Your code reads a variable that was never set at this line: give it a value first."),
    (r"undefined behaviour: .*null pointer",
     "Your code uses a null pointer at this line: a pointer that was never set to memory."),
    (r"undefined behaviour: index .* out of bounds",
     "Your code indexes an array past its end at this line (indices run from 0 to size - 1)."),
    (r"undefined behaviour: ",
     "C++ gives this operation no meaning: what it does differs from build to build. Fix the "
     "operation at this line."),
    (r"SEGV|stack-overflow",
     "Your code reads or writes memory it does not own: an index far past the end of a tensor "
     "or vector, or a pointer that points nowhere (a stack overflow: a recursion without end)."),
)


def sanitizer_advice(kind: str) -> str:
    """The advice for a report of `kind`: the out-of-bounds advice for a buffer overflow and
    anything unknown."""
    return next((advice for pattern, advice in SANITIZER_ADVICE if re.match(pattern, kind)),
                MEMORY_ADVICE)

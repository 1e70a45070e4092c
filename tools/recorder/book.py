"""The tensors the seed documents print, quoted: reference_data/book/printed.json.

`tools/kit book` (kit/book/) runs a C++ port of every seed cell that prints a tensor and
compares what it prints with what the document printed. This module reads the documents
(../shared/seeds/, beside the repository; ATTN_SEEDS names another folder) and quotes each
printed tensor, in print order, with its document and cell: the book's numbers are taken from
the book by this code, never typed by hand, and `tools/record --check` compares the quotes
with the documents again where the documents are present.

A seed document is a notebook as text: a cell is "In [N]:", its code, its output and the text
up to the next cell. Every "tensor(" there is one print, up to its closing parenthesis (a
list of tensors is several prints), unless it is code: torch.tensor(...), an assignment, a
comment, or a string the code prints (is_code).
"""

import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CELL = re.compile(r"^In \[(\d+| ?None ?|\s*)\]:\s*$")

# The documents, by the number the kit's headers cite them with, and what each is.
DOCUMENTS = {
    "000": "book exercise solutions 3.1-3.3 (exercise-solutions.ipynb)",
    "001": "book chapter 3, sections 3.3-3.6 (ch03.ipynb)",
    "002": "multi-head attention tutorial",
    "003": "step-by-step self-attention exercises 1-8 (column convention)",
    "004": "book text of section 3.4.2 and Exercise 3.1",
}


def seeds_folder():
    """The seed documents' folder, or None where this checkout has none beside it."""
    folder = Path(os.environ.get("ATTN_SEEDS", ROOT.parent / "shared" / "seeds"))
    return folder if folder.is_dir() else None


def cells(text):
    """(label, occurrence, lines) of every cell of a document, in order: its code, output and
    any text up to the next cell. A label seen twice ("In [None]") is told apart by its
    occurrence, 1, 2, .... A document without cells is one, "text"."""
    lines = text.splitlines()
    seen = {}
    starts = [i for i, line in enumerate(lines) if CELL.match(line)]
    if not starts:  # book text (004): its listings and printed outputs, one "cell"
        yield "text", 1, lines
        return
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(lines)
        label = "In [" + CELL.match(lines[start]).group(1).strip() + "]"
        seen[label] = seen.get(label, 0) + 1
        yield label, seen[label], lines[start + 1:end]


def is_code(line, column):
    """Whether the "tensor(" at `column` of `line` is code, not output: torch.tensor(...), an
    assignment, or a string the code prints."""
    before = line[:column]
    return (before.endswith("torch.") or "print(" in before or "=" in before
            or before.lstrip().startswith("#"))


def tensors_in(lines):
    """Every printed tensor of a cell: (text from "tensor(" to its closing parenthesis, the
    text before it on its line, whether the document ends before the parenthesis)."""
    text = "\n".join(lines)
    found = []
    for match in re.finditer(r"tensor\(", text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.start())
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        if is_code(line, match.start() - line_start):
            continue
        depth, end = 0, None
        for j in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                end = j + 1
                break
        # A print cut off by the document's end is quoted as far as it goes (end None).
        found.append((text[match.start():end], text[line_start:match.start()].strip(),
                      end is None))
    return found


# Each seed cell's name in the public notebook it copies ("001 In [27]" -> "ch03.ipynb In
# [28]"), matched by code (public_cells.json); the names students read and ask `book` for.
PUBLIC = json.loads((Path(__file__).with_name("public_cells.json")).read_text(encoding="utf-8"))
PUBLIC_CELLS, OTHER_NUMBERS = PUBLIC["cells"], PUBLIC["other_numbers"]


def public_name(cell):
    """{"public": its public notebook's cell, "other_numbers": why the copy prints other
    numbers, if it does}, or {} for a cell with no public counterpart."""
    if cell not in PUBLIC_CELLS:
        return {}
    return {"public": PUBLIC_CELLS[cell],
            **({"other_numbers": OTHER_NUMBERS[cell]} if cell in OTHER_NUMBERS else {})}


def quotes(folder):
    """Every printed tensor of every seed document, in document and print order, each with the
    public notebook's name of its cell where it has one."""
    printed = []
    for path in sorted(folder.glob("[0-9][0-9][0-9]_*.txt")):
        document = path.name[:3]
        for label, occurrence, lines in cells(path.read_text(encoding="utf-8")):
            for index, (tensor, before, cut) in enumerate(tensors_in(lines), start=1):
                printed.append({
                    **({"cut_off": True} if cut else {}),
                    "id": f"{document} {label}" + (f" ({occurrence})" if occurrence > 1 else "")
                          + f" #{index}",
                    "document": path.name, "cell": label, "occurrence": occurrence,
                    "index": index, "before": before, "printed": tensor,
                    **public_name(f"{document} {label}")})
    return printed


def printed_json(printed):
    """reference_data/book/printed.json's text, of quotes(...)."""
    return json.dumps({"format_version": 1,
                       "about": "The tensors the seed documents print, quoted by "
                                "tools/recorder/book.py; kit/book/ ports each cell to C++.",
                       "documents": DOCUMENTS, "printed": printed},
                      indent=2, ensure_ascii=False) + "\n"


PRINTED = Path("book") / "printed.json"


def update(reference_data, check):
    """Writes (or with `check`, compares) reference_data/book/printed.json from the seed
    documents: (lines to print, differences found)."""
    folder = seeds_folder()
    target = reference_data / PRINTED
    if folder is None:
        return [f"book quotes: NOT CHECKED: no seed documents beside the repository "
                f"(../shared/seeds, or ATTN_SEEDS); {PRINTED} kept as it is"], []
    printed = quotes(folder)
    text = printed_json(printed)
    if check:
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current == text:
            return [f"book quotes: {PRINTED} quotes the seed documents as they are"], []
        return [], [f"{'missing' if current is None else 'changed'}: {PRINTED} (the seed "
                    "documents print other tensors than it quotes)"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return [f"book quotes: wrote {PRINTED} ({len(printed)} printed tensors)"], []

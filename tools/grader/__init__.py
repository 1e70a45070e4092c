"""tools/grader: the instructor's grader behind tools/grade (README.md here).

What it shares with tools/kit (the catalogue loader, statuses, text escaping) is the package
tools/kitlib, never kitcli: tools/ goes on sys.path here too, for `python3 -m
tools.grader.html_report OUT`, which no launcher starts."""

import sys
from pathlib import Path

_TOOLS = str(Path(__file__).resolve().parents[1])
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

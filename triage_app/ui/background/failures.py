"""A failure off the UI thread, said to the window as one line (the traceback to the terminal)."""

from __future__ import annotations

import sys
import traceback


def one_line(what: str, exc: BaseException) -> str:
    traceback.print_exception(exc, file=sys.stderr)   # for whoever runs it from a terminal
    lines = str(exc).strip().splitlines()
    return f"{what}: {lines[0] if lines else type(exc).__name__}"

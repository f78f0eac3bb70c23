"""Text from a file, shown as the file has it: never laid out as HTML.

Qt lays out a string that merely looks like HTML as rich text wherever the format is automatic,
and a cell or a header of nested tables froze the window for minutes. Labels that show such text
take Qt.PlainText. A tooltip has no such switch (Qt sniffs every one), so its text is escaped
inside a paragraph that keeps spaces and line breaks, and only its head is shown: a tooltip is a
glance at a cell, which may hold megabytes. A combo box of names from a file is capped in width.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QComboBox

TOOLTIP_CHARS = 1000
NAME_CHARS = 20     # a combo of names from a file (columns, labels) is this wide, whatever a header holds
TOOLTIP_LINES = 30


def tooltip(text: str | None) -> str | None:
    """text as a tooltip shows it verbatim, elided; None for no tooltip."""
    if not text:
        return None
    return "<p style='white-space:pre-wrap'>" + html.escape(elided(text), quote=False) + "</p>"


def elided(text: str, chars: int = TOOLTIP_CHARS, lines: int = TOOLTIP_LINES) -> str:
    """The first chars characters and lines lines of text, with "…" where it goes on."""
    head = text[:chars]
    parts = head.split("\n", lines)
    if len(parts) > lines:
        head = "\n".join(parts[:lines])
    return head + ("…" if len(head) < len(text) else "")


def fit_names(combo: QComboBox, chars: int = NAME_CHARS) -> None:
    """A combo of names from a file: as wide as its names, up to about chars, never as wide as a
    header of any length (it would widen the window); the list shows long names whole."""
    combo.setMaximumWidth(combo.fontMetrics().averageCharWidth() * chars + 40)     # 40: the arrow, margins

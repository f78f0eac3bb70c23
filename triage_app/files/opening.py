"""Opening a ticket file: read it, find its text, subject and gold columns, take the texts.

Plain Python (no Qt, no store), so the window's background reader and the command line open a
file the same way. A person's earlier labels are looked up by whoever owns the results store.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from triage_app.files.reader import (BadInput, TicketTable, detect_gold_column, detect_subject_column,
                                     detect_text_column, read_tickets)


@dataclass(slots=True)
class OpenedFile:
    """A ticket file read and its columns detected."""

    table: TicketTable
    text_column: str
    subject_column: str | None
    gold_column: str | None
    texts: list[str]     # the text column's cells, one per row
    notes: list[str]     # what the user should know: the reader's warnings, a text column guessed


def open_tickets(path: str | Path) -> OpenedFile:
    """Raises BadInput (one line) when the file cannot be used. With no column that looks like
    ticket text, the first column stands in and a note says so: the user picks the right one."""
    table = read_tickets(path)
    notes = list(table.warnings)
    try:
        text = detect_text_column(table)
    except BadInput as exc:
        text = table.columns[0]
        notes.append(f"{exc}. Showing “{text}” for now.")
    return OpenedFile(table, text, detect_subject_column(table), detect_gold_column(table), table.texts(text),
                      notes)

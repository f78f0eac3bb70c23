"""Opening a ticket file: read it, find its text, subject and gold columns, take the texts.

Plain Python (no Qt, no store), so the window's background reader and the command line open a
file the same way. A person's earlier labels are looked up by whoever owns the results store.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from triage_app.files.reader import (BadInput, TicketTable, check_column, detect_gold_column,
                                     detect_subject_column, detect_text_column, read_tickets)


@dataclass(slots=True)
class OpenedFile:
    """A ticket file read and its columns detected."""

    table: TicketTable
    text_column: str
    subject_column: str | None
    gold_column: str | None
    texts: list[str]     # the text column's cells, one per row
    notes: list[str]     # what the user should know: the reader's warnings, a text column guessed


def open_tickets(path: str | Path, sheet: str | int | None = None, text_column: str | None = None,
                 guess: bool = True, limit: int | None = None) -> OpenedFile:
    """Raises BadInput (one line) when the file cannot be used, or text_column is not one of its columns.

    With no text_column and none that looks like ticket text: guess (the window), the first column
    stands in and a note says so, for the user to pick the right one; otherwise (the command line,
    which cannot ask) BadInput names the columns. limit: read the file's first rows only."""
    table = read_tickets(path, sheet, limit)
    notes = list(table.warnings)
    if text_column:
        text = check_column(table, text_column)
    else:
        try:
            text = detect_text_column(table)
        except BadInput as exc:
            if not guess:
                raise
            text = table.columns[0]
            notes.append(f"{exc}. Showing “{text}” for now.")
    return OpenedFile(table, text, detect_subject_column(table), detect_gold_column(table), table.texts(text),
                      notes)

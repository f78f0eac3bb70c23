"""Which ticket a person labelled: a file and a row, with the row's cells as the check.

A label is kept as "row 412 of this file is billing". The file is named by where it is (and the
sheet of a workbook); the row's hash covers every cell in file order, so it does not change when
another text column is chosen, and tells when the file was edited under the label (files.store
then finds the ticket at its new row, or counts it as not found). A cell the row does not have (a JSON
key other records have, a sheet's stray cell in another row) is not hashed: what other rows hold, or how
many of them were read, never moves a label.

Where the file names its tickets by an id, a label also keeps its ticket: the id and the text. A helpdesk's
next export changes other cells of the same ticket (its status, the field Triage sent it, a column added):
the label follows the ticket there (label_places.place). An edited text is another ticket's.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from triage_app.files.table import Absent

def file_key(path: str | Path, sheet: str | None = None) -> str:
    key = str(Path(path).resolve())
    return f"{key}#{sheet}" if sheet else key


class RowHash(str):
    """A row's hash, and the one earlier versions gave it (they hashed a cell the row does not have as an
    empty one: files/table.Absent): a label stored under either is the row's (holds); a label's row also
    carries its ticket (RowHashes.keyed), stored with it."""

    def __new__(cls, now: str, earlier: str, ticket: str | None = None):
        key = super().__new__(cls, now)
        key.earlier, key.ticket = earlier, ticket
        return key

    def __reduce__(self):   # a copy (pickled to a worker) keeps the earlier hash and the ticket
        return RowHash, (str(self), self.earlier, self.ticket)


class RowHashes(list):
    """Every row's hash, and each row's ticket where ids and texts are given (ticket(), computed when asked:
    only a label's row, or a label no row's cells hold any more, needs one)."""

    def __init__(self, hashes, ids: list[str] | None = None, texts: list[str] | None = None):
        super().__init__(hashes)
        self._ids, self._texts = (ids, texts) if ids is not None and texts is not None else (None, None)

    def ticket(self, row: int) -> str | None:
        if self._ids is None or not str(self._ids[row]).strip():   # no id: the row's cells are all it has
            return None
        return _digest([self._ids[row], self._texts[row]])

    def keyed(self, row: int) -> str:
        """The row's hash carrying its ticket, to be stored with a label given it."""
        h = self[row]
        return RowHash(str(h), getattr(h, "earlier", str(h)), self.ticket(row))


def row_hashes(frame: pd.DataFrame) -> list[str]:
    """One hash per row of every cell it has, as read (text), in file order."""
    return [row_hash(cells) for cells in frame.itertuples(index=False, name=None)]


def ticket_row_hashes(table) -> RowHashes:
    """row_hashes of a files.table.TicketTable, with each row's ticket: its id (the column files.updates finds,
    the one an update is sent by) and its text (the column the file itself names as the ticket text: never
    the one a command's options or a window chose, so every reader keys a ticket alike)."""
    from triage_app.files.reader import detect_text_column
    from triage_app.files.table import BadInput
    from triage_app.files.updates import detect_id_column

    hashes, ids, texts = row_hashes(table.frame), None, None
    column = detect_id_column(list(table.frame.columns))
    if column is not None:
        try:
            ids, texts = table.frame[column].tolist(), table.texts(detect_text_column(table))
        except BadInput:   # no column reads as ticket text: the row's cells are all it has
            pass
    return RowHashes(hashes, ids, texts)



def row_hash(cells) -> str:
    present = [c for c in cells if not isinstance(c, Absent)]
    now = _digest(present)
    return now if len(present) == len(cells) else RowHash(now, _digest(cells))


def holds(row_hash: str, stored: str) -> bool:
    """Whether a label stored under this hash is the row's: its hash now, or the one earlier versions gave it."""
    return stored == row_hash or stored == getattr(row_hash, "earlier", None)


def _digest(cells) -> str:
    # each cell with its length before it: no two different rows make the same text
    # a cell now read as the file spells it is hashed as Triage read it before (files/table.Respelled)
    text = "".join(f"{len(cell)}:{cell}" for cell in (getattr(c, "hashed", None) or str(c) for c in cells))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

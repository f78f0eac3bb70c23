"""Which ticket a person labelled: a file and a row, with the row's cells as the check.

A label is kept as "row 412 of this file is billing". The file is named by where it is (and the
sheet of a workbook); the row's hash covers every cell in file order, so it does not change when
another text column is chosen, and tells when the file was edited under the label (files.store
then finds the ticket at its new row, or counts it as not found).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

def file_key(path: str | Path, sheet: str | None = None) -> str:
    key = str(Path(path).resolve())
    return f"{key}#{sheet}" if sheet else key


def row_hashes(frame: pd.DataFrame) -> list[str]:
    """One hash per row of every cell as read (text), in file order."""
    return [row_hash(cells) for cells in frame.itertuples(index=False, name=None)]


def row_hash(cells) -> str:
    # each cell with its length before it: no two different rows make the same text
    # a cell now read as the file spells it is hashed as Triage read it before (files/table.Respelled)
    text = "".join(f"{len(cell)}:{cell}" for cell in (getattr(c, "hashed", None) or str(c) for c in cells))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

"""A person's labels when their file moved: the labels of a file that is gone (moved to another folder, renamed,
or a workbook whose sheet was renamed, as a helpdesk names each day's export) follow it to the file opened now,
where that file holds at least half of their tickets and has no labels of its own yet; the caller says so. A
file still where it was keeps its labels: a copy of it is another file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from triage_app.files.label_places import TAKEN_BACK
from triage_app.quiet import silenced

SAID = "The labels you gave {}, which is no longer there, are this file's now: it holds their tickets"


def follow(db: sqlite3.Connection, file: str, row_hashes: list[str]) -> str | None:
    """Inside a write transaction: the labels (and the fields' renames) of the gone file whose tickets this file
    holds most of, keyed by this file now; returns that file's key (None: none followed)."""
    if db.execute("SELECT 1 FROM person_labels WHERE file=? LIMIT 1", (file,)).fetchone():
        return None
    held = {str(h) for h in row_hashes} | {h.earlier for h in row_hashes if getattr(h, "earlier", None)}
    ticket, tickets = getattr(row_hashes, "ticket", None), None
    best, most = None, 0
    for (other,) in db.execute("SELECT DISTINCT file FROM person_labels WHERE file != ?", (file,)).fetchall():
        stored = db.execute("SELECT row_hash, ticket FROM person_labels WHERE file=? AND label != ?",
                            (other, TAKEN_BACK)).fetchall()
        found = sum(h in held for h, _ in stored)
        if 2 * found < len(stored) and ticket is not None and any(t for _, t in stored):
            # the day's export renamed and its other cells changed too (a status, the queue sent back): its tickets
            tickets = tickets if tickets is not None else {ticket(row) for row in range(len(row_hashes))} - {None}
            found = sum(h in held or t in tickets for h, t in stored)
        if found > most and 2 * found >= len(stored) and gone(other):
            best, most = other, found
    if best is not None:
        for table in ("person_labels", "axis_renames", "migrated_files"):
            db.execute(f"UPDATE OR IGNORE {table} SET file=? WHERE file=?", (file, best))
    return best


def gone(key: str) -> bool:
    """Whether the file a key names (files.ticket_keys.file_key: a path, then "#sheet" for a workbook's) is no
    longer there: the path (in a folder that is: a share or a drive away for now is not known to be gone), or
    the workbook's sheet (a sheet's name may hold "#" too)."""
    if Path(key).exists():      # a path with "#" in its name
        return False
    marks = [k for k, c in enumerate(key) if c == "#"]
    path, sheet = next(((key[:k], key[k + 1:]) for k in marks if Path(key[:k]).is_file()), (key, None))
    if sheet is None:
        return Path(key.partition("#")[0]).parent.is_dir()
    try:
        import openpyxl

        with silenced():
            book = openpyxl.load_workbook(path, read_only=True)
        try:
            return sheet not in book.sheetnames
        finally:
            book.close()
    except Exception:   # unreadable now: not known to be gone, so its labels stay where they are
        return False

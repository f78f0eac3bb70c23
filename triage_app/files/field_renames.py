"""One name per field per file: the renames of a file's fields, remembered in order (old name -> new name).

Two windows may show one file. When one renames a field, the other still shows the old name; a label it
gives there is a label on the same field, so it is written under the new name (files.store), and its
window is told (ui/background/results_db, redirected): one field's labels are never split across two
names. A window knows the renames recorded before it read the file and the ones it made itself; only the
others are followed, so a field it later adds under a name renamed away is a field of its own.

One rule decides whether a rename may be made (refusal): onto a name that already holds labels of the
file, never, whether or not those labels find their tickets in the file as it is now; the window asks it
before anything changes, and the database applies it again when it writes.
"""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS axis_renames (
    id INTEGER PRIMARY KEY AUTOINCREMENT, file TEXT NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now'))
);
"""


class RenameRefused(ValueError):
    """A rename the rule refuses (refusal), said as one line."""


def refusal(new: str, held: int) -> str | None:
    """Why a field may not be renamed onto `new`, which holds `held` of the person's labels on this file."""
    if not held:
        return None
    return (f"the field “{new}” already holds {held:,} of your labels on this file (a field removed keeps "
            f"them, and so does a ticket edited since): add “{new}” back instead, or choose another name")


def recorded(db: sqlite3.Connection, file: str) -> frozenset[int]:
    """Every rename recorded for this file: what a window knows once it has read it."""
    return frozenset(i for (i,) in db.execute("SELECT id FROM axis_renames WHERE file=?", (file,)))


def followed(db: sqlite3.Connection, file: str, axis: str, known: frozenset[int] | None
             ) -> tuple[str, frozenset[int]]:
    """The field's name now, after the renames a window does not know (known None: it knows them all),
    and those it followed."""
    if known is None:
        return axis, frozenset()
    taken = []
    for rename, old, new in db.execute("SELECT id, old, new FROM axis_renames WHERE file=? ORDER BY id", (file,)):
        if rename not in known and old == axis:
            axis = new
            taken.append(rename)
    return axis, frozenset(taken)


def record(db: sqlite3.Connection, file: str, old: str, new: str) -> int:
    return db.execute("INSERT INTO axis_renames (file, old, new) VALUES (?, ?, ?)", (file, old, new)).lastrowid

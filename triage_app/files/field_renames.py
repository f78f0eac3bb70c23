"""One name per field per file: the renames of a file's fields, remembered in order (old name -> new name).

Two windows may show one file. When one renames a field, the other still shows the old name; a label it
gives there is a label on the same field, so it is written under the new name (files.store), and its
window is told (ui/background/results_db, redirected): one field's labels are never split across two
names. A window knows the renames recorded before it read the file and the ones it made itself; only the
others are followed, so a field it later adds under a name renamed away is a field of its own.

One rule decides whether a rename may be made (refusal): onto a name that already holds labels of the
file, never, whether or not those labels find their tickets in the file as it is now; the window asks it
before anything changes, and the database applies it again when it writes. A label renamed inside a field
follows the same rule (label_refusal): a label with labels never takes a name that holds the field's
labels, so two labels' tickets are never mixed up; and it is remembered the same way (label_of: the
field's name), so a window still showing the old name saves its labels under the new one (labels_now).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

SCHEMA = """
CREATE TABLE IF NOT EXISTS axis_renames (
    id INTEGER PRIMARY KEY AUTOINCREMENT, file TEXT NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now'))
);
"""


# A label renamed inside a field is a row of the same table (label_of: the field's name; NULL for a field's
# own rename), so the renames a window knows are one set of ids. One edit's renames share `edit`: a swap of
# two names is applied at once.
WITH_LABEL_RENAMES = ("ALTER TABLE axis_renames ADD COLUMN label_of TEXT",
                      "ALTER TABLE axis_renames ADD COLUMN edit INTEGER")


def has_label_renames(db: sqlite3.Connection) -> bool:
    return any(column[1] == "label_of" for column in db.execute("PRAGMA table_info(axis_renames)"))


class RenameRefused(ValueError):
    """A rename the rule refuses (refusal), said as one line."""


def refusal(new: str, held: int) -> str | None:
    """Why a field may not be renamed onto `new`, which holds `held` of the person's labels on this file."""
    if not held:
        return None
    return (f"the field “{new}” already holds {held:,} of your labels on this file (a field removed keeps them, "
            f"so does a ticket edited since, and another window on this file may have given them): choose another "
            f"name, or add “{new}” back if you removed it")


def label_refusal(renames: dict[str, str], held: Callable[[str], int]) -> str | None:
    """Why a field's labels may not be renamed so ({old: new}; held: how many of the file's labels on the field
    a name holds): a label with labels onto a name that holds some would merge the two for good. A name
    renamed away in the same edit frees its own (a swap); a label with none may take the name, and the labels
    under it come back, as they do for a label added under it."""
    for old, new in renames.items():
        count = 0 if new in renames else held(new)
        if count and held(old):
            return (f"the label “{new}” already holds {count:,} of your labels on this field of this file (a label "
                    f"removed keeps them, set aside, so does a ticket edited since, and another window on this file "
                    f"may have given them): renaming “{old}” onto it would merge them; choose another name")
    return None


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
    for rename, old, new in db.execute("SELECT id, old, new FROM axis_renames WHERE file=? AND label_of IS NULL "
                                       "ORDER BY id", (file,)):
        if rename not in known and old == axis:
            axis = new
            taken.append(rename)
    return axis, frozenset(taken)


def record(db: sqlite3.Connection, file: str, old: str, new: str) -> int:
    """A field's rename; the renames of its labels are the field's under its new name."""
    db.execute("UPDATE axis_renames SET label_of=? WHERE file=? AND label_of=?", (new, file, old))
    return db.execute("INSERT INTO axis_renames (file, old, new) VALUES (?, ?, ?)", (file, old, new)).lastrowid


def record_labels(db: sqlite3.Connection, file: str, axis: str, renames: dict[str, str]) -> frozenset[int]:
    """One edit's label renames ({old: new}) on a field, remembered; their ids, which the window knows."""
    ids = [db.execute("INSERT INTO axis_renames (file, old, new, label_of) VALUES (?, ?, ?, ?)",
                      (file, old, new, axis)).lastrowid for old, new in renames.items()]
    db.executemany("UPDATE axis_renames SET edit=? WHERE id=?", [(ids[0], i) for i in ids])
    return frozenset(ids)


def labels_now(db: sqlite3.Connection, file: str, axis: str, names, known: frozenset[int] | None) -> dict[str, str]:
    """{name: the name it has now} for the label names that renames of the field's labels a window does not
    know moved (known None: it knows them all)."""
    if known is None:
        return {}
    edits: dict[int, dict[str, str]] = {}
    for rename, edit, old, new in db.execute("SELECT id, edit, old, new FROM axis_renames WHERE file=? AND "
                                             "label_of=? ORDER BY id", (file, axis)):
        if rename not in known:
            edits.setdefault(edit, {})[old] = new
    now = {name: name for name in names}
    for renames in edits.values():      # in the order they were made, each edit at once
        now = {name: renames.get(label, label) for name, label in now.items()}
    return {name: label for name, label in now.items() if label != name}


def label_names(db: sqlite3.Connection, file: str, axis: str) -> dict[str, str]:
    """{old name: the name it has now} for every label of the field renamed on this file: a label set
    remembered before a rename (another window's, saved last) names its labels by the old name."""
    olds = {old for (old,) in db.execute("SELECT old FROM axis_renames WHERE file=? AND label_of=?", (file, axis))}
    return labels_now(db, file, axis, olds, frozenset())

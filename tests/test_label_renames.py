"""Label renames remembered per file and field (files/field_renames.py), on a real database: a writer that
does not know a rename writes under the new name; its own renames and the ones it read are known; a swap
is one edit; a field renamed after carries its labels' renames; old databases get the columns once."""

from __future__ import annotations

import sqlite3

from triage_app.files.store import ResultStore

FILE = "/tickets.csv"


def stored(store: ResultStore, axis: str = "priority") -> dict[int, str]:
    return {row: label for row, _, label in store.stored_person_labels(FILE, axis=axis)}


def test_a_writer_that_does_not_know_a_label_rename_writes_under_the_new_name(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        a = b = store.axis_renames(FILE)                       # both windows read the file
        store.set_person_labels(FILE, {2: ("h2", "Low")}, "priority", known=b)
        a |= store.rename_labels(FILE, {"Low": "Minor"}, "priority", a)
        said = store.set_person_labels(FILE, {1: ("h1", "Low"), 0: ("h0", "High")}, "priority", known=b)
        assert said == ("priority", {"Low": "Minor"})                              # b still shows Low: told
        assert stored(store) == {0: "High", 1: "Minor", 2: "Minor"}
        # a label a's person adds under the name renamed away is a label of its own
        assert store.set_person_labels(FILE, {3: ("h3", "Low")}, "priority", known=a) == ("priority", {})
        assert stored(store) == {0: "High", 1: "Minor", 2: "Minor", 3: "Low"}
        # a window that reads the file now knows the rename
        assert store.set_person_labels(FILE, {4: ("h4", "Low")}, "priority", known=store.axis_renames(FILE))[1] == {}
        # another field, another file: untouched
        assert store.set_person_labels(FILE, {0: ("h0", "Low")}, "queue", known=b)[1] == {}
        assert store.set_person_labels("/other.csv", {0: ("h0", "Low")}, "priority", known=b)[1] == {}

def test_a_swap_is_one_edit_and_a_field_renamed_after_carries_it(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        a = b = store.axis_renames(FILE)
        store.set_person_labels(FILE, {0: ("h0", "High"), 1: ("h1", "Low")}, "priority", known=a)
        a |= store.rename_labels(FILE, {"High": "Low", "Low": "High"}, "priority", a)
        assert stored(store) == {0: "Low", 1: "High"}
        a |= store.rename_axis(FILE, "priority", "urgency", a)
        store.set_person_labels(FILE, {2: ("h2", "High")}, "priority", known=b)    # b: old field, old names
        assert stored(store, "urgency") == {0: "Low", 1: "High", 2: "Low"}
        # b's own rename of the label it shows as High renames the one it is now
        b |= store.rename_labels(FILE, {"High": "Top"}, "priority", b)
        assert stored(store, "urgency") == {0: "Top", 1: "High", 2: "Top"}


def test_a_database_from_before_label_renames_gets_the_columns_once(tmp_path):
    db = tmp_path / "old.db"
    with ResultStore(db) as store:
        store.set_person_labels(FILE, {0: ("h0", "Low")}, "priority")
    with sqlite3.connect(db) as connection:      # as a database from before: no label renames kept
        connection.execute("CREATE TABLE t AS SELECT id, file, old, new, created FROM axis_renames")
        connection.execute("DROP TABLE axis_renames")
        connection.execute("ALTER TABLE t RENAME TO axis_renames")
    for _ in range(2):
        with ResultStore(db) as store:
            known = store.axis_renames(FILE)
            store.rename_labels(FILE, {"Low": "Minor"} if not known else {"Minor": "Least"}, "priority", known)
    with ResultStore(db) as store:
        assert stored(store) == {0: "Least"}

"""A person's label is a fact about one ticket of one file on one axis: two fields' labels on the same
rows never touch, and a database from before axes keeps every label, as the plain axis's."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from triage_app.engine.axes import PLAIN
from triage_app.files.store import TAKEN_BACK, ResultStore

# person_labels as the version before axes made it, and a row as it wrote one
_BEFORE_AXES = """
CREATE TABLE person_labels (
    file TEXT NOT NULL, row INTEGER NOT NULL, row_hash TEXT NOT NULL, label TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (file, row, row_hash)
);
"""
_OLD_WRITE = "INSERT OR REPLACE INTO person_labels (file, row, row_hash, label) VALUES (?, ?, ?, ?)"


def _old_database(path, rows):
    db = sqlite3.connect(path)
    db.executescript(_BEFORE_AXES)
    db.executemany(_OLD_WRITE, rows)
    db.commit()
    db.close()


def test_a_database_from_before_axes_keeps_every_label_on_the_plain_axis(tmp_path):
    path = tmp_path / "old.sqlite3"
    _old_database(path, [("f.csv", 0, "a", "billing"), ("f.csv", 1, "b", TAKEN_BACK), ("g.csv", 0, "a", "account")])
    with ResultStore(path) as store:
        assert store.person_labels("f.csv", ["a", "b"]).labels == {0: "billing"}
        assert store.stored_person_labels("f.csv", taken_back=True) == [(0, "a", "billing"), (1, "b", TAKEN_BACK)]
        assert store.person_labels("g.csv", ["a"]).labels == {0: "account"}
        assert store.person_labels("f.csv", ["a", "b"], axis="queue").labels == {}
        assert store.person_label_axes("f.csv") == [PLAIN]
    with ResultStore(path) as store:     # opened again: nothing to rebuild, nothing lost
        assert store.person_labels("f.csv", ["a", "b"]).labels == {0: "billing"}
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(person_labels)")]
    assert "axis" in columns


def test_an_older_version_writing_the_new_table_writes_the_plain_axis(tmp_path):
    path = tmp_path / "r.sqlite3"
    ResultStore(path).close()
    db = sqlite3.connect(path)
    db.execute(_OLD_WRITE, ("f.csv", 0, "a", "billing"))
    db.commit()
    db.close()
    with ResultStore(path) as store:
        assert store.person_labels("f.csv", ["a"]).labels == {0: "billing"}


@pytest.mark.parametrize("attempt", range(40))
def test_two_processes_opening_an_old_database_at_once_both_find_every_label(tmp_path, attempt):
    # forty times: a race, lost now and then (docs/testing.md), as SQLite answered "locked" at once, without
    # waiting, to one of two connections setting WAL on a file from before it (store_errors.set_wal asks again)
    path = tmp_path / "old.sqlite3"
    _old_database(path, [("f.csv", row, f"h{row}", "billing") for row in range(50)])
    found, errors = [], []

    def open_and_read():
        try:
            with ResultStore(path) as store:
                found.append(len(store.person_labels("f.csv", [f"h{r}" for r in range(50)]).labels))
        except Exception as exc:  # noqa: BLE001 - the test reports whatever went wrong
            errors.append(exc)

    threads = [threading.Thread(target=open_and_read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and found == [50] * 4


def test_two_axes_on_the_same_rows_never_touch(tmp_path):
    hashes = ["a", "b", "c"]
    with ResultStore(tmp_path / "r.sqlite3") as store:
        store.set_person_labels("f.csv", {0: ("a", "billing"), 1: ("b", "urgent")}, axis="queue")
        store.set_person_labels("f.csv", {0: ("a", "urgent"), 2: ("c", "low")}, axis="priority")
        store.set_person_labels("f.csv", {1: ("b", None)}, axis="queue")          # taken back on one axis only
        store.rename_labels("f.csv", {"urgent": "high"}, axis="priority")          # the same name on another axis stays
        assert store.person_labels("f.csv", hashes, axis="queue").labels == {0: "billing"}
        assert store.person_labels("f.csv", hashes, axis="priority").labels == {0: "high", 2: "low"}
        assert store.person_labels("f.csv", hashes).labels == {}
        assert store.person_label_axes("f.csv") == ["priority", "queue"]


def test_a_row_that_moved_moves_on_every_axis_and_only_its_own_label(tmp_path):
    with ResultStore(tmp_path / "r.sqlite3") as store:
        store.set_person_labels("f.csv", {0: ("a", "billing"), 1: ("b", "account")}, axis="queue")
        store.set_person_labels("f.csv", {1: ("b", "low")}, axis="priority")
        now = ["new", "a", "b"]      # a row was added on top
        assert store.person_labels("f.csv", now, axis="queue").labels == {1: "billing", 2: "account"}
        assert store.person_labels("f.csv", now, axis="priority").labels == {2: "low"}
        assert sorted(store.stored_person_labels("f.csv", axis="priority")) == [(2, "b", "low")]


def test_a_renamed_axis_takes_its_labels_and_never_merges_two(tmp_path):
    with ResultStore(tmp_path / "r.sqlite3") as store:
        store.set_person_labels("f.csv", {0: ("a", "billing")})
        store.set_person_labels("f.csv", {0: ("a", "low")}, axis="priority")
        store.rename_axis("f.csv", PLAIN, "queue")
        assert store.person_labels("f.csv", ["a"], axis="queue").labels == {0: "billing"}
        assert store.person_labels("f.csv", ["a"]).labels == {}
        try:
            store.rename_axis("f.csv", "queue", "priority")
        except ValueError as exc:
            assert "priority" in str(exc)
        else:
            raise AssertionError("two axes' labels were merged")
        assert store.person_labels("f.csv", ["a"], axis="priority").labels == {0: "low"}
        assert store.person_labels("f.csv", ["a"], axis="queue").labels == {0: "billing"}


def test_a_field_renamed_onto_a_name_with_cleared_rows_only_takes_the_name(tmp_path):
    with ResultStore(tmp_path / "r.sqlite3") as store:
        store.set_person_labels("f.csv", {0: ("a", "low")}, axis="priority")
        store.set_person_labels("f.csv", {0: ("a", None)}, axis="priority")      # every label taken back
        store.set_person_labels("f.csv", {0: ("a", "billing")}, axis="queue")
        store.rename_axis("f.csv", "queue", "priority")
        assert store.person_labels("f.csv", ["a"], axis="priority").labels == {0: "billing"}
        assert store.person_label_axes("f.csv") == ["priority"]

"""A person's label is a fact about one ticket of one file: kept by file and row, checked by the
row's cells, named by the label's name; old databases' labels adopted; the file the user's alone."""

from __future__ import annotations

import os
import sqlite3
import stat

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from triage_app.engine.axes import PLAIN, Axis
from triage_app.engine.labels import LabelSet
from triage_app.review.person_labels import PersonLabels
from triage_app.files.store import ResultStore, place, text_hash
from triage_app.files.store_errors import make_private
from triage_app.files.ticket_keys import RowHash, file_key, holds, row_hash, row_hashes


def test_identical_texts_keep_their_own_labels(tmp_path):
    # two "Help" tickets, one billing, one technical: a label per row, not per text
    frame = pd.DataFrame({"id": ["1", "2"], "text": ["Help", "Help"]})
    hashes = row_hashes(frame)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("f.csv", {0: (hashes[0], "billing")})
        store.set_person_labels("f.csv", {1: (hashes[1], "technical")})
        assert store.person_labels("f.csv", hashes).labels == {0: "billing", 1: "technical"}
    # rows with identical cells, too
    twins = row_hashes(pd.DataFrame({"text": ["Help", "Help"]}))
    assert twins[0] == twins[1]
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("g.csv", {0: (twins[0], "billing"), 1: (twins[1], "technical")})
        assert store.person_labels("g.csv", twins).labels == {0: "billing", 1: "technical"}


def test_labels_belong_to_their_file(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("a.csv", {0: ("h", "billing")})
        assert store.person_labels("b.csv", ["h"]).labels == {}
        assert store.person_labels("a.csv", ["h"]).labels == {0: "billing"}


def test_a_row_that_moved_is_found_by_its_cells_and_moved_for_good(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("f.csv", {0: ("a", "billing"), 2: ("c", "account"), 3: ("gone", "technical")})
        # two rows added at the top; the ticket "gone" deleted
        found = store.person_labels("f.csv", ["new1", "new2", "a", "b", "c"])
        assert found.labels == {2: "billing", 4: "account"} and found.not_found == 1
        stored = sorted(store.stored_person_labels("f.csv"))
        assert stored == [(2, "a", "billing"), (3, "gone", "technical"), (4, "c", "account")]  # kept, moved
        # taken back where it is now: gone for good
        store.set_person_labels("f.csv", {2: ("a", None)})
        assert store.person_labels("f.csv", ["new1", "new2", "a", "b", "c"]).labels == {4: "account"}


def test_renames_follow_the_files_labels_and_a_swap_is_a_swap(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("f.csv", {0: ("a", "billing"), 1: ("b", "account"), 2: ("c", "technical")})
        store.set_person_labels("g.csv", {0: ("a", "billing")})
        store.rename_labels("f.csv", {"billing": "account", "account": "billing"})
        assert store.person_labels("f.csv", ["a", "b", "c"]).labels == {0: "account", 1: "billing", 2: "technical"}
        assert store.person_labels("g.csv", ["a"]).labels == {0: "billing"}      # another file's are its own


def test_an_old_database_keeps_its_labels(tmp_path):
    # as written before: keyed by the text's hash and the label set's fingerprint
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        # set1, then a description edit copied the labels to set2 (the old window did), and "my invoice"
        # was taken back under set2 only: the set used last is what the person saw, and is adopted
        store._db.executemany("INSERT INTO manual_labels (text_hash, label_set, label, created) VALUES (?, ?, ?, ?)",
                              [(text_hash("my invoice"), "set1", "billing", 1.0),
                               (text_hash("app crashes"), "set1", "account", 1.0),
                               (text_hash("app crashes"), "set2", "technical", 2.0),
                               (text_hash("not in this file"), "set3", "billing", 3.0)])
        store._db.commit()
    texts = ["hello", "my invoice", "app crashes"]
    hashes = ["r0", "r1", "r2"]
    with ResultStore(db) as store:
        assert store.person_labels("f.csv", hashes, texts).labels == {2: "technical"}
        store.set_person_labels("f.csv", {2: ("r2", None)})          # taken back: adopted once, not again
        assert store.person_labels("f.csv", hashes, texts).labels == {}
        assert store.person_labels("other.csv", hashes, texts).labels == {2: "technical"}
        assert store.person_labels("third.csv", hashes[:2], texts[:2]).labels == {1: "billing"}   # its last set
        # read first with texts that match no old label (another text column): nothing used up
        assert store.person_labels("fourth.csv", hashes, ["Re: hello", "Re: my invoice", "Re: app crashes"]).labels == {}
        assert store.person_labels("fourth.csv", hashes, texts).labels == {2: "technical"}


def test_the_database_is_the_users_alone(tmp_path):
    db = tmp_path / "r.db"
    old_umask = os.umask(0o022)
    try:
        with ResultStore(db) as store:
            store.set_person_labels("f.csv", {0: ("h", "billing")})
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    finally:
        os.umask(old_umask)
    assert {"r.db", "r.db-wal", "r.db-shm"} <= set(modes)
    assert all(mode == 0o600 for mode in modes.values()), modes
    # one an older version left readable is made private when opened
    os.chmod(db, 0o644)
    with ResultStore(db):
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
    # one its owner made read-only stays read-only (opening it then says so, for anyone but root)
    os.chmod(db, 0o444)
    make_private(db)
    assert stat.S_IMODE(db.stat().st_mode) == 0o400


def test_old_labels_another_process_adopted_meanwhile_are_adopted_once(tmp_path):
    """Two processes open one file of an older database at once: the second finds it adopted, no error."""
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        store._db.execute("INSERT INTO manual_labels (text_hash, label_set, label, created) VALUES (?, ?, ?, ?)",
                          (text_hash("my invoice"), "set1", "billing", 1.0))
        store._db.commit()
    with ResultStore(db) as first, ResultStore(db) as other:
        def meanwhile(statement: str) -> None:      # between first's look at the file and its adopting it
            if statement.startswith("SELECT text_hash"):
                first._db.set_trace_callback(None)
                assert other.person_labels("f.csv", ["r0", "r1"], ["hello", "my invoice"]).labels == {1: "billing"}
        first._db.set_trace_callback(meanwhile)
        assert first.person_labels("f.csv", ["r0", "r1"], ["hello", "my invoice"]).labels == {1: "billing"}


def test_a_row_hash_sees_every_cell_and_their_borders():
    assert row_hash(["ab", "c"]) != row_hash(["a", "bc"])
    assert row_hash(["a\x1fb"]) != row_hash(["a", "b"])
    assert row_hash(["1", "x"]) == row_hashes(pd.DataFrame({"id": ["1"], "t": ["x"]}))[0]


def test_the_file_is_named_by_where_it_is_and_its_sheet(tmp_path):
    (tmp_path / "t.csv").write_text("text\nhi\n")
    assert file_key(tmp_path / "t.csv") == file_key(tmp_path / "." / "t.csv") == str((tmp_path / "t.csv").resolve())
    assert file_key(tmp_path / "t.xlsx", "Sheet2") != file_key(tmp_path / "t.xlsx", "Sheet1")


labels = st.sampled_from(["billing", "technical", "account", "shipping"])


@settings(max_examples=200, deadline=None)
@given(stored=st.lists(st.tuples(st.integers(0, 12), st.sampled_from("abcdef"), labels), max_size=12,
                       unique_by=lambda t: (t[0], t[1])),
       now=st.lists(st.tuples(st.sampled_from("abcdefg"), st.sampled_from(["", "a", "b", "x"])), max_size=12))
def test_placing_never_puts_a_label_on_a_ticket_with_other_cells(stored, now):
    # a row's hash, and where it has a cell it does not have (files/table.Absent) the one earlier versions gave it
    now = [RowHash(h, earlier) if earlier else h for h, earlier in now]
    found, moves, lost = place(stored, now)
    for row, label in found.items():
        assert any(holds(now[row], h) and lab == label for _, h, lab in stored)
    assert len(found) + lost == len(stored)         # each label placed once, or counted as not found
    placed_in_place = {r for r, h, _ in stored if r < len(now) and now[r] == h}
    assert placed_in_place <= set(found)
    for old, new, h, hash_now in moves:
        assert holds(now[new], h) and hash_now == now[new] and new not in placed_in_place


def test_person_labels_show_the_set_and_keep_the_rest():
    person = PersonLabels("f.csv", ["h0", "h1", "h2"])
    person.give_many({0: "billing", 1: "shipping", 2: "account"})
    assert person.shown(["billing", "account"]) == {0: "billing", 2: "account"}
    assert person.set_aside(["billing", "account"]) == {"shipping": 1}
    person.rename({"shipping": "delivery"})
    assert person.shown(["billing", "delivery"]) == {0: "billing", 1: "delivery"}
    assert person.give(1, None) == {1: ("h1", None)} and 1 not in person.labels


def test_the_store_file_refuses_nothing_sqlite_would_have_opened(tmp_path):
    # an empty file made private before SQLite opens it is a new database, not a damaged one
    db = tmp_path / "new.db"
    with ResultStore(db) as store:
        assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with sqlite3.connect(db) as con:
        assert {r[0] for r in con.execute("SELECT name FROM sqlite_master")} >= {"person_labels", "migrated_files"}
    con.close()


def test_the_command_line_exports_the_labels_given_in_the_window(tmp_path):
    from argparse import Namespace

    from triage_app.cli.classify import person_labels
    from triage_app.files.reader import read_tickets

    path = tmp_path / "t.csv"
    pd.DataFrame({"id": ["1", "2", "3", "4"], "text": ["a", "b", "c", "d"]}).to_csv(path, index=False)
    table = read_tickets(path)
    hashes = row_hashes(table.frame)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(path), {1: (hashes[1], "billing"), 3: (hashes[3], "shipping"),
                                                 2: ("another ticket", "account")})
        store.set_person_labels(file_key(path), {1: (hashes[1], "urgent")}, axis="priority")
        axis = Axis(PLAIN, LabelSet.from_names(["billing", "technical", "account"]))
        priority = Axis("priority", LabelSet.from_names(["urgent", "low"]))
        texts = table.frame["text"].tolist()
        assert person_labels(store, Namespace(input=str(path), limit=None), table, texts, axis)[0] == {1: "billing"}
        assert person_labels(store, Namespace(input=str(path), limit=None), table, texts, priority)[0] == {1: "urgent"}
        table.frame = table.frame.head(2)
        assert person_labels(store, Namespace(input=str(path), limit=2), table, texts[:2], axis)[0] == {1: "billing"}


def test_a_label_taken_back_stays_taken_back_when_its_twin_row_leaves_the_file(tmp_path):
    """Rows 3 and 7 have the same cells. Row 7 leaves the file (its label is kept, not found); the
    person takes back row 3's label: row 3 must not take row 7's label on the next open."""
    h = ["a", "b", "c", "t", "d", "e", "f", "t"]
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("f.csv", {3: ("t", "billing"), 7: ("t", "technical")})
        now = h[:7]                                                       # row 7 deleted
        found = store.person_labels("f.csv", now)
        assert found.labels == {3: "billing"} and found.not_found == 1
        store.set_person_labels("f.csv", {3: ("t", None)})                     # taken back
        again = store.person_labels("f.csv", now)
        assert again.labels == {} and again.not_found == 1

"""Where a person's label came from (issue 32, item 15): typed by a person, or taken from the file's own
column (Labels ▸ Labels from a column). The database keeps it (older databases get it once, every label a
person's), it follows a ticket that moved, and it reaches the updates file, which sends back only what
changes the helpdesk's record; a different label typed over the file's makes it the person's again."""

from __future__ import annotations

import json
import sqlite3

import pytest
from PySide6.QtWidgets import QDialog

from cli_helpers import run_main
from test_axes_cli import axes_file, tickets  # noqa: F401
from test_ui_axes import HELPDESK_AXES, half_filled, select  # noqa: F401
from triage_app.files.store import ResultStore
from triage_app.review.person_labels import PersonLabels
from ui_helpers import make_window, open_file, settings_file  # noqa: F401


def test_the_store_keeps_each_labels_origin_and_it_follows_a_ticket_that_moved(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels("f.csv", {0: ("a", "billing"), 1: ("b", "account")}, "queue", from_file={0})
        store.set_person_labels("f.csv", {2: ("c", "billing")}, "queue")
        assert store.person_labels("f.csv", ["a", "b", "c"], axis="queue").from_file == {0}
        # a row added above: each label found one row down, its origin with it
        found = store.person_labels("f.csv", ["new", "a", "b", "c"], axis="queue")
        assert found.labels == {1: "billing", 2: "account", 3: "billing"} and found.from_file == {1}
        assert store.from_file_rows("f.csv", "queue") == {(1, "a")}                   # moved there, for good
        store.set_person_labels("f.csv", {1: ("a", "account")}, "queue")      # typed over: the person's now
        assert store.person_labels("f.csv", ["new", "a", "b", "c"], axis="queue").from_file == frozenset()


def test_a_database_from_before_origins_gets_the_column_once_every_label_a_persons(tmp_path):
    path = tmp_path / "old.db"
    ResultStore(path).close()
    db = sqlite3.connect(path)      # person_labels as the version before origins made it
    db.executescript("""DROP TABLE person_labels;
        CREATE TABLE person_labels (file TEXT NOT NULL, row INTEGER NOT NULL, row_hash TEXT NOT NULL,
            label TEXT NOT NULL, created REAL NOT NULL DEFAULT (julianday('now')),
            axis TEXT NOT NULL DEFAULT 'label', PRIMARY KEY (file, axis, row, row_hash));
        INSERT INTO person_labels (file, row, row_hash, label, axis) VALUES ('f.csv', 0, 'a', 'billing', 'queue');""")
    db.close()
    for _ in range(2):
        with ResultStore(path) as store:
            found = store.person_labels("f.csv", ["a"], axis="queue")
            assert found.labels == {0: "billing"} and found.from_file == frozenset()


def test_typing_over_the_files_label_makes_it_the_persons_and_the_same_label_keeps_it_the_files():
    person = PersonLabels("f.csv", ["a", "b", "c"], axis="queue")
    person.give_many({0: "billing", 1: "account"}, from_file=True)
    person.give(0, "billing")
    person.give(1, "technical")
    assert person.from_file == {0}
    person.give(0, None)
    assert person.from_file == set()


def queue_taken_from_its_column(qtbot, make_window, path, monkeypatch):
    """A window on the file whose queue field took its labels from the file's queue column (Labels ▸ Labels
    from a column, the dialog accepted as it opens)."""
    monkeypatch.setattr("triage_app.ui.learning.column_offer.LabelOfferDialog.exec",
                        lambda self: QDialog.DialogCode.Accepted)
    window = make_window(autoload=False)
    window.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, window, path)
    window.choose_axis("queue")
    window.labels_from_column()
    return window


def test_labels_taken_from_a_column_are_kept_as_the_files_in_the_window_and_the_database(
        qtbot, make_window, half_filled, monkeypatch, tmp_path):
    path, rows = half_filled
    window = queue_taken_from_its_column(qtbot, make_window, path, monkeypatch)
    taken = set(window.model.answers_of("queue").person_labels)
    assert taken and window.labelling.from_file("queue") == taken
    row = min(taken)
    other = next(n for n in window.label_set.names if n != rows[row]["queue"])
    select(window, row, "queue")
    window.model.setData(window.model.index(row, window.model.column_of("queue")), other)
    assert window.labelling.from_file("queue") == taken - {row}
    window.db.flush()
    file = window.labelling.people["queue"].file
    with ResultStore(tmp_path / "results.sqlite3") as store:
        assert store.person_labels(file, window.labelling.people["queue"].row_hashes, axis="queue").from_file == \
            taken - {row}


def test_classify_sends_back_no_label_the_window_took_from_the_files_own_column(
        tmp_path, capsys, tiny_model, tickets, axes_file):
    from triage_app.files.reader import read_tickets
    from triage_app.files.ticket_keys import file_key, row_hashes

    hashes = row_hashes(read_tickets(tickets).frame)
    with ResultStore(tmp_path / "r.db") as store:   # rows 0 and 3 from the column, row 5 typed
        store.set_person_labels(file_key(tickets), {0: (hashes[0], "billing"), 3: (hashes[3], "billing")},
                                axis="queue", from_file={0, 3})
        store.set_person_labels(file_key(tickets), {5: (hashes[5], "account")}, axis="queue")
    updates = tmp_path / "updates.json"
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes_file, "--updates", updates,
                            "--apply-above", "1")
    assert code == 0, err
    assert json.loads(updates.read_text()) == [{"id": "9005", "fields": {"queue": "account"}}]


def test_a_window_opened_later_knows_which_labels_are_the_files(qtbot, make_window, half_filled, monkeypatch):
    path, _ = half_filled
    first = queue_taken_from_its_column(qtbot, make_window, path, monkeypatch)
    taken = first.labelling.from_file("queue")
    first.db.flush()
    again = make_window(autoload=False)
    again.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, again, path)
    assert taken and again.labelling.from_file("queue") == taken


def test_classify_with_a_label_set_from_before_a_fields_rename_reads_its_labels_and_says_so(
        tmp_path, capsys, tiny_model):
    """The window renamed priority to urgency; a label-set file still says priority: the person's labels
    are read from urgency, and the command says so, never sent back as if nobody had labelled (review of
    issue 32 item 3)."""
    import json

    from cli_helpers import run_main, write_rows

    from triage_app.engine.axes import Axes, Axis
    from triage_app.engine.labels import LabelSet
    from triage_app.files.reader import read_tickets
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key, row_hashes

    tickets = write_rows(tmp_path / "t.csv", [{"id": str(k), "text": t} for k, t in
                                              enumerate(["card lost", "refund please", "app crashes"])])
    axes = tmp_path / "axes.json"
    Axes((Axis("priority", LabelSet.from_names(["urgent", "normal"])),)).save(axes)
    hashes = row_hashes(read_tickets(tickets).frame)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(file_key(tickets), {1: (hashes[1], "urgent")}, axis="priority")
        store.rename_axis(file_key(tickets), "priority", "urgency")
    updates = tmp_path / "u.json"
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes, "--updates", updates,
                            "--apply-above", "1")
    assert code == 0, err
    assert any("the field 'priority' of this file was renamed 'urgency' in the window" in line for line in err)
    assert json.loads(updates.read_text()) == [{"id": "1", "fields": {"priority": "urgent"}}]


def test_classify_with_a_label_set_from_before_two_fields_swapped_names_keeps_each_fields_labels(
        tmp_path, capsys, tiny_model):
    """The window swapped queue and priority (through a third name); a label-set file still says queue and
    priority: each field's labels are read where the renames took them, never sent as the other field's."""
    import json

    from cli_helpers import run_main, write_rows

    from triage_app.engine.axes import Axes, Axis
    from triage_app.engine.labels import LabelSet
    from triage_app.files.reader import read_tickets
    from triage_app.files.store import ResultStore
    from triage_app.files.ticket_keys import file_key, row_hashes

    tickets = write_rows(tmp_path / "t.csv", [{"id": str(k), "text": t} for k, t in
                                              enumerate(["card lost", "refund please", "app crashes", "help"])])
    axes = tmp_path / "axes.json"
    Axes((Axis("queue", LabelSet.from_names(["billing", "high"])),
          Axis("priority", LabelSet.from_names(["high", "low"])))).save(axes)
    hashes, key = row_hashes(read_tickets(tickets).frame), file_key(tickets)
    with ResultStore(tmp_path / "r.db") as store:
        store.set_person_labels(key, {1: (hashes[1], "high")}, axis="queue")
        store.set_person_labels(key, {2: (hashes[2], "high")}, axis="priority")
        for old, new in (("queue", "tmp"), ("priority", "queue"), ("tmp", "priority")):
            store.rename_axis(key, old, new)
    updates = tmp_path / "u.json"
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes, "--updates", updates,
                            "--apply-above", "1")
    assert code == 0, err
    assert json.loads(updates.read_text()) == [{"id": "1", "fields": {"queue": "high"}},
                                               {"id": "2", "fields": {"priority": "high"}}]


def test_classify_sends_back_no_window_label_the_column_already_holds(tmp_path, capsys, tiny_model, tickets,
                                                                       axes_file):
    """The person confirmed in the window the value the helpdesk has: nothing to send (a no-op update still
    touches the ticket and sets off the helpdesk's triggers); another label there is sent."""
    from triage_app.files.reader import read_tickets
    from triage_app.files.ticket_keys import file_key, row_hashes

    hashes = row_hashes(read_tickets(tickets).frame)
    with ResultStore(tmp_path / "r.db") as store:   # typed: row 0 as its queue_known, row 3 otherwise
        store.set_person_labels(file_key(tickets), {0: (hashes[0], "billing"), 3: (hashes[3], "account")},
                                axis="queue")
    updates = tmp_path / "updates.json"
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes_file, "--person-labels", "queue=queue_known",
                            "--updates", updates, "--apply-above", "1")
    assert code == 0, err
    assert json.loads(updates.read_text()) == [{"id": "9003", "fields": {"queue": "account"}}]


def test_with_limit_labels_the_window_took_from_the_files_column_are_not_sent_after_a_row_was_added_above(
        tmp_path, capsys, tiny_model, tickets, axes_file):
    """--limit reads the first rows and moves nothing in the database: the column's labels found a row down were
    read as typed, and the helpdesk's own values went back as changes (without --limit, none did)."""
    import csv

    from cli_helpers import write_rows

    from triage_app.files.reader import read_tickets
    from triage_app.files.ticket_keys import file_key, row_hashes

    hashes = row_hashes(read_tickets(tickets).frame)
    with ResultStore(tmp_path / "r.db") as store:   # rows 0 and 3 taken from the column
        store.set_person_labels(file_key(tickets), {0: (hashes[0], "billing"), 3: (hashes[3], "billing")},
                                axis="queue", from_file={0, 3})
    with open(tickets, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    write_rows(tickets, [{"ticket_id": "8999", "text": "Where is my parcel?", "queue_known": ""}, *rows])
    updates = tmp_path / "updates.json"
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--method", "direct", "--labels-file", axes_file, "--updates", updates,
                            "--apply-above", "1", "--limit", "6")
    assert code == 0, err
    assert json.loads(updates.read_text()) == []

"""Learning in the main window, as a support lead meets it: a file whose queue column is half
filled in, its values taken as labels, the rest answered from them, Enter to agree, Next to
label, and an export that says who gave each label; and, with the real model running, the offer to
stop it once the person's labels answer as well."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from triage_app.learn import LearnConfig
from cli_helpers import read_rows
from ui_helpers import make_window, open_file, settings_file, with_model, write_slice  # noqa: F401

QUEUES = {"Billing": "invoice charge refund price receipt card", "Technical": "error crash bug outage timeout app",
          "Account": "login password user profile email locked"}


@pytest.fixture
def half_filled(tmp_path):
    """60 tickets; the queue column is filled on every other one."""
    rng = np.random.default_rng(0)
    path = tmp_path / "export.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text", "queue"])
        for r in range(60):
            queue = list(QUEUES)[r % 3]
            words = " ".join(rng.choice(QUEUES[queue].split(), 3).tolist())
            writer.writerow([r, f"hello, {words}, please help", queue if r % 2 == 0 else ""])
    return path


@pytest.fixture
def taught(qtbot, make_window, half_filled, monkeypatch):
    """The window after Labels ▸ Labels from a column… was accepted as proposed (no model loaded)."""
    return teach(qtbot, make_window(autoload=False), half_filled, monkeypatch)


def teach(qtbot, window, path, monkeypatch):
    monkeypatch.setattr("triage_app.ui.learning.column_offer.LabelOfferDialog.exec", lambda self: QDialog.DialogCode.Accepted)
    open_file(qtbot, window, path)
    assert window.columns.gold_column == "queue"
    with qtbot.waitSignal(window.learning.learning.retrained, timeout=60_000):
        window.labels_from_column()
    return window


def test_a_half_filled_queue_column_becomes_the_labels_and_teaches_the_rest(taught):
    window, model = taught, taught.model
    assert sorted(window.label_set.names) == sorted(QUEUES)
    assert len(model.person_labels) == 30 and all(r % 2 == 0 for r in model.person_labels)
    sources = model.sources
    assert {sources[r] for r in range(0, 60, 2)} == {"person"}
    assert {sources[r] for r in range(1, 60, 2)} == {"learned"}
    right = sum(model.label_of(r) == list(QUEUES)[r % 3] for r in range(1, 60, 2))
    assert right >= 27, f"learned {right} of 30 unlabeled tickets right"
    assert "learned from 30 labels" in window.learning.status.text()


def test_the_taught_labels_are_in_the_database_after_a_restart(taught, qtbot, make_window, half_filled):
    fingerprint = taught.label_set.fingerprint
    taught.shutdown()
    again = make_window(autoload=False)
    assert again.label_set.fingerprint == fingerprint       # the label set was remembered
    open_file(qtbot, again, half_filled)
    assert len(again.model.person_labels) == 30


def test_enter_agrees_with_the_answer_shown_and_teaches(taught, qtbot):
    window, model, view = taught, taught.model, taught.view
    row = 1                              # learned, not the person's
    shown = model.label_of(row)
    view.selectRow(window.proxy.mapFromSource(model.index(row, 0)).row())
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert model.person_labels[row] == shown and model.source(row) == "person"
    # a retrain for the encoder's vectors may come first: the one that read the new label follows
    qtbot.waitUntil(lambda: "learned from 31 labels" in window.learning.status.text(), timeout=60_000)


def test_next_to_label_shows_the_queue_in_its_order(taught):
    window, proxy = taught, taught.proxy
    window.actions.next_to_label.trigger()
    queue = window.learning.queue
    assert queue and proxy.rowCount() == len(queue)
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == queue
    assert not set(queue) & set(taught.model.person_labels)
    window.actions.next_to_label.trigger()
    assert proxy.rowCount() == 60


def test_the_export_says_who_gave_each_label(taught, tmp_path):
    out = tmp_path / "labeled.csv"
    assert taught.export_to(out) == out
    rows = read_rows(out)
    assert [r["source"] for r in rows[:4]] == ["person", "learned", "person", "learned"]
    assert all(r["label"] for r in rows)
    assert rows[1]["label"] == taught.model.label_of(1)


def test_stopping_the_model_once_the_labels_answer_as_well(qtbot, make_window, half_filled, monkeypatch, smollm2):
    """A run of the real model: the labelled tickets it scores are retrained on during the run, the
    offer to stop it appears, and taking it stops the run; the person's labels answer the rest."""
    window = make_window(autoload=False)
    window.remembered.batch_size = 2
    window.learning.learning.config = LearnConfig(skip_min_per_label=2)    # 6 scored labels: an early offer
    with_model(qtbot, window, smollm2)
    teach(qtbot, window, half_filled, monkeypatch)
    button = window.learning.skip_button
    assert button.isHidden()
    ended = []
    window.run_ended.connect(ended.append)
    window.run()
    qtbot.waitUntil(lambda: button.isVisible() or bool(ended), timeout=120_000)
    assert not ended, "the run ended before the offer to stop it came"
    assert "tickets left" in button.toolTip() and "learned alone" in button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    qtbot.waitUntil(lambda: not window.learning.learning.busy, timeout=60_000)    # the retrain the end asks for
    model = window.model
    assert ended == ["cancelled"] and button.isHidden()
    not_reached = [r for r in range(60) if model.prediction(r) is None and r not in model.person_labels]
    assert not_reached, "the run finished every ticket: nothing was left to skip"
    assert {model.source(r) for r in not_reached} == {"learned"}
    right = sum(model.label_of(r) == list(QUEUES)[r % 3] for r in not_reached)
    assert right >= 0.9 * len(not_reached)
    assert "did not reach" in window.statusBar().currentMessage()


def test_a_run_retrains_as_its_scored_labels_grow_not_once_per_batch(taught, monkeypatch):
    """Each retrain on a big file takes a core from the run: batches that each score one labelled
    ticket ask for a retrain as the scored labels grow by a quarter (1, 2, 3, 4, 5, 7, 9, …)."""
    session, asked = taught.learning, []
    monkeypatch.setattr(session.learning, "request", lambda: asked.append(session._scored))
    labelled = sorted(taught.model.person_labels)                       # 30 rows
    for row in labelled:
        session.batch_scored("label", [row, row + 1])                    # one labelled, one not
    assert asked == [1, 2, 3, 4, 5, 7, 9, 12, 15, 19, 24, 30]
    session.run_done("label")                                           # a new run counts from 0 again
    session.batch_scored("label", [labelled[0]])
    assert asked[-2:] == [0, 1]


def test_next_to_label_follows_the_next_file_opened(taught, qtbot, tmp_path):
    """The queue was the first file's rows: another file (no labels of its own) shows its own queue."""
    window, proxy = taught, taught.proxy
    window.actions.next_to_label.trigger()
    assert proxy.rowCount() == len(window.learning.queue) < 60
    other = write_slice(tmp_path, 40)
    open_file(qtbot, window, other)
    qtbot.waitUntil(lambda: window.learning.queue is not None and not window.learning.learning.busy,
                    timeout=60_000)
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == window.learning.queue
    window.actions.next_to_label.trigger()
    assert proxy.rowCount() == 40


def write_queues(path, columns: dict[str, list]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", *columns])
        for r, values in enumerate(zip(*columns.values())):
            queue = list(QUEUES)[r % 3]
            writer.writerow([f"hello, {QUEUES[queue]}, ticket {r}", *values])


def accept_merging_the_rest(monkeypatch):
    def accept(dialog):
        dialog.rest.setCurrentIndex(1)           # the values not ticked: merged into "other"
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr("triage_app.ui.learning.column_offer.LabelOfferDialog.exec", accept)


def test_values_merged_into_other_join_a_value_named_other(qtbot, make_window, tmp_path, monkeypatch):
    path = tmp_path / "queues.csv"
    write_queues(path, {"queue": [["Billing", "Technical", "Other"][r % 3] for r in range(29)] + ["misc"]})
    accept_merging_the_rest(monkeypatch)
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    with qtbot.waitSignal(window.learning.learning.retrained, timeout=60_000):
        window.labels_from_column()
    assert window.label_set.names == ["Billing", "Technical", "Other"]
    assert window.model.person_labels[29] == "Other" and len(window.model.person_labels) == 30


def test_labels_from_a_column_start_on_the_half_filled_one_not_the_answer_key(qtbot, make_window, tmp_path,
                                                                              monkeypatch):
    path = tmp_path / "queues.csv"
    full = [list(QUEUES)[r % 3] for r in range(60)]
    write_queues(path, {"queue": full, "queue_known": [q if r % 2 else "" for r, q in enumerate(full)]})
    monkeypatch.setattr("triage_app.ui.learning.column_offer.LabelOfferDialog.exec", lambda self: QDialog.DialogCode.Accepted)
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    assert window.columns.gold_column == "queue"
    with qtbot.waitSignal(window.learning.learning.retrained, timeout=60_000):
        window.labels_from_column()
    assert sorted(window.model.person_labels) == list(range(1, 60, 2))


def test_labels_from_a_column_keep_what_the_person_wrote_of_the_labels_that_stay(qtbot, make_window, half_filled,
                                                                                monkeypatch):
    """The column's values became a label set of names alone: descriptions and examples typed for the same
    labels were dropped without a word (a hunt's finding)."""
    from triage_app.engine.labels import Example, Label, LabelSet

    window = make_window(autoload=False)
    typed = LabelSet((Label("Billing", "invoices, refunds, plan prices"), Label("Technical", "bugs and crashes"),
                      Label("Shipping", "parcels")), (Example("my card was charged twice", "Billing"),
                                                      Example("where is my parcel", "Shipping")))
    window.labels_panel.set_label_set(typed, announce=True)
    teach(qtbot, window, half_filled, monkeypatch)
    got = {label.name: label.description for label in window.label_set.labels}
    assert got == {"Account": "", "Billing": "invoices, refunds, plan prices", "Technical": "bugs and crashes"}
    assert window.label_set.examples == (Example("my card was charged twice", "Billing"),)


def test_a_column_spelling_our_labels_otherwise_is_our_labels_spelled_as_the_helpdesk_does(qtbot, make_window,
                                                                                         tmp_path, monkeypatch):
    """"Billing" in the queue column is the set's "billing" (names are told apart folded): the label takes the
    helpdesk's spelling and keeps its description, and the label a person gave by hand follows it, shown, not
    set aside under the old spelling."""
    from test_ui_axes import select

    path = tmp_path / "queues.csv"
    write_queues(path, {"queue": [list(QUEUES)[r % 3] if r % 2 == 0 else "" for r in range(12)]})
    monkeypatch.setattr("triage_app.ui.learning.column_offer.LabelOfferDialog.exec", lambda self: QDialog.DialogCode.Accepted)
    window = make_window(autoload=False)
    descriptions = {label.name.title(): label.description for label in window.label_set.labels}
    open_file(qtbot, window, path)
    select(window, 1, "label")
    qtbot.keyClick(window.view, Qt.Key.Key_1)                     # billing, by hand
    with qtbot.waitSignal(window.learning.learning.retrained, timeout=60_000):
        window.labels_from_column()
    assert {label.name: label.description for label in window.label_set.labels} == descriptions
    assert window.model.person_labels[1] == "Billing" and window.model.person_labels[0] == "Billing"
    assert window.labelling.set_aside() == 0


def billing_by_hand(qtbot, make_window, tmp_path):
    """A window on six tickets, the second labelled billing by hand (key 1)."""
    from test_ui_axes import select

    path = tmp_path / "queues.csv"
    write_queues(path, {"queue": [""] * 6})
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    select(window, 1, "label")
    qtbot.keyClick(window.view, Qt.Key.Key_1)
    return window


def test_a_name_typed_otherwise_brings_back_the_labels_set_aside_under_it(qtbot, make_window, tmp_path):
    window = billing_by_hand(qtbot, make_window, tmp_path)
    panel = window.labels_panel
    panel.labels.selectRow(0)
    panel.remove_selected_label()                                 # billing's label is set aside
    assert window.labelling.set_aside() == 1
    panel.add_label()
    panel.labels.item(panel.labels.rowCount() - 1, 0).setText("Billing")   # typed with a capital: one name
    assert "billing" in window.label_set.names and "Billing" not in window.label_set.names
    assert window.model.person_labels == {1: "billing"} and window.labelling.set_aside() == 0


def test_an_edit_of_another_labels_description_never_renames_a_label_left_as_it_was(qtbot, make_window, tmp_path):
    """"billing" labels set aside under a label-set file's "Billing": an edit of technical's description is that
    edit alone, not a rename of "Billing" onto the set-aside spelling (refused, and every later edit with it)."""
    from triage_app.engine.labels import LabelSet

    window = billing_by_hand(qtbot, make_window, tmp_path)
    panel = window.labels_panel
    panel.set_label_set(LabelSet.from_names(["Billing", "technical", "account"]), announce=True)
    assert window.labelling.set_aside() == 1
    panel.labels.item(1, 1).setText("bugs and crashes")
    assert window.label_set.names == ["Billing", "technical", "account"] and not panel.error.isVisible()
    assert window.label_set.labels[1].description == "bugs and crashes"

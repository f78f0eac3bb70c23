"""Several fields at once in the window (issue 24): queue and priority, each a label set of its own,
a decision column each, keys on the field whose column is selected, a person's labels kept per
field through switches, removals and restarts, and labels from a column per field. No model: what
a run does per field is tests/test_ui_axes_run.py."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog

from triage_app.engine.axes import Axes
from triage_app.engine.labels import LabelSet
from triage_app.files.store import ResultStore
from triage_app.ui.settings import Remembered, open_settings
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
HELPDESK, HELPDESK_AXES = RESOURCES / "helpdesk_export.csv", RESOURCES / "helpdesk_axes.json"


def helpdesk_rows() -> list[dict]:
    with HELPDESK.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_helpdesk(folder: Path, rows: list[dict], name: str = "helpdesk.csv") -> Path:
    path = folder / name
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def select(window, row: int, axis: str) -> None:
    """What a click on a row's cell in a field's label column does: that row, that field current."""
    index = window.proxy.index(row, window.model.column_of(axis))
    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    window.view.selectionModel().setCurrentIndex(index, flags)
    window.view.setFocus()


def stored(tmp_path, window, axis: str) -> dict[int, str]:
    person = window.labelling.people[axis]
    with ResultStore(tmp_path / "results.sqlite3") as store:
        return store.person_labels(person.file, person.row_hashes, axis=axis).labels


@pytest.fixture
def two_fields(qtbot, make_window, tmp_path):
    """A window on 12 helpdesk tickets with queue and priority loaded from helpdesk_axes.json."""
    def make():
        window = make_window(autoload=False)
        assert window.labels_panel.load(str(HELPDESK_AXES))
        open_file(qtbot, window, write_helpdesk(tmp_path, helpdesk_rows()[:12]))
        return window
    return make


def test_two_fields_in_the_editor_are_saved_and_restored(qtbot, make_window, tmp_path, settings_file):
    window = make_window(autoload=False)
    panel, plain = window.labels_panel, window.label_set
    assert not panel.axis_picker.combo.isVisibleTo(panel) and panel.axis_picker.add_button.isVisibleTo(panel)
    assert window.model.decision_columns == 3 and window.model.headerData(0, Qt.Orientation.Horizontal) == "label"
    panel.add_axis("priority", LabelSet.from_names(["urgent", "normal", "low"]))
    assert panel.axis == "priority" and window.label_set.names == ["urgent", "normal", "low"]
    assert panel.axis_picker.combo.isVisibleTo(panel)
    assert panel.rename_axis("label", "queue")
    assert window.axes.names == ["queue", "priority"] and window.axes.first.label_set == plain
    # a decision column per field, named after it, frozen at the table's left
    headers = [window.model.headerData(c, Qt.Orientation.Horizontal) for c in range(6)]
    assert headers == ["queue", "confidence", "margin", "▸ priority", "confidence", "margin"]   # the current: marked
    assert window.view.frozen_count == 6
    # the editor edits the field shown: a label added to priority leaves queue alone
    panel.add_label()
    assert len(window.axes.axes[1].label_set.labels) == 4 and window.axes.first.label_set == plain
    panel.choose_axis("queue")
    assert window.model.current_axis == "queue" and window.label_set == plain
    # saved as a file of fields, loaded back; remembered in the settings, a new window starts on them
    path = tmp_path / "fields.json"
    assert panel.save(str(path)) and Axes.load(path) == window.axes
    assert [a["name"] for a in json.loads(path.read_text())["axes"]] == ["queue", "priority"]
    axes = window.axes
    window.close()
    assert Remembered.load(open_settings()).axes == axes
    again = make_window(autoload=False)
    assert again.axes == axes and again.model.axes == ["queue", "priority"]
    # removing the second field is a plain set again, saved as today's file
    again.labels_panel.remove_axis("priority")
    again.labels_panel.rename_axis("queue", "label")
    assert again.axes.is_plain and again.model.decision_columns == 3
    assert "axes" not in json.loads(Remembered.load(open_settings()).label_set)
    assert again.labels_panel.load(str(path)) and again.axes == axes


def test_keys_act_on_the_selected_fields_column_and_each_label_stays_on_its_field(qtbot, two_fields, tmp_path):
    window = two_fields()
    model, queue, priority = window.model, window.axes.axes[0].names, window.axes.axes[1].names
    select(window, 0, "queue")
    QTest.keyClick(window.view, Qt.Key.Key_2)                         # queue: the 2nd queue
    assert window.labels_panel.axis == "queue" and model.answers_of("queue").person_labels == {0: queue[1]}
    select(window, 3, "priority")
    assert window.labels_panel.axis == "priority" and window.label_set.names == priority
    header = window.proxy.headerData
    assert [header(model.column_of(a), Qt.Orientation.Horizontal) for a in ("queue", "priority")] == \
        ["queue", "▸ priority"]                                         # the field the keys act on, marked
    QTest.keyClick(window.view, Qt.Key.Key_1)                         # priority: the 1st priority
    QTest.keyClick(window.view, Qt.Key.Key_4)                         # the cursor moved on, still on priority
    assert model.current_axis == "priority"
    assert model.answers_of("priority").person_labels == {3: priority[0], 4: priority[3]}
    assert model.answers_of("queue").person_labels == {0: queue[1]}
    # back and forth, from the table and from the editor: nothing moves, nothing mixes
    for axis in ("queue", "priority", "queue"):
        window.labels_panel.axis_picker.combo.setCurrentText(axis)
        assert model.current_axis == axis and window.labelling.person.axis == axis
    select(window, 0, "priority")
    QTest.keyClick(window.view, Qt.Key.Key_3)
    expected = {"queue": {0: queue[1]}, "priority": {0: priority[2], 3: priority[0], 4: priority[3]}}
    assert {a: model.answers_of(a).person_labels for a in expected} == expected
    qtbot.waitUntil(lambda: {a: stored(tmp_path, window, a) for a in expected} == expected)   # each under its field
    # a field removed keeps its labels (stored, and in memory), and they are back with it
    window.labels_panel.remove_axis("priority")
    assert model.axes == ["queue"] and window.labelling.people["priority"].labels == expected["priority"]
    window.labels_panel.add_axis("priority", LabelSet.from_names(priority))
    assert model.answers_of("priority").person_labels == expected["priority"]
    # a new window on the same file (the window restarted) finds every label on its own field
    window.close()
    again = two_fields()
    assert again.axes.names == ["queue", "priority"]
    assert {a: again.model.answers_of(a).person_labels for a in expected} == expected
    # a field renamed takes its labels along, in the window and in the database
    assert again.labels_panel.rename_axis("priority", "urgency")
    assert again.model.answers_of("urgency").person_labels == expected["priority"]
    qtbot.waitUntil(lambda: stored(tmp_path, again, "urgency") == expected["priority"])
    assert again.labelling.people["queue"].labels == expected["queue"]


def test_a_plain_set_keeps_its_labels_on_the_plain_field(qtbot, make_window, tmp_path):
    """One field is today's window: its labels are the plain field's ("label"), as older versions stored them."""
    window = make_window(autoload=False)
    open_file(qtbot, window, write_helpdesk(tmp_path, helpdesk_rows()[:4]))
    window.view.setFocus()
    window.view.selectRow(1)
    QTest.keyClick(window.view, Qt.Key.Key_1)
    name = window.label_set.names[0]
    assert window.model.person_labels == {1: name} and window.labelling.person.axis == "label"
    with ResultStore(tmp_path / "results.sqlite3") as store:
        qtbot.waitUntil(lambda: store.person_labels(window.labelling.person.file, window.labelling.person.row_hashes).labels
                        == {1: name})


@pytest.fixture
def half_filled(tmp_path):
    """60 helpdesk tickets: the queue column filled on the even rows, priority on the rows divisible by 3."""
    rows = helpdesk_rows()[:60]
    for r, row in enumerate(rows):
        row["queue"] = row["queue"] if r % 2 == 0 else ""
        row["priority"] = row["priority"] if r % 3 == 0 else ""
    return write_helpdesk(tmp_path, rows, "half.csv"), rows


def test_labels_from_a_column_teach_each_field_its_own(qtbot, make_window, half_filled, monkeypatch):
    path, rows = half_filled
    monkeypatch.setattr("triage_app.ui.learning.column_offer.LabelOfferDialog.exec",
                        lambda self: QDialog.DialogCode.Accepted)
    window = make_window(autoload=False)
    window.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, window, path)
    model = window.model
    for axis in ("queue", "priority"):
        window.choose_axis(axis)
        assert window.columns.gold_column == axis                   # the gold column of the field's name
        with qtbot.waitSignal(window.learning.learning.retrained, timeout=60_000):
            window.labels_from_column()
        given = {r: row[axis] for r, row in enumerate(rows) if row[axis]}
        assert model.answers_of(axis).person_labels == {r: v for r, v in given.items()
                                                        if v in window.label_set.names}
        assert set(window.label_set.names) <= {row[axis] for row in rows if row[axis]}
    # each field learned from its own labels: every row answered on both, the person's where given
    for axis, every in (("queue", 2), ("priority", 3)):
        answers = model.answers_of(axis)
        sources = answers.sources
        taken = {r for r in range(60) if r % every == 0 and rows[r][axis] in answers.label_names}
        assert {r for r in range(60) if sources[r] == "person"} == taken
        assert {sources[r] for r in range(60) if r % every} == {"learned"}
        assert all(answers.label_of(r) in answers.label_names for r in range(60))
    assert window.axes.names == ["queue", "priority"]
    assert set(window.axes.axes[0].names) != set(window.axes.axes[1].names)

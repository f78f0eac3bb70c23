"""A run of several fields from the window, with the real SmolLM2 (issue 24): queue and priority from
resources/helpdesk_axes.json on helpdesk tickets, a decision column each, the review queue, the
filter and the accuracy tab per field, and an export with each field's columns named after it.

The tickets are the helpdesk file's shortest: what these tests check is the window around the model.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from triage_app.engine.classifier import Classifier
from triage_app.engine.config import METHOD_LIMIT
from triage_app.files.clean import clean_texts
from test_ui_axes import HELPDESK, HELPDESK_AXES, helpdesk_rows, select, write_helpdesk
from ui_helpers import Relay, make_window, open_file, run_and_wait, save_shot, settings_file, with_model  # noqa: F401

N = 6


@pytest.fixture
def ran(qtbot, make_window, smollm2, tmp_path):
    """A window that ran queue and priority on the N shortest helpdesk tickets; and those rows."""
    rows = sorted(helpdesk_rows(), key=lambda row: len(row["body"]))[:N]
    window = make_window()
    window.remembered.batch_size = 4
    with_model(qtbot, window, smollm2)
    assert window.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, window, write_helpdesk(tmp_path, rows))
    fields = Relay(window.worker.fields_started)
    assert run_and_wait(qtbot, window) == "done"
    # channel (the run's method): a field in a run of its own, one after the other
    assert [f.names for f in fields.seen] == [["queue"], ["priority"]]
    return window, rows


def test_a_two_field_run_fills_a_decision_column_per_field(ran, smollm2):
    window, _ = ran
    model = window.model
    read = clean_texts(window.texts, window.remembered.cleaning)          # what a run feeds the model
    for axis in window.axes:
        answers = model.answers_of(axis.name)
        assert answers.rows_answered == N and answers.label_names == axis.names
        alone = {p.index: p.label for b in Classifier(smollm2, axis.label_set, max_ticket_tokens=METHOD_LIMIT).run(read)
                 for p in b.predictions}
        assert [answers.label_of(r) for r in range(N)] == [alone[r] for r in range(N)]
        column = model.column_of(axis.name)
        assert [model.data(model.index(r, column)) for r in range(N)] == [alone[r] for r in range(N)]
        assert model.headerData(column, Qt.Orientation.Horizontal).removeprefix("▸ ") == axis.name
    assert window.runs.latest.now == ("priority",) and "done" in window.run_panel.bar.format()


def in_view(window) -> list[int]:
    return [window.proxy.source_row(r) for r in range(window.proxy.rowCount())]


def test_review_filter_and_accuracy_follow_the_selected_field(qtbot, ran):
    window, rows = ran
    model, tickets = window.model, window.tickets
    margins = {axis: model.answers_of(axis).margin_column for axis in ("queue", "priority")}
    window.choose_axis("queue")
    tickets.set_review_queue(True)
    assert in_view(window) == list(np.argsort(margins["queue"], kind="stable"))
    select(window, 0, "priority")                                   # the priority column: its review queue
    assert model.current_axis == "priority" and window.labels_panel.axis == "priority"
    assert in_view(window) == list(np.argsort(margins["priority"], kind="stable"))
    assert window.view.horizontalHeader().sortIndicatorSection() == model.column_of("priority", 2)
    select(window, 0, "priority")                                   # the selection kept its row: the top one now
    first = in_view(window)[0]
    QTest.keyClick(window.view, Qt.Key.Key_1)                        # labelled on priority: it leaves that queue
    assert model.answers_of("priority").person_labels == {first: window.label_set.names[0]}
    assert first not in in_view(window) and model.answers_of("queue").person_labels == {}
    window.choose_axis("queue")
    assert first in in_view(window)                                  # still unchecked on queue
    tickets.set_review_queue(False)
    # the label filter offers the current field's labels, and filters on them
    queue_names = window.axes.axes[0].names
    assert [tickets.label_filter.itemText(k) for k in range(1, tickets.label_filter.count())] == queue_names
    shown = model.answers_of("queue").label_of(0)
    tickets.label_filter.setCurrentText(shown)
    assert in_view(window) == [r for r in range(N) if model.answers_of("queue").label_of(r) == shown]
    tickets.label_filter.setCurrentText("all labels")
    # the accuracy tab: each field against its own gold column
    for axis in ("queue", "priority"):
        window.choose_axis(axis)
        assert window.columns.gold_column == axis
        predicted = [model.answers_of(axis).predicted_label(r) for r in range(N)]
        expected = sum(p == row[axis] for p, row in zip(predicted, rows)) / N
        qtbot.waitUntil(lambda: window.accuracy_panel.scores is not None and
                        window.accuracy_panel.scores.labels == window.label_set.names)
        assert window.accuracy_panel.scores.n == N
        assert window.accuracy_panel.scores.accuracy == pytest.approx(expected)


def test_the_export_writes_each_fields_columns_named_after_it(ran, tmp_path):
    window, rows = ran
    model = window.model
    model.set_person_label(2, "Low", "priority")
    back = pd.read_csv(window.export_to(tmp_path / "out.csv"), dtype=str, keep_default_na=False)
    # the file's own queue and priority columns keep their values under another name, as the command line does
    assert back["queue_input"].tolist() == [row["queue"] for row in rows]
    assert back["priority_input"].tolist() == [row["priority"] for row in rows]
    for axis in window.axes:
        answers = model.answers_of(axis.name)
        assert back[axis.name].tolist() == [answers.label_of(r) for r in range(N)]
        assert [float(c) for c in back[f"{axis.name}_confidence"]] == pytest.approx(
            [answers.confidence(r) for r in range(N)], abs=1e-6)
        assert {f"p_{axis.name}_{label}" for label in axis.names} <= set(back.columns)
    assert back["priority"][2] == "Low" and back["priority_source"][2] == "person"
    assert set(back["queue_source"]) == {"model"}


def test_a_two_field_run_on_the_helpdesk_export_as_the_window_shows_it(qtbot, make_window, smollm2, tmp_path):
    """The screenshot in docs/window.md: the helpdesk export, queue and priority, after a run (the
    file's first 40 tickets with TRIAGE_SHOTS=1, its first 8 otherwise)."""
    window = make_window()
    window.remembered.method = "direct"
    with_model(qtbot, window, smollm2)
    assert window.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, window, HELPDESK)
    limit = 40 if os.environ.get("TRIAGE_SHOTS") else 8
    assert run_and_wait(qtbot, window, timeout=1_200_000, limit=limit) == "done"
    select(window, 0, "priority")
    window.side.tabs.setCurrentWidget(window.accuracy_panel)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: window.accuracy_panel.scores is not None and
                    window.accuracy_panel.scores.labels == window.axes.axes[1].names)
    assert window.model.answers_of("queue").rows_answered == window.model.answers_of("priority").rows_answered > 0
    QApplication.processEvents()
    save_shot(window, "window-two-fields.png", tmp_path)

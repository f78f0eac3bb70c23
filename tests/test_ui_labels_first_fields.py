"""Labels first on a file of two fields: Run answers the current field from the person's labels first, and
then the model reads the other field as any run does. Before, the other field was left unanswered, with
nothing said (issue 34, item 6)."""

from __future__ import annotations

import pytest
from test_ui_axes import HELPDESK_AXES, helpdesk_rows, write_helpdesk
from test_ui_embedding import embedded
from ui_helpers import make_window, settings_file, with_model  # noqa: F401

from triage_app.ui.panels.run_progress import LABELS_FIRST

pytestmark = pytest.mark.model      # the encoder loads in the worker: no fixture says so
ROWS = 10


def test_labels_first_answers_the_current_field_then_the_model_runs_the_others(qtbot, make_window, tmp_path,
                                                                               smollm2):
    rows = sorted(helpdesk_rows(), key=lambda row: len(row["body"]))[:ROWS]
    window = make_window()
    window.remembered.method = "direct"     # one pass a ticket: the test's time, not what it checks
    with_model(qtbot, window, smollm2)
    assert window.labels_panel.load(str(HELPDESK_AXES))
    embedded(qtbot, window, lambda: window.open_file(write_helpdesk(tmp_path, rows)))
    qtbot.waitUntil(lambda: window.embedding.settled, timeout=120_000)
    field = window.fields.current
    [other] = [axis.name for axis in window.axes if axis.name != field]
    taught = {row: rows[row][field] for row in (0, 2, 4)}      # three queues, from the file's own column
    for row, label in taught.items():
        assert window.model.set_person_label(row, label)
    item = window.run_panel.method.model().item(LABELS_FIRST)
    qtbot.waitUntil(item.isEnabled, timeout=120_000)
    window.run_panel.method.setCurrentIndex(LABELS_FIRST)

    with qtbot.waitSignal(window.run_ended, timeout=600_000) as first:
        assert window.run() is not None
        said = window.statusBar().currentMessage()
    assert first.args[0] == "done"
    assert said.startswith("Labels first") and f"Then {other}, read by the model as usual." in said
    answers = window.model.answers_of(field)
    assert answers.labels_first and answers.read_by_model()[list(taught)].all()

    qtbot.waitUntil(lambda: window.runs.ended_how == "done" and not window.running, timeout=600_000)
    assert window.model.answers_of(other).rows_answered == ROWS, f"{other} was left unanswered"
    assert not window.model.answers_of(other).labels_first
    assert [window.model.label_of(row) for row in taught] == list(taught.values())


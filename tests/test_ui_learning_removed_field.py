"""A field removed while its learning still waits for something (the encoder's vectors, a retrain asked for
during another): what comes later finds no field to learn for, and waits for one of its name, never a
KeyError in a Qt slot. Real window offscreen; the vectors are handed as the window's Embedding hands them."""

from __future__ import annotations

import numpy as np

from triage_app.engine.axes import Axes

from test_ui_axes import HELPDESK_AXES, helpdesk_rows, write_helpdesk
from test_ui_field_names import key
from ui_helpers import make_window, open_file, settings_file  # noqa: F401


def window_with_a_label_on_priority(qtbot, make_window, tmp_path):
    window = make_window(autoload=False)
    assert window.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, window, write_helpdesk(tmp_path, helpdesk_rows()[:6]))
    key(window, 0, "priority", "High")
    return window


def vectors(window) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(len(window.labelling.texts), 8)).astype(np.float32)


def test_vectors_that_come_after_a_labelled_field_was_removed_are_taken_without_a_word(qtbot, make_window, tmp_path):
    window = window_with_a_label_on_priority(qtbot, make_window, tmp_path)
    window.labels_panel.remove_axis("priority")
    window.learning.set_embeddings(window.labelling.texts, vectors(window))
    assert window.axes.names == ["queue"]
    # the field back under its name learns again, from its labels
    window.labels_panel.add_axis("priority", Axes.load(HELPDESK_AXES).named("priority").label_set)
    assert window.model.answers_of("priority").person_labels == {0: "High"}
    live = window.learning.lives["priority"]
    qtbot.waitUntil(lambda: not live.busy, timeout=20_000)
    with qtbot.waitSignal(live.retrained, timeout=20_000):
        live.request()


def test_a_retrain_asked_for_a_renamed_field_removed_since_does_nothing(qtbot, make_window, tmp_path):
    window = window_with_a_label_on_priority(qtbot, make_window, tmp_path)
    assert window.labels_panel.rename_axis("priority", "urgency")
    window.labels_panel.remove_axis("urgency")
    live = window.learning.lives["urgency"]
    qtbot.waitUntil(lambda: not live.busy, timeout=20_000)
    live.request()          # what the retrain running at the removal asks for when it ends (live._dirty)
    assert not live.busy

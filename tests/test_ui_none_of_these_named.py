"""A field with a label called "none of these" (any case) is not offered the "none of these" answer in the
window, as `classify --none-of-these` refuses it: the two would be one value in the table and the export."""

from __future__ import annotations

from ui_helpers import make_window, settings_file  # noqa: F401

from triage_app.engine.labels import Label, LabelSet


def test_a_label_named_none_of_these_turns_the_offer_off_and_a_rename_turns_it_back_on(qtbot, make_window, tmp_path):
    window = make_window()
    path = tmp_path / "tickets.csv"
    path.write_text("text\nI was charged twice\nthe app crashes on start\nwhat is the weather\n", encoding="utf-8")
    window.labels_panel.set_label_set(LabelSet((Label("billing"), Label("technical"), Label("None Of These"))))
    window.open_file(path)
    qtbot.waitUntil(lambda: window.model.rowCount() == 3)
    box = window.learning.offer_none
    qtbot.waitUntil(lambda: not box.isEnabled())
    assert "“None Of These” has that name" in box.toolTip()

    window.labels_panel.set_label_set(LabelSet((Label("billing"), Label("technical"), Label("other"))))
    qtbot.waitUntil(box.isEnabled)
    assert "has that name" not in box.toolTip()

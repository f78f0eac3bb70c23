"""A label renamed in one window while another shows the file (issue 32, a hunt's finding): the other
window's labels under the old name were stored under it, so one label's tickets were split across two
names and a third window hid the old name's. Label renames are remembered per file and field as field
renames are (files/field_renames.py): a window still showing the old name saves under the new one and is
told (the rules themselves: tests/test_label_renames.py)."""

from __future__ import annotations

from test_ui_axes import HELPDESK_AXES
from test_ui_field_names import key, on_one_file, stored
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

PRIORITY = ["Urgent", "High", "Normal", "Low"]


def test_a_window_still_showing_a_labels_old_name_saves_under_the_new_one_and_is_told(
        qtbot, make_window, tmp_path, capsys):
    a, b, path = on_one_file(qtbot, make_window, tmp_path)
    for window in (a, b):
        window.labels_panel.choose_axis("priority")
    file = a.labelling.people["priority"].file
    key(b, 2, "priority", "Low")
    b.db.flush()
    a.labels_panel.labels.item(PRIORITY.index("Low"), 0).setText("Minor")      # a: Low -> Minor
    a.db.flush()
    key(b, 1, "priority", "Low")                                               # b still shows Low
    b.db.flush()
    assert stored(tmp_path, file)["priority"] == {1: "Minor", 2: "Minor"}      # one label, one name
    qtbot.waitUntil(lambda: "renamed the label “Low” to “Minor”" in b.banner.text.text())
    # a third window, with a's names, shows both
    c = make_window(autoload=False)
    assert c.labels_panel.load(str(HELPDESK_AXES))
    c.labels_panel.choose_axis("priority")
    c.labels_panel.labels.item(PRIORITY.index("Low"), 0).setText("Minor")
    open_file(qtbot, c, path)
    assert c.model.answers_of("priority").person_labels == {1: "Minor", 2: "Minor"}
    assert "Traceback" not in capsys.readouterr().err

"""A label renamed inside a field onto a name that holds the field's labels on this file (issue 32): two
windows on one file and one database; the other window gave labels under that name. The window's check
asks the database and refuses before anything changes; where the writer is busy and refuses later, the
window takes the rename back and says why. Either way, no two labels' tickets are mixed up."""

from __future__ import annotations

from triage_app.engine.axes import Axes

from test_ui_axes import HELPDESK_AXES
from test_ui_field_names import key, on_one_file, stored
from test_ui_rename_refused import held
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

PRIORITY = ["Urgent", "High", "Normal", "Low"]


def two_windows(qtbot, make_window, tmp_path):
    """a and b on one file, each with queue and priority; b renamed Normal to Minor and gave row 1 Minor."""
    a, b, path = on_one_file(qtbot, make_window, tmp_path)
    b.labels_panel.choose_axis("priority")
    b.labels_panel.labels.item(PRIORITY.index("Normal"), 0).setText("Minor")
    key(b, 1, "priority", "Minor")
    b.db.flush()
    key(a, 0, "priority", "Low")
    a.db.flush()
    a.labels_panel.choose_axis("priority")
    return a, path, a.labelling.people["priority"].file


def rename_low_to_minor(a):
    a.labels_panel.labels.item(PRIORITY.index("Low"), 0).setText("Minor")


def test_a_rename_onto_a_name_another_window_gave_is_refused_before_anything_changes(qtbot, make_window, tmp_path):
    a, path, file = two_windows(qtbot, make_window, tmp_path)
    rename_low_to_minor(a)
    error = a.labels_panel.error.text()
    assert "“Minor” already holds 1 of your labels" in error and "another window" in error and "\n" not in error
    assert a.axes.named("priority").names == PRIORITY
    assert a.model.answers_of("priority").person_labels == {0: "Low"}
    a.db.flush()
    assert stored(tmp_path, file)["priority"] == {0: "Low", 1: "Minor"}


def test_a_rename_the_busy_writer_refuses_later_is_taken_back_in_the_window_and_said(
        qtbot, make_window, tmp_path, capsys):
    a, path, file = two_windows(qtbot, make_window, tmp_path)
    release = held(a)
    try:
        rename_low_to_minor(a)          # the check waits half a second, then lets it through
        assert a.axes.named("priority").names == ["Urgent", "High", "Normal", "Minor"]
        key(a, 2, "priority", "Minor")  # a's person goes on, on the name shown (a's Minor is its Low)
    finally:
        release.set()
    qtbot.waitUntil(lambda: "was not renamed" in a.banner.text.text())
    line = a.banner.text.text()
    assert "“Low” was not renamed “Minor”" in line and "“Minor” already holds 1" in line and "\n" not in line
    # the window is back on the old name: the editor, the table's labels, the fields remembered
    assert a.axes.named("priority").names == PRIORITY and a.labels_panel.axes.named("priority").names == PRIORITY
    assert a.model.answers_of("priority").person_labels == {0: "Low", 2: "Low"}
    assert a.remembered.axes.named("priority").names == PRIORITY
    # the database merged nothing: a's labels under Low, b's under Minor
    a.db.flush()
    assert stored(tmp_path, file)["priority"] == {0: "Low", 1: "Minor", 2: "Low"}
    key(a, 3, "priority", "Low")
    a.db.flush()
    assert stored(tmp_path, file)["priority"] == {0: "Low", 1: "Minor", 2: "Low", 3: "Low"}
    # a third window shows each label whole
    c = make_window(autoload=False)
    assert c.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, c, path)
    assert c.model.answers_of("priority").person_labels == {0: "Low", 2: "Low", 3: "Low"}
    assert "Traceback" not in capsys.readouterr().err


def test_a_field_removed_before_the_refusal_came_gets_its_labels_back_under_the_old_name(
        qtbot, make_window, tmp_path):
    a, path, file = two_windows(qtbot, make_window, tmp_path)
    release = held(a)
    try:
        rename_low_to_minor(a)
        a.labels_panel.remove_axis("priority")
    finally:
        release.set()
    qtbot.waitUntil(lambda: "“Low” was not renamed “Minor”" in a.banner.text.text())
    assert a.axes.names == ["queue"]
    a.labels_panel.add_axis("priority", Axes.load(HELPDESK_AXES).named("priority").label_set)
    assert a.model.answers_of("priority").person_labels == {0: "Low"}
    key(a, 1, "priority", "Low")
    a.db.flush()
    assert stored(tmp_path, file)["priority"] == {0: "Low", 1: "Low"}

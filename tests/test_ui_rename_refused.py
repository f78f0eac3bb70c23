"""A field rename the window's check let through but the database's writer then refused (issue 32, items
2 and 3, left open): another window gave labels under the new name between the check and the write. The
window goes back to the old name everywhere, says why in one line, and every label stays under one name.
Real windows offscreen, one real database; the first window's writer is held busy, as a big file's labels
hold it, so its check falls back to the window's own rule and the writer decides later."""

from __future__ import annotations

import threading

from test_ui_axes import HELPDESK_AXES, helpdesk_rows, write_helpdesk
from test_ui_field_names import axes_file, key, stored
from ui_helpers import make_window, open_file, settings_file  # noqa: F401


def released_soon(release: threading.Event) -> None:
    """The writer let go from another thread: opening a file first flushes the labels queued (the UI
    thread waits for the writer there), so a release after open_file came only when the hold timed out."""
    threading.Timer(0.5, release.set).start()


def held(window) -> threading.Event:
    """The window's database writer, busy until the event is set."""
    release = threading.Event()
    window.db._submit(window.db._write, lambda store: release.wait(20))
    return release


def two_windows(qtbot, make_window, tmp_path):
    """a: queue and priority; b: queue and urgency; both on one file, one database."""
    path = write_helpdesk(tmp_path, helpdesk_rows()[:6])
    a, b = make_window(autoload=False), make_window(autoload=False)
    assert a.labels_panel.load(str(HELPDESK_AXES))
    assert b.labels_panel.load(str(axes_file(tmp_path, "urgency")))
    for window in (a, b):
        open_file(qtbot, window, path)
    return a, b, path, a.labelling.people["priority"].file


def test_a_rename_the_writer_refuses_is_undone_in_the_window_and_said(qtbot, make_window, tmp_path, capsys):
    a, b, path, file = two_windows(qtbot, make_window, tmp_path)
    key(a, 0, "priority", "Urgent")
    a.db.flush()
    release = held(a)
    try:
        assert a.labels_panel.rename_axis("priority", "urgency")     # the window's check: nothing on urgency here
        key(b, 2, "urgency", "Low")                                 # meanwhile, in the other window
        b.db.flush()
        key(a, 1, "urgency", "High")                                # a's person goes on, on the name shown
    finally:
        release.set()
    qtbot.waitUntil(lambda: "was not renamed" in a.banner.text.text())
    line = a.banner.text.text()
    assert "“priority” was not renamed “urgency”" in line
    assert "“urgency” already holds 1 of your labels" in line
    assert "\n" not in line
    # every part of the window is back on the old name, with every label given on it
    assert a.axes.names == ["queue", "priority"] and a.labels_panel.axes.names == ["queue", "priority"]
    assert a.labels_panel.axis_picker.combo.findText("urgency") == -1
    assert a.model.answers_of("priority").person_labels == {0: "Urgent", 1: "High"}
    assert "urgency" not in a.labelling.people and a.labelling.people["priority"].file == file
    assert a.model.current_axis == "priority" and a.labels_panel.axis == "priority"
    assert a.remembered.axes.names == ["queue", "priority"]      # the next start shows the old name too
    # the database: a's labels on priority, b's on urgency, none split
    a.db.flush()
    assert stored(tmp_path, file) == {"priority": {0: "Urgent", 1: "High"}, "urgency": {2: "Low"}}
    # after the undo, a's labels on priority go on under priority
    key(a, 3, "priority", "Low")
    a.db.flush()
    assert stored(tmp_path, file) == {"priority": {0: "Urgent", 1: "High", 3: "Low"}, "urgency": {2: "Low"}}
    # a third window shows each field's labels whole
    c = make_window(autoload=False)
    assert c.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, c, path)
    assert c.model.answers_of("priority").person_labels == {0: "Urgent", 1: "High", 3: "Low"}
    assert "Traceback" not in capsys.readouterr().err


def test_a_field_removed_before_the_refusal_came_keeps_its_labels_under_its_old_name(qtbot, make_window, tmp_path):
    a, b, path, file = two_windows(qtbot, make_window, tmp_path)
    key(a, 0, "priority", "Urgent")
    a.db.flush()
    release = held(a)
    try:
        assert a.labels_panel.rename_axis("priority", "urgency")
        key(b, 2, "urgency", "Low")
        b.db.flush()
        a.labels_panel.remove_axis("urgency")
    finally:
        release.set()
    qtbot.waitUntil(lambda: "“priority” was not renamed “urgency”" in a.banner.text.text())
    assert a.axes.names == ["queue"] and "urgency" not in a.labelling.people
    # the field added back under its old name has its labels; one under the refused name is b's field
    a.labels_panel.add_axis("priority", b.axes.named("urgency").label_set)
    assert a.model.answers_of("priority").person_labels == {0: "Urgent"}
    key(a, 1, "priority", "High")
    a.db.flush()
    assert stored(tmp_path, file) == {"priority": {0: "Urgent", 1: "High"}, "urgency": {2: "Low"}}


def test_a_refusal_for_a_file_no_longer_open_leaves_the_fields_shown_alone(qtbot, make_window, tmp_path):
    """The writer's word comes late, after another file was opened with a field of the refused name: that
    field is the new file's, and stays as it is (the writer's word is emitted here as the writer does)."""
    window = make_window(autoload=False)
    assert window.labels_panel.load(str(axes_file(tmp_path, "urgency")))
    open_file(qtbot, window, write_helpdesk(tmp_path, helpdesk_rows()[:6], name="other.csv"))
    key(window, 0, "urgency", "High")
    window.db.rename_refused.emit("an-earlier-file.csv", "priority", "urgency", "why")
    assert window.axes.names == ["queue", "urgency"]
    assert window.model.answers_of("urgency").person_labels == {0: "High"}
    assert "“priority” was not renamed “urgency”: why." in window.banner.text.text()


def test_the_file_read_again_while_the_refusal_comes_holds_each_fields_labels_as_stored(
        qtbot, make_window, tmp_path):
    a, b, path, file = two_windows(qtbot, make_window, tmp_path)
    key(a, 0, "priority", "Urgent")
    a.db.flush()
    release = held(a)
    try:
        assert a.labels_panel.rename_axis("priority", "urgency")
        key(b, 2, "urgency", "Low")
        b.db.flush()
    finally:
        with qtbot.waitSignal(a.file_loaded, timeout=20_000):
            released_soon(release)
            a.open_file(path)           # its flush waits on the writer, behind the rename; its reader after
    assert a.axes.names == ["queue", "priority"]
    assert a.model.answers_of("priority").person_labels == {0: "Urgent"}
    assert a.labelling.people["urgency"].labels == {2: "Low"}      # b's field, kept as a field removed here


def test_labels_given_on_the_refused_name_while_the_file_is_read_again_stay_with_the_field(
        qtbot, make_window, tmp_path):
    a, b, path, file = two_windows(qtbot, make_window, tmp_path)
    key(a, 0, "priority", "Urgent")
    a.db.flush()
    release = held(a)
    try:
        assert a.labels_panel.rename_axis("priority", "urgency")
        key(b, 2, "urgency", "Low")
        b.db.flush()
    finally:
        with qtbot.waitSignal(a.file_loaded, timeout=20_000):
            released_soon(release)
            a.open_file(path)
            key(a, 1, "urgency", "High")    # while it is read: laid over what the reader read
    assert a.model.answers_of("priority").person_labels == {0: "Urgent", 1: "High"}
    assert a.labelling.people["urgency"].labels == {2: "Low"}
    a.db.flush()
    assert stored(tmp_path, file) == {"priority": {0: "Urgent", 1: "High"}, "urgency": {2: "Low"}}

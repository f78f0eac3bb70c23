"""A rename made while the open file is read again (the reader's last step reads every cell: seconds on a big
file) reaches the reader's copy of the labels when the database made it after the reader read them (a hunt's
finding: the window's copy kept the old names, and showed and exported none of the field's labels). Real
window offscreen, real database; the reader held after it read the labels."""

from __future__ import annotations

import threading

import pandas as pd
from test_ui_axes import HELPDESK_AXES, helpdesk_rows, write_helpdesk
from test_ui_field_names import key, stored
from ui_helpers import make_window, open_file, settings_file  # noqa: F401


def read_again_while(qtbot, window, path, edit) -> list[str]:
    """The file read again; edit() once the reader has read its labels, before the window has them. Returns
    the status bar's lines."""
    gate, labels_read, real = threading.Event(), threading.Event(), window.reader.hint

    def slow_hint(frame, gold):
        labels_read.set()
        gate.wait(20)
        return real(frame, gold)

    said = []
    window.statusBar().messageChanged.connect(said.append)
    window.reader.hint = slow_hint
    with qtbot.waitSignal(window.file_loaded, timeout=30_000):
        window.open_file(path)
        assert labels_read.wait(20)
        edit()
        gate.set()
    window.reader.hint = real
    window.db.flush()
    return said


def labelled(qtbot, make_window, tmp_path):
    path = write_helpdesk(tmp_path, helpdesk_rows()[:6])
    window = make_window(autoload=False)
    assert window.labels_panel.load(str(HELPDESK_AXES))
    open_file(qtbot, window, path)
    key(window, 0, "priority", "High")
    window.db.flush()
    return window, path, window.labelling.people["priority"].file


def test_a_field_renamed_while_its_file_is_read_keeps_its_labels(qtbot, make_window, tmp_path):
    window, path, file = labelled(qtbot, make_window, tmp_path)
    said = read_again_while(qtbot, window, path, lambda: window.labels_panel.rename_axis("priority", "urgency"))
    assert stored(tmp_path, file) == {"urgency": {0: "High"}}
    assert window.model.answers_of("urgency").person_labels == {0: "High"}
    assert set(window.labelling.people) == {"queue", "urgency"}
    assert not any("another window" in line for line in said)
    exported = pd.read_csv(window.export_to(tmp_path / "out.csv"), dtype=str)
    assert exported.loc[0, "urgency"] == "High" and exported.loc[0, "urgency_source"] == "person"


def test_a_label_renamed_while_its_file_is_read_keeps_its_tickets_and_so_does_one_given_meanwhile(
        qtbot, make_window, tmp_path):
    window, path, file = labelled(qtbot, make_window, tmp_path)

    def edit():
        key(window, 1, "priority", "High")              # given while read: laid over the reader's copy
        window.labels_panel.choose_axis("priority")
        window.labels_panel.labels.item(window.label_set.names.index("High"), 0).setText("Critical")

    said = read_again_while(qtbot, window, path, edit)
    assert stored(tmp_path, file) == {"priority": {0: "Critical", 1: "Critical"}}
    assert window.model.answers_of("priority").person_labels == {0: "Critical", 1: "Critical"}
    assert not any("set aside" in line for line in said)


def test_a_label_rename_the_database_refuses_while_the_file_is_read_is_not_laid_over_what_was_read(
        qtbot, make_window, tmp_path, monkeypatch):
    # a review's finding: the refused rename was still applied to the reader's copy: row 0 shown as none and
    # set aside under "Critical", the name another window's label holds
    from triage_app.files.store import ResultStore

    window, path, file = labelled(qtbot, make_window, tmp_path)
    hashes = window.labelling.people["priority"].row_hashes

    def edit():
        # another window gives "Critical" on row 3 just after this window's check let the rename through
        monkeypatch.setattr(window.db, "label_rename_problem", lambda *args, **kwargs: None)
        with ResultStore(tmp_path / "results.sqlite3") as other:
            other.set_person_labels(file, {3: (str(hashes[3]), "Critical")}, "priority")
        window.labels_panel.choose_axis("priority")
        window.labels_panel.labels.item(window.label_set.names.index("High"), 0).setText("Critical")
        window.db.flush()
        qtbot.waitUntil(lambda: "High" in window.axes.named("priority").names, timeout=10_000)   # taken back

    read_again_while(qtbot, window, path, edit)
    assert stored(tmp_path, file) == {"priority": {0: "High", 3: "Critical"}}
    # the other window's label came after this read: the next read brings it
    assert window.labelling.people["priority"].labels == {0: "High"}
    assert window.model.answers_of("priority").person_labels == {0: "High"}


def test_a_field_renamed_while_its_file_is_parsed_before_its_labels_are_read_keeps_its_labels(
        qtbot, make_window, tmp_path, monkeypatch):
    # a review's point: a rename the database makes before the read asks for the labels was followed as another
    # window's, read into the old name, and the field now shown had none
    from triage_app.ui.background import file_reading

    window, path, file = labelled(qtbot, make_window, tmp_path)
    gate, parsed, real = threading.Event(), threading.Event(), file_reading.open_tickets

    def slow_open(*args, **kwargs):
        opened = real(*args, **kwargs)
        parsed.set()
        gate.wait(20)
        return opened

    monkeypatch.setattr(file_reading, "open_tickets", slow_open)
    said = []
    window.statusBar().messageChanged.connect(said.append)
    with qtbot.waitSignal(window.file_loaded, timeout=30_000):
        window.open_file(path)
        assert parsed.wait(20)
        assert window.labels_panel.rename_axis("priority", "urgency")
        window.db.flush()                       # made before the reader asks for the labels
        gate.set()
    assert stored(tmp_path, file) == {"urgency": {0: "High"}}
    assert window.model.answers_of("urgency").person_labels == {0: "High"}
    assert not any("another window" in line for line in said)
    window.labels_panel.add_axis("priority", window.axes.named("urgency").label_set)   # a field of its own
    key(window, 1, "priority", "Low")
    window.db.flush()
    assert stored(tmp_path, file) == {"urgency": {0: "High"}, "priority": {1: "Low"}}

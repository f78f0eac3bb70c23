"""A file opened with labels the table cannot show says so (a hunt's findings): labels of tickets the
file no longer holds, and labels under names the label set does not have. The first line was replaced
by the file's ticket count in the same call; the second was never said at all (only at export)."""

from __future__ import annotations

from triage_app.engine.labels import LabelSet
from ui_helpers import make_window, open_file, sample_rows, settings_file, write_slice  # noqa: F401


def labelled(qtbot, make_window, path, labels: dict[int, str]) -> None:
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    for row, label in labels.items():
        window.model.set_person_label(row, label)
    window.db.flush()
    window.shutdown()


def test_labels_of_tickets_the_file_no_longer_holds_are_said_after_it_opens(qtbot, make_window, tmp_path):
    path = write_slice(tmp_path, 6, name="t.csv")
    labelled(qtbot, make_window, path, {0: "billing", 1: "account"})
    write_slice(tmp_path, 4, start=2, name="t.csv")        # the labelled tickets removed from the file
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    qtbot.wait(50)
    assert window.statusBar().currentMessage().startswith("2 of your labels are for tickets this file no longer holds")


def test_labels_under_a_name_the_label_set_lacks_are_said_as_set_aside(qtbot, make_window, tmp_path):
    path = write_slice(tmp_path, 6, name="t.csv")
    labelled(qtbot, make_window, path, {0: "billing", 1: "billing"})
    window = make_window(autoload=False)
    window.labels_panel.set_label_set(LabelSet.from_names(["invoices", "technical", "account"]), announce=True)
    open_file(qtbot, window, path)
    qtbot.wait(50)
    assert window.model.person_labels == {}
    assert window.statusBar().currentMessage() == "2 of your labels set aside (billing: 2): they are back when the " \
                                                  "label is."


def test_labels_under_a_name_another_window_gave_their_label_say_which_label_to_rename(
        qtbot, make_window, tmp_path):
    # a label set saved before a rename (another window's, saved last) comes back after a restart with the
    # old name: the labels are set aside under the new one, and the line says which label to rename
    path = write_slice(tmp_path, 6, name="t.csv")
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    window.model.set_person_label(0, "billing")
    window.labels_panel.labels.item(window.labels_panel.label_set.names.index("billing"), 0).setText("invoices")
    window.db.flush()
    window.shutdown()
    restarted = make_window(autoload=False)
    restarted.labels_panel.set_label_set(LabelSet.from_names(["billing", "technical", "account"]), announce=True)
    open_file(qtbot, restarted, path)
    qtbot.wait(50)
    assert restarted.statusBar().currentMessage() == (
        "1 of your labels set aside (invoices: 1): they are back when the label is. “billing” was renamed "
        "“invoices” on this file since this label set was saved: rename it “invoices” here to show its labels.")

"""The window's Export never writes onto the file that is open: the command line refuses that too,
and a workbook's other sheets, or the file's own cells, would be lost."""

from __future__ import annotations

import os

import pytest

from ui_helpers import make_window, open_file, save_shot, settings_file, write_slice  # noqa: F401


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink"])
def test_export_refuses_the_open_file_by_any_spelling(qtbot, make_window, tmp_path, spelling):
    path = write_slice(tmp_path, 5)
    before = path.read_bytes()
    target = {"same": path, "dotted": tmp_path / "sub" / ".." / path.name, "symlink": tmp_path / "link.csv"}[spelling]
    (tmp_path / "sub").mkdir()
    if spelling == "symlink":
        os.symlink(path, target)
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    assert window.export_to(target) is None
    assert path.read_bytes() == before
    message = window.banner_text.text()
    assert window.banner.isVisible() and path.name in message and "\n" not in message
    assert window.export_to(tmp_path / "labeled.csv") == tmp_path / "labeled.csv"     # elsewhere: written
    save_shot(window.banner, "export_refused.png", tmp_path)


def test_an_export_that_keeps_an_input_column_under_another_name_says_so(qtbot, make_window, tmp_path):
    """A field named id moves the file's ids to id_input in the export: the command line said so, the window
    did not (a hunt's finding); anything reading id from it would read labels."""
    import csv

    from triage_app.engine.labels import LabelSet

    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 4))
    window.labels_panel.add_axis("id", LabelSet.from_names(["x1", "x2"]))
    window.model.set_person_label(0, "x1", "id")
    out = tmp_path / "out.csv"
    window.exporting.write(window.table, out)
    said = window.statusBar().currentMessage()
    assert said.startswith("Exported 4 rows") and "the output keeps input column(s) id as id_input" in said
    with out.open(newline="", encoding="utf-8") as f:
        assert next(csv.DictReader(f))["id_input"] == "T0001"


def test_a_big_export_is_written_while_the_window_goes_on_painting(qtbot, make_window, tmp_path):
    """A workbook of thousands of rows is seconds of openpyxl: written on a thread of its own, the window
    handles its events meanwhile (a hunt measured seconds frozen), and the file is whole when write returns."""
    import csv

    import openpyxl
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from triage_app.ui.exporting import WRITTEN_HERE_UP_TO

    path = tmp_path / "big.csv"
    rows = WRITTEN_HERE_UP_TO + 500
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["id", "text"], *[[str(k), f"ticket number {k}"] for k in range(rows)]])
    window = make_window(autoload=False)
    open_file(qtbot, window, path)
    handled = []

    def meanwhile():        # an event due while the file is written: the modal line is up, and Esc does not end it
        waiting = QApplication.activeModalWidget()
        waiting.reject()
        handled.append((waiting.labelText(), waiting.isVisible()))
    QTimer.singleShot(0, meanwhile)
    written = window.exporting.write(window.table, tmp_path / "out.xlsx")
    assert handled == [(f"Exporting {rows:,} rows…", True)] and written == tmp_path / "out.xlsx"
    sheet = openpyxl.load_workbook(written).active
    assert sheet.max_row == rows + 1 and sheet.cell(rows + 1, 2).value == f"ticket number {rows - 1}"

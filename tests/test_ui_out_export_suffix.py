"""Export: a name typed without its suffix takes the chosen type's, after the save dialog has closed, so the
dialog never asked about that file; the window asks before it replaces one that is there."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ui_helpers import make_window, open_file, settings_file, write_slice  # noqa: F401


@pytest.mark.parametrize("answer", ["No", "Yes"])
def test_export_asks_before_replacing_the_file_the_suffix_names(qtbot, make_window, tmp_path, monkeypatch, answer):
    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 3))
    raw = tmp_path / "tickets-raw.csv"
    raw.write_text("id,text,agent_notes\n1,I was charged twice,VIP customer - call back\n")
    before = raw.read_bytes()
    # the person types "tickets-raw" with the CSV type chosen: the dialog sees no file of that name
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "tickets-raw"), "CSV (*.csv)"))
    asked = []

    def exec_(box):
        asked.append(box.text())
        next(b for b in box.buttons() if b.text().replace("&", "") == answer).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    window.exporting.ask(window.table, str(tmp_path))
    assert asked == ["“tickets-raw.csv” already exists. Replace it?"]
    assert (raw.read_bytes() == before) == (answer == "No")


def test_export_asks_nothing_for_a_new_name(qtbot, make_window, tmp_path, monkeypatch):
    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 3))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "labeled"), "JSON (*.json)"))
    monkeypatch.setattr(QMessageBox, "exec", lambda box: pytest.fail(f"asked: {box.text()}"))
    window.exporting.ask(window.table, str(tmp_path))
    assert (tmp_path / "labeled.json").stat().st_size > 0

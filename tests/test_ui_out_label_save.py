"""Labels ▸ Save… never replaces the ticket file open in the window or the results database (a person's
labels), by any spelling: refused in one line, as Export refuses the open file; elsewhere the label set is
written whole, through the export's atomic writer."""

from __future__ import annotations

import json
import os

import pytest

from ui_helpers import make_window, open_file, settings_file, write_slice  # noqa: F401

from triage_app.engine.axes import Axes


def test_save_labels_refuses_the_open_ticket_file(qtbot, make_window, tmp_path):
    tickets = tmp_path / "tickets.json"
    tickets.write_text(json.dumps([{"id": 1, "text": "I was charged twice"}, {"id": 2, "text": "App crashes"}]))
    before = tickets.read_bytes()
    window = make_window(autoload=False)
    open_file(qtbot, window, tickets)
    (tmp_path / "sub").mkdir()
    assert not window.labels_panel.save(str(tmp_path / "sub" / ".." / "tickets.json"))
    assert tickets.read_bytes() == before
    said = window.banner_text.text()
    assert window.banner.isVisible() and "tickets.json" in said and "file open here" in said and "\n" not in said


@pytest.mark.parametrize("end", ["", "-wal"])
def test_save_labels_refuses_the_results_database_and_its_journal(qtbot, make_window, tmp_path, end):
    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 3))
    database = tmp_path / "results.sqlite3"
    target = tmp_path / f"results.sqlite3{end}"
    target.write_bytes(b"SQLite format 3\x00" if not end else b"wal frames")
    before = target.read_bytes()
    assert window.db.path == database
    assert not window.labels_panel.save(str(target))
    assert target.read_bytes() == before
    assert "results database" in window.banner_text.text()


def test_saved_labels_are_a_new_file_put_in_place_whole(qtbot, make_window, tmp_path):
    """The atomic writer renames a finished file over the old one: a save cut short leaves the old set."""
    window = make_window(autoload=False)
    path = tmp_path / "labels.json"
    path.write_text("{}")
    inode = os.stat(path).st_ino
    assert window.labels_panel.save(str(path))
    assert os.stat(path).st_ino != inode and Axes.load(path) == window.axes
    assert sorted(p.name for p in tmp_path.iterdir() if "partial" in p.name) == []

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

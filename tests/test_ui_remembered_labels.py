"""A remembered value that no longer reads (an older version's, a hand-edited settings file) goes back to
its default with a line saying which, where and why; the window opens all the same (issue 32 item 6)."""

from __future__ import annotations

import json
import subprocess
import sys

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel

from triage_app.engine.axes import Axes
from triage_app.engine.labels import LabelSet
from triage_app.ui.settings import Remembered, SettingsDialog
from ui_helpers import make_window, settings_file  # noqa: F401

NUMBERED = json.dumps({"labels": [{"name": 5}, "b"]})   # a label named by a number


def remember(path, **values) -> None:
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    for name, value in values.items():
        settings.setValue(name, value)
    settings.sync()


def test_the_window_opens_on_the_default_labels_when_the_remembered_ones_do_not_read(make_window, settings_file):
    remember(settings_file, label_set=NUMBERED, batch_size=7)
    window = make_window(autoload=False)
    assert window.axes == Axes.of(LabelSet.default()) and window.remembered.batch_size == 7
    [line] = window.remembered.reverted
    assert line.startswith(f"{settings_file}: label_set: label 1: name: must be text, not the number 5; "
                           "the default is used") and "\n" not in line
    # what the person had is not lost when the default is saved over it: kept beside, to mend and load
    kept = settings_file.parent / "label_set-unread.json"
    assert str(kept) in line and kept.read_text(encoding="utf-8") == NUMBERED
    assert window.banner.isVisibleTo(window) and line in window.statusBar().currentMessage()   # said in the window


def test_every_value_that_goes_back_to_its_default_says_so(tmp_path):
    path = tmp_path / "t.ini"
    remember(path, device="tpu", method="guess", batch_size=5)
    remembered = Remembered.load(QSettings(str(path), QSettings.Format.IniFormat))
    assert (remembered.device, remembered.method, remembered.batch_size) == ("auto", Remembered().method, 5)
    assert [line.split(": ")[1] for line in remembered.reverted] == ["device and dtype", "method"]
    assert all(line.startswith(f"{path}: ") and line.endswith("the default is used") for line in remembered.reverted)
    remembered.save(QSettings(str(path), QSettings.Format.IniFormat))
    assert "reverted" not in path.read_text()   # said at start-up, never written back


def test_triage_app_gui_starts_with_a_remembered_label_set_that_does_not_read(tmp_path):
    """It ended in a traceback, exit 1, the window never shown."""
    ini, png = tmp_path / "t.ini", tmp_path / "shot.png"
    remember(ini, label_set=NUMBERED)
    env = {"QT_QPA_PLATFORM": "offscreen", "TRIAGE_SETTINGS_FILE": str(ini), "TRIAGE_DATA_DIR": str(tmp_path),
           "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-m", "triage_app", "gui", "--screenshot", str(png)], capture_output=True,
                         text=True, env=env, timeout=120, cwd=tmp_path)
    assert out.returncode == 0 and png.is_file(), out.stderr
    assert f"triage-app: {ini}: label_set: label 1: name: must be text, not the number 5;" in out.stderr.splitlines()[0]


def test_the_settings_dialog_says_what_it_detected_once(qtbot):
    dialog = SettingsDialog(Remembered(), "")
    qtbot.addWidget(dialog)
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert "Detected:" in texts and not any(text.startswith("Detected ") for text in texts)


def test_a_hand_edited_value_is_said_as_written(tmp_path):
    """batch_size=abc was said as "not 0"; a label set or device written without quotes read as a list (QSettings
    splits it at commas and drops its quotes), the label set then dropped without a word (a hunt's finding)."""
    path = tmp_path / "t.ini"
    path.write_text('[General]\nbatch_size=abc\ntoken_budget=3.7\ndevice=cpu, cuda\n'
                    'label_set={"labels": [{"name": "refund"}, {"name": "bug"}]}\n')
    remembered = Remembered.load(QSettings(str(path), QSettings.Format.IniFormat))
    assert remembered.axes == Axes.of(LabelSet.default())
    [said] = [line for line in remembered.reverted if ": label_set: " in line]
    kept = tmp_path / "label_set-unread.json"
    assert str(kept) in said and kept.read_text(encoding="utf-8") == "{labels: [{name: refund}, {name: bug}]}"
    assert f"{path}: batch_size: 'abc' is not a whole number; the default is used" in remembered.reverted
    assert f"{path}: token_budget: '3.7' is not a whole number; the default is used" in remembered.reverted
    assert any("device and dtype" in line and "cpu, cuda" in line for line in remembered.reverted)


def test_a_batch_size_or_budget_the_dialog_does_not_offer_goes_back_to_its_default_said(qtbot, tmp_path):
    """batch_size=3000000000 made Model ▸ Settings raise OverflowError (a spin box holds an int32); one above
    the dialog's range was changed to its top on OK without a word."""
    path = tmp_path / "t.ini"
    path.write_text("[General]\nbatch_size=3000000000\ntoken_budget=99999999999\n")
    remembered = Remembered.load(QSettings(str(path), QSettings.Format.IniFormat))
    assert (remembered.batch_size, remembered.token_budget) == (Remembered().batch_size, Remembered().token_budget)
    assert f"{path}: batch_size: 3,000,000,000 is outside what Settings offers (1 to 512); the default is used" \
        in remembered.reverted
    assert any(line.startswith(f"{path}: token_budget: 99,999,999,999 is outside") for line in remembered.reverted)
    path.write_text("[General]\nbatch_size=1024\ntoken_budget=64\n")
    remembered = Remembered.load(QSettings(str(path), QSettings.Format.IniFormat))
    dialog = SettingsDialog(remembered, "")
    qtbot.addWidget(dialog)
    dialog.apply_to(remembered)       # OK, nothing touched: nothing changes
    assert (remembered.batch_size, remembered.token_budget) == (Remembered().batch_size, 64)
    assert [line for line in remembered.reverted if "batch_size" in line] == [
        f"{path}: batch_size: 1,024 is outside what Settings offers (1 to 512); the default is used"]

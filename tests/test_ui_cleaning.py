"""Cleaning in the window: one Settings box per step, remembered; Show prompt shows the ticket as the
model reads it; a run reads the tickets cleaned as chosen (its results are stored under that cleaning),
while the table and the export keep the originals."""

import csv
from pathlib import Path

from PySide6.QtWidgets import QApplication

from triage_app.files.clean import STEPS, TextCleaning, clean
from triage_app.ui.settings import Remembered, SettingsDialog, open_settings
from ui_helpers import (Relay, make_window, open_file, run_and_wait, save_shot, settings_file,  # noqa: F401
                        with_model)

BODIES = ["Hello,\\n\\nmy card was charged twice &amp; I want a refund.<br>Thanks",
          "The app crashes<br><br>when I open   settings.\\nSent from my iPhone"]


def exported(folder: Path) -> Path:
    path = folder / "export.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["subject", "body"])
        writer.writerows([["Refund", BODIES[0]], ["Crash", BODIES[1]]])
    return path


def test_a_box_per_step_remembered(qtbot, settings_file, tmp_path):
    remembered = Remembered()
    dialog = SettingsDialog(remembered, "")
    qtbot.addWidget(dialog)
    assert list(dialog.cleaning) == list(STEPS)
    assert [n for n, box in dialog.cleaning.items() if box.isChecked()] == list(TextCleaning().steps)
    dialog.cleaning["html"].setChecked(False)
    dialog.cleaning["replies"].setChecked(True)
    dialog.show()
    QApplication.processEvents()
    save_shot(dialog, "settings_cleaning.png", tmp_path)
    dialog.apply_to(remembered)
    assert remembered.cleaning == TextCleaning(html=False, replies=True)
    settings = open_settings()
    remembered.save(settings)
    assert Remembered.load(open_settings()).cleaning == TextCleaning(html=False, replies=True)
    remembered.cleaning_steps = "escapes tables"          # a step this version does not know: the default
    assert remembered.cleaning == TextCleaning()
    remembered.cleaning_steps = ""                        # every step switched off is a choice too
    assert remembered.cleaning == TextCleaning.off()


def test_prompt_and_run_read_the_cleaned_text_and_the_table_keeps_the_original(qtbot, make_window, smollm2,
                                                                               tmp_path):
    window = make_window(autoload=False)
    window.remembered.batch_size = 2
    with_model(qtbot, window, smollm2)
    open_file(qtbot, window, exported(tmp_path))
    original = window.texts[0]
    assert "<br>" in original and "\\n" in original

    prompted = Relay(window.worker.prompt_ready)
    window.view.selectRow(0)
    with qtbot.waitSignal(prompted.received, timeout=60_000):
        window.show_prompt()
    qtbot.waitUntil(lambda: window.prompt_preview.plain_text != "")
    shown = prompted.seen[-1].ticket
    assert shown == clean(original).strip()
    assert "<br>" not in shown and "\\n" not in shown and "&amp;" not in shown and "& I want" in shown
    save_shot(window.prompt_preview, "prompt_cleaned.png", tmp_path)
    window.prompt_preview.close()

    # the run reads the cleaned texts: stored under this cleaning, a second run resumes every row...
    progress = Relay(window.worker.progress)
    assert run_and_wait(qtbot, window) == "done"
    assert run_and_wait(qtbot, window) == "done"
    assert progress.seen[-1].resumed == 2
    # ...and with the HTML step off the model reads other texts: nothing is resumed
    window.remembered.cleaning = TextCleaning(html=False)
    assert run_and_wait(qtbot, window) == "done"
    assert progress.seen[-1].resumed == 0
    assert window.texts[0] == original and window.model.cell(0, "body") == original


def test_settings_the_engine_refuses_fall_back_to_their_defaults(qtbot, settings_file):
    """One place checks each bound (engine/config.py): a value remembered from elsewhere that it
    refuses is the default again, and the rest stay as remembered."""
    settings = open_settings()
    for name, value in {"device": "tpu", "dtype": "float64", "method": "guess", "batch_size": 0,
                        "token_budget": -5, "model": " ", "last_folder": "/tmp/kept"}.items():
        settings.setValue(name, value)
    settings.sync()
    remembered, default = Remembered.load(open_settings()), Remembered()
    assert (remembered.device, remembered.dtype, remembered.method) == (default.device, default.dtype, default.method)
    assert (remembered.batch_size, remembered.token_budget, remembered.model) == \
        (default.batch_size, default.token_budget, default.model)
    assert remembered.last_folder == "/tmp/kept"
    remembered.run_settings()                                  # and what they build is accepted

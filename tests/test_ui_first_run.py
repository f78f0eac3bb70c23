"""A first run without a connection, in a real window: it starts on the bundled model, a missing
model is said plainly with the bundled one offered in the same place, and a run that had no model
is never called cancelled.

The Hub is a closed local port and the cache an empty folder: nothing leaves this machine.
"""


import pytest
from PySide6.QtCore import Qt

from triage_app.engine import models
from ui_helpers import Relay, make_window, open_file, save_shot, settings_file, write_slice  # noqa: F401



def test_a_first_run_offline_offers_the_bundled_model_and_runs_on_it(qtbot, make_window, empty_hub, tmp_path):
    window = make_window(autoload=False)
    window.remembered.batch_size = 4
    # it starts on the model that is here, and says why; the user's choice stays remembered
    assert window.model_panel.spec == models.SMOLLM2
    assert window.remembered.model == "qwen2.5-0.5b"
    note = window.model_panel.status.text()
    assert note == (f"Qwen2.5-0.5B-Instruct is not on {models._THIS_MACHINE} yet: "
                    f"starting on the bundled SmolLM2-135M."), note
    qwen = window.model_panel.picker.findData("qwen2.5-0.5b")
    assert window.model_panel.picker.itemText(qwen) == "Qwen2.5-0.5B-Instruct (recommended; not downloaded yet)"

    open_file(qtbot, window, write_slice(tmp_path, 1, start=60))   # one ticket: the load is what is tested
    not_downloaded = Relay(window.worker.model_not_downloaded)
    # the user picks the recommended model and runs: the run waits behind a load that cannot succeed
    with qtbot.waitSignal(window.run_ended, timeout=60_000) as ended:
        window.load_model("qwen2.5-0.5b")
        assert window.run() is not None
    assert ended.args == ["failed"]
    qtbot.waitUntil(lambda: bool(not_downloaded.seen))   # the relay's copy may come after the window's
    failure = not_downloaded.seen[0]
    assert failure.why is models.Missing.NO_CONNECTION
    line = (f"Qwen2.5-0.5B-Instruct is not on {models._THIS_MACHINE} yet and there is no connection "
            f"to download it")
    assert window.banner_text.text() == line and window.banner.isVisible()
    assert window.bundled_button.isVisible() and window.banner.later_button.isVisible()
    progress = window.run_panel.bar.format()
    assert "did not start" in progress and "cancelled" not in progress, progress
    assert "cancelled" not in window.statusBar().currentMessage().lower()
    save_shot(window, "first_run_offline.png", tmp_path)

    # one click: the bundled model loads and the run that was waiting starts on it
    loaded = Relay(window.worker.model_loaded)
    with qtbot.waitSignal(window.run_ended, timeout=120_000) as ended:
        qtbot.mouseClick(window.bundled_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["done"]
    assert loaded.seen[0].spec == models.SMOLLM2
    assert window.model.rows_answered == 1
    assert not window.banner.isVisible()
    assert window.remembered.model == "qwen2.5-0.5b"    # the bundled model is a stand-in, not the choice


def test_download_later_dismisses_the_offer(qtbot, make_window, empty_hub):
    window = make_window(autoload=False)
    with qtbot.waitSignal(window.error_shown, timeout=60_000):
        window.load_model("qwen2.5-0.5b")
    assert window.bundled_button.isVisible()
    qtbot.mouseClick(window.banner.later_button, Qt.MouseButton.LeftButton)
    assert not window.banner.isVisible() and not window.bundled_button.isVisible()
    assert window.model_info is None


def test_a_run_that_waited_for_a_model_never_starts_on_another_file(qtbot, make_window, empty_hub, tmp_path):
    """The run waited on one file; the person opened another and only loaded a model: nothing runs on the second
    file by itself (a hunt's finding: a whole run nobody asked for, on the old run's fields and limit)."""
    window = make_window(autoload=False)
    open_file(qtbot, window, write_slice(tmp_path, 1, start=60))
    with qtbot.waitSignal(window.run_ended, timeout=60_000):
        window.load_model("qwen2.5-0.5b")
        assert window.run() is not None                            # waits behind a load that cannot succeed
    open_file(qtbot, window, write_slice(tmp_path, 2, start=70, name="other.csv"))
    with qtbot.waitSignal(window.error_shown, timeout=60_000):
        window.load_model("qwen2.5-0.5b")                          # Load again: the offer is back
    loaded = Relay(window.worker.model_loaded)
    with qtbot.assertNotEmitted(window.run_ended, wait=3_000):
        qtbot.mouseClick(window.bundled_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(loaded.seen), timeout=120_000)
    assert not window.running and window.model.rows_answered == 0

"""The model panel's lines: a path with & or ' reads as written, and Qwen's entry stops saying
"not downloaded yet" once Qwen is loaded."""

from __future__ import annotations

from PySide6.QtGui import QAccessible

from triage_app.engine import models
from triage_app.ui.background.worker import ModelInfo
from triage_app.ui.panels.model_choice import NOT_DOWNLOADED, QWEN, ModelPanel


def shown(panel: ModelPanel) -> str:
    """The status line as the label shows it (what a screen reader is given too)."""
    return QAccessible.queryAccessibleInterface(panel.status).text(QAccessible.Text.Name)


def test_a_path_with_an_ampersand_or_a_quote_reads_as_written(qtbot, tmp_path):
    panel = ModelPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_failed("/home/ann/R&D models/fake.gguf: not a model")
    assert shown(panel) == "Not loaded: /home/ann/R&D models/fake.gguf: not a model"
    panel.show_note("Tom's model is not here yet")
    assert shown(panel) == "Tom's model is not here yet"
    panel.show_loading("/models/R&D/qwen")
    assert shown(panel) == "Loading qwen in the background…"
    panel.grab().save(str(tmp_path / "model_panel.png"))


def test_qwen_loaded_is_no_longer_said_to_be_not_downloaded(qtbot):
    panel = ModelPanel()
    qtbot.addWidget(panel)
    panel.mark_not_downloaded(QWEN)
    k = panel.picker.findData(QWEN)
    assert panel.picker.itemText(k) == NOT_DOWNLOADED[QWEN]
    panel.show_loaded(ModelInfo(QWEN, "Qwen2.5-0.5B-Instruct", "cpu", "float32", "no GPU"))
    assert panel.picker.itemText(k) == "Qwen2.5-0.5B-Instruct (recommended; downloads once)"


def test_the_bundled_model_loading_is_named_as_the_list_names_it(qtbot):
    panel = ModelPanel()
    qtbot.addWidget(panel)
    panel.show_loading(models.SMOLLM2)
    assert shown(panel) == "Loading SmolLM2-135M in the background…"


def test_a_model_folder_picked_earlier_and_moved_is_not_said_to_be_downloaded_later(qtbot, tmp_path):
    panel = ModelPanel()
    qtbot.addWidget(panel)
    gone = tmp_path / "models" / "my-qwen"          # remembered from an earlier session, moved since
    assert panel.start_on_a_local_model(str(gone)) == models.SMOLLM2
    assert shown(panel) == "my-qwen is not where it was (moved or deleted): starting on the bundled SmolLM2-135M."

"""The model panel's lines: a path with & or ' reads as written."""

from __future__ import annotations

from PySide6.QtGui import QAccessible

from triage_app.ui.panels.model_choice import ModelPanel


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


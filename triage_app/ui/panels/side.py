"""The window's right-hand column: the model, the run, and the labels and accuracy tabs."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from triage_app.engine.axes import Axes
from triage_app.ui.panels.accuracy import AccuracyPanel
from triage_app.ui.panels.label_editor import LabelsPanel
from triage_app.ui.panels.model_choice import ModelPanel
from triage_app.ui.panels.run_progress import RunPanel


class SidePanels(QScrollArea):
    """A small screen scrolls the panels instead of forcing a big window."""

    def __init__(self, axes: Axes, run_buttons=(), parent=None):
        """axes: every field's label set; run_buttons: the window's actions the run panel shows as buttons."""
        super().__init__(parent)
        self.model_panel = ModelPanel()
        self.run_panel = RunPanel(run_buttons)
        self.labels_panel = LabelsPanel(axes)
        self.accuracy_panel = AccuracyPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.labels_panel, "Labels")
        self.tabs.addTab(self.accuracy_panel, "Accuracy")
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 6, 6, 6)
        layout.addWidget(self.model_panel)
        layout.addWidget(self.run_panel)
        layout.addWidget(self.tabs, 1)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(column)
        column.setMinimumHeight(700)
        self.setMinimumWidth(460)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

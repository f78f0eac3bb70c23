"""The right-hand column fits its narrowest width: nothing cut at its right edge, "+ Add a field (queue,
priority, …)" and Load included (issue 32 item 21)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from triage_app.engine.axes import Axes
from triage_app.engine.labels import LabelSet
from triage_app.ui.panels.side import SidePanels


def test_the_column_fits_the_side_at_its_narrowest(qtbot):
    side = SidePanels(Axes.of(LabelSet.default()))
    qtbot.addWidget(side)
    side.resize(side.minimumWidth(), 800)
    side.show()
    QApplication.processEvents()
    column = side.widget()
    assert column.minimumSizeHint().width() <= side.viewport().width()
    assert column.width() <= side.viewport().width()
    # the model picker's list still shows its entries whole
    assert side.model_panel.picker.view().minimumWidth() >= side.model_panel.picker.view().sizeHintForColumn(0)

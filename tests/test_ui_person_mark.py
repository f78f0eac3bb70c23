"""A person's label keeps its ✎ in view however long the label and narrow the column: the name is
shortened, never the mark (issue 32 item 21)."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

from triage_app.ui.table.model import LABEL, TicketTableModel
from triage_app.ui.table.view import LabelDelegate

NAMES = ["Billing, invoices and payment disputes", "technical"]


def test_a_long_label_given_by_a_person_keeps_its_mark_in_a_narrow_column(qtbot):
    model = TicketTableModel(pd.DataFrame({"text": ["refund my invoice", "app crashes"]}, dtype=object))
    model.set_label_names(NAMES)
    assert model.setData(model.index(0, LABEL), NAMES[0])
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    delegate = LabelDelegate(view)
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, 110, 22)
    option.widget = view
    delegate.initStyleOption(option, model.index(0, LABEL))
    assert option.text.endswith("✎") and option.text.startswith("Billing")
    assert option.fontMetrics.horizontalAdvance(option.text) <= 110
    wide = QStyleOptionViewItem()
    wide.rect, wide.widget = QRect(0, 0, 600, 22), view
    delegate.initStyleOption(wide, model.index(0, LABEL))
    assert wide.text == NAMES[0] + "  ✎"                     # room enough: the whole name

"""The ticket table on screen: 1–9 labels the selected rows, 0 gives them back to the model,
and the label column edits through a dropdown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHeaderView, QStyledItemDelegate, QTableView

from triage_app.ui.ticket_model import LABEL

MODEL_CHOICE = "(model's answer)"


class LabelDelegate(QStyledItemDelegate):
    """A dropdown of the label names; the first entry clears a person's label."""

    def createEditor(self, parent, option, index):
        editor = QComboBox(parent)
        editor.addItem(MODEL_CHOICE, None)
        for name in index.model().sourceModel().label_names:
            editor.addItem(name, name)
        return editor

    def setEditorData(self, editor, index):
        k = editor.findData(index.data(Qt.ItemDataRole.EditRole))
        editor.setCurrentIndex(max(k, 0))

    def setModelData(self, editor, model, index):
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)


class TicketView(QTableView):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSortingEnabled(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                             | QAbstractItemView.EditTrigger.SelectedClicked)
        self.setItemDelegateForColumn(LABEL, LabelDelegate(self))
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        # fixed row heights: 100k rows must not be measured one by one
        rows = self.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)

    def selected_source_rows(self) -> list[int]:
        proxy = self.model()
        rows = {proxy.mapToSource(i).row() for i in self.selectionModel().selectedRows()}
        return sorted(rows)

    def label_selected(self, label: str | None) -> int:
        """Label every selected row; the cursor moves on, so a reviewer can keep typing."""
        proxy = self.model()
        selected = self.selectionModel().selectedRows()
        if not selected:
            return 0
        last = max(i.row() for i in selected)
        sources = [proxy.mapToSource(i) for i in selected]
        changed = sum(proxy.sourceModel().setData(s.siblingAtColumn(LABEL), label, Qt.ItemDataRole.EditRole)
                      for s in sources)
        if len(sources) == 1 and proxy.rowCount():
            # in the review queue the labeled row leaves the view and the next one takes its place
            still_here = last < proxy.rowCount() and proxy.source_row(last) == sources[0].row()
            self.selectRow(min(last + 1 if still_here else last, proxy.rowCount() - 1))
        return changed

    def keyPressEvent(self, event):
        names = self.model().sourceModel().label_names if self.model() is not None else []
        key = event.key()
        if Qt.Key.Key_1 <= key <= Qt.Key.Key_9 and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            n = key - Qt.Key.Key_1
            if n < len(names):
                self.label_selected(names[n])
                return
        if key in (Qt.Key.Key_0, Qt.Key.Key_Backspace, Qt.Key.Key_Delete) and names:
            self.label_selected(None)
            return
        super().keyPressEvent(event)

"""The ticket pane: which columns to read, the table, and how to look through it (a label, a
search, the review queue). What a run or a file does to the rows is the window's."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from triage_app.learn.model import LEARNED
from triage_app.ui.plain_text import fit_names
from triage_app.ui.table.columns import ColumnPicker
from triage_app.ui.table.model import CONFIDENCE, LABEL, MARGIN, TicketTableModel
from triage_app.ui.table.proxy import TicketFilterProxy
from triage_app.ui.table.view import TicketView

ALL_LABELS = "all labels"


class TicketPane(QWidget):
    shown_changed = Signal()    # the rows shown may be others: counts and accuracy follow

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = TicketTableModel(parent=self)
        self.proxy = TicketFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = TicketView()
        self.view.setModel(self.proxy)
        for change in (self.proxy.rowsInserted, self.proxy.rowsRemoved, self.proxy.modelReset):
            change.connect(self.shown_changed)

        self.columns = ColumnPicker()
        self.label_filter = QComboBox()
        fit_names(self.label_filter)        # label names may come from a file's column
        self.label_filter.currentTextChanged.connect(self._filter_label)
        self.search = QLineEdit(placeholderText="Search the tickets…", clearButtonEnabled=True)
        self.search.textChanged.connect(self.proxy.set_search)
        self.review_button = QPushButton("Review queue")
        self.review_button.setCheckable(True)
        self.review_button.setToolTip("Rows nobody has checked, least certain (smallest margin) first. "
                                      "Type 1–9 to label the selected row with the n-th label, 0 to undo.")
        self.review_button.toggled.connect(self.set_review_queue)
        self.counts = QLabel()      # the window shows it in its status bar
        self.show_label = QLabel("Show:")
        filters = QHBoxLayout()
        filters.addWidget(self.show_label)
        filters.addWidget(self.label_filter)
        filters.addWidget(self.search, 1)
        filters.addWidget(self.review_button)
        self.keys_hint = QLabel()
        self.keys_hint.setStyleSheet("color: #555;")
        self.keys_hint.setWordWrap(True)
        self.empty_hint = QLabel("Drop a ticket file (CSV, TSV, XLSX, JSON, JSONL) anywhere on this window, "
                                 "or press Ctrl+O.")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setStyleSheet("color: #666; font-size: 15px; padding: 24px;")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.columns)
        layout.addLayout(filters)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.keys_hint)
        layout.addWidget(self.empty_hint)
        self.show_table(False)

    def set_label_names(self, names: list[str]) -> None:
        """The model's labels, the filter's choices and the keys 1–9 follow the label set."""
        self.model.set_label_names(names)
        current = self.label_filter.currentText()
        self.label_filter.blockSignals(True)
        self.label_filter.clear()
        self.label_filter.addItems([ALL_LABELS] + names)
        self.label_filter.blockSignals(False)
        self.label_filter.setCurrentText(current if current in names else ALL_LABELS)
        self._filter_label(self.label_filter.currentText())
        keys = "  ".join(f"<b>{k + 1}</b> {html.escape(name)}" for k, name in enumerate(names[:9]))
        self.keys_hint.setText(f"Label the selected row: {keys}  <b>Enter</b> agree  <b>0</b> back to the "
                               f"model's answer · double-click a label for a list · tinted rows: confidence below 0.7")

    def _filter_label(self, text: str) -> None:
        self.proxy.set_label_filter(None if text == ALL_LABELS else text)

    def set_review_queue(self, on: bool) -> None:
        if self.review_button.isChecked() != on:
            self.review_button.setChecked(on)     # comes back here through toggled
            return
        self.proxy.set_review_queue(on)
        if not on:
            self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        else:
            self.view.horizontalHeader().setSortIndicator(MARGIN, Qt.SortOrder.AscendingOrder)
            self.view.setFocus()
            if self.proxy.rowCount():
                self.view.selectRow(0)
        self.shown_changed.emit()

    def show_opened(self, opened, manual: dict[int, str]) -> None:
        """opened: a files.opening OpenedFile; manual: the labels a person gave its rows before."""
        table = opened.table
        self.columns.set_columns(table.columns, opened.text_column, opened.subject_column, opened.gold_column)
        self.model.set_frame(table.frame)
        self.model.set_manual_labels(manual)
        self.show_table(True)
        self.size_columns()

    def show_table(self, shown: bool) -> None:
        """The table and its controls once a file is open; before, how to open one."""
        for widget in (self.view, self.columns, self.show_label, self.search, self.label_filter, self.review_button,
                       self.counts, self.keys_hint):
            widget.setVisible(shown)
        self.empty_hint.setVisible(not shown)

    def size_columns(self) -> None:
        self.view.setColumnWidth(LABEL, 120)
        self.view.setColumnWidth(CONFIDENCE, 86)
        self.view.setColumnWidth(MARGIN, 70)
        text = self.columns.text_column
        for k, name in enumerate(self.model.columns, start=3):
            self.view.setColumnWidth(k, 520 if name == text else 110)

    def show_counts(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        labeled, manual = self.model.rows_answered, len(self.model.manual_labels)
        learned = self.model.sources.count(LEARNED)
        self.counts.setText(f"{shown:,} shown of {total:,} · {labeled:,} answered by the model"
                            + (f" · {learned:,} learned" if learned else "") + f" · {manual:,} by you")

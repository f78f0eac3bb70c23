"""The ticket pane: which columns to read, the table, and how to look through it (a label, a
search, the review queue). What a run or a file does to the rows is the window's.

With several fields (queue, priority), the current field is the one whose decision column holds the
current cell: the label filter, the keys and the review queue follow it."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from triage_app.learn.model import LEARNED
from triage_app.learn.none_of_these import NONE_OF_THESE
from triage_app.ui.plain_text import fit_names
from triage_app.ui.table.columns import ColumnPicker
from triage_app.ui.table.model import CONFIDENCE, LABEL, MARGIN, RESULT_HEADERS, TicketTableModel
from triage_app.ui.table.proxy import TicketFilterProxy
from triage_app.ui.table.view import TicketView

ALL_LABELS = "all labels"


class TicketPane(QWidget):
    shown_changed = Signal()    # the rows shown may be others: counts and accuracy follow
    axis_changed = Signal(str)  # the person moved to another field's decision column

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = TicketTableModel(parent=self)
        self.proxy = TicketFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = TicketView()
        self.view.setModel(self.proxy)
        for change in (self.proxy.rowsInserted, self.proxy.rowsRemoved, self.proxy.modelReset):
            change.connect(self.shown_changed)
        self.view.selectionModel().currentChanged.connect(self._current_moved)

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
        """The current field's labels: the model's, the filter's choices and the keys 1–9 follow them."""
        self.set_axes({**self.model.decisions.names, self.model.current_axis: list(names)})

    def set_axes(self, names: dict[str, list[str]]) -> None:
        """Every field's label names ({field: names}): a decision column each."""
        before = self.model.decision_columns
        self.model.set_axes(names)
        if self.model.decision_columns != before:
            self.size_columns()
        self._show_axis()

    def rename_axis(self, old: str, new: str) -> None:
        self.model.rename_axis(old, new)
        self._show_axis()

    def set_current_axis(self, axis: str) -> None:
        """The field the filter, the keys and the review queue work on (the window's say)."""
        if self.model.set_current_axis(axis):
            self._show_axis()
            self.proxy.axis_changed()
            if self.review_button.isChecked():      # the queue is the new field's least sure first
                self.view.horizontalHeader().setSortIndicator(self.model.column_of(kind=MARGIN),
                                                              Qt.SortOrder.AscendingOrder)
            self.shown_changed.emit()

    def _current_moved(self, current, _previous) -> None:
        axis = self.model.axis_of_column(current.column()) if current.isValid() else None
        if axis is not None and axis != self.model.current_axis:
            self.set_current_axis(axis)
            self.axis_changed.emit(axis)

    def _show_axis(self) -> None:
        """The filter's choices and the keys' hint: the current field's labels."""
        names, several = self.model.label_names, len(self.model.axes) > 1
        axis = html.escape(self.model.current_axis)
        self.show_label.setText(f"Show {self.model.current_axis}:" if several else "Show:")
        current = self.label_filter.currentText()
        self.label_filter.blockSignals(True)
        self.label_filter.clear()
        self.label_filter.addItems([ALL_LABELS] + names)
        self.label_filter.blockSignals(False)
        self.label_filter.setCurrentText(current if current in names else ALL_LABELS)
        self._filter_label(self.label_filter.currentText())
        keys = "  ".join(f"<b>{k + 1}</b> {html.escape(name)}" for k, name in enumerate(names[:9]))
        field = f" (<b>{axis}</b>; click another field's column to label that)" if several else ""
        self.keys_hint.setText(f"Label the selected row{field}: {keys}  <b>Enter</b> agree  <b>0</b> back to "
                               f"the model's answer · double-click a label for a list · tinted rows: confidence "
                               f"below 0.7")

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
            self.view.horizontalHeader().setSortIndicator(self.model.column_of(kind=MARGIN),
                                                          Qt.SortOrder.AscendingOrder)
            self.view.setFocus()
            if self.proxy.rowCount():
                self.view.selectRow(0)
        self.shown_changed.emit()

    def show_opened(self, opened) -> None:
        """opened: a files.opening OpenedFile (the labels a person gave its rows come after)."""
        table = opened.table
        self.columns.set_columns(table.columns, opened.text_column, opened.subject_column, opened.gold_column)
        self.model.set_frame(table.frame)
        self.show_table(True)
        self.size_columns()

    def show_table(self, shown: bool) -> None:
        """The table and its controls once a file is open; before, how to open one."""
        for widget in (self.view, self.columns, self.show_label, self.search, self.label_filter, self.review_button,
                       self.counts, self.keys_hint):
            widget.setVisible(shown)
        self.empty_hint.setVisible(not shown)

    def size_columns(self) -> None:
        several = len(self.model.axes) > 1       # narrower, so two or three fields leave room for the text
        widths = {LABEL: 110 if several else 120, CONFIDENCE: 76 if several else 86, MARGIN: 60 if several else 70}
        for column in range(self.model.decision_columns):
            self.view.setColumnWidth(column, widths[column % len(RESULT_HEADERS)])
        text = self.columns.text_column
        for k, name in enumerate(self.model.columns, start=self.model.decision_columns):
            self.view.setColumnWidth(k, 520 if name == text else 110)

    def show_counts(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        labeled, person_labels = self.model.rows_answered, len(self.model.person_labels)
        learned = self.model.sources.count(LEARNED)
        misfits = int(self.model.state.misfit_mask().sum())
        read = "read by the model" if self.model.state.labels_first else "answered by the model"
        self.counts.setText(f"{shown:,} shown of {total:,} · {labeled:,} {read}"
                            + (f" · {learned:,} learned" if learned else "") + f" · {person_labels:,} by you"
                            + (f" · {misfits:,} {NONE_OF_THESE}" if misfits else ""))

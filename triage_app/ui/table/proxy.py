"""The table's sort and filters over the ticket model: label, text, the review queue, next to label.
The label filter, the review queue and next to label read the current field's answers."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from triage_app.ui.table.model import MARGIN
from triage_app.ui.table.row_order import RowOrderProxy


class TicketFilterProxy(RowOrderProxy):
    """Sort by any column; filter by label and by text; the review queue (smallest margin first);
    next to label (the rows learn.queue.next_to_label chose, in its order). Each is numpy over the
    model's whole columns: a batch or a retrain re-sorts in one pass (ticket_proxy.py says why)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label_filter: str | None = None
        self.search = ""
        self.review_queue = False
        self.next_to_label: dict[int, int] | None = None    # row -> place in the queue; None: mode off
        self._sort = (-1, Qt.SortOrder.AscendingOrder)      # column (-1: as the file has them), order
        self._sort_before = self._sort

    def setSourceModel(self, model) -> None:
        if self.sourceModel() is not None:
            self.sourceModel().answers_changed.disconnect(self.settle)
        super().setSourceModel(model)
        if model is not None:
            model.answers_changed.connect(self.settle)

    def set_label_filter(self, label: str | None) -> None:
        self.label_filter = label or None
        self.refresh()

    def set_search(self, text: str) -> None:
        self.search = text.strip().lower()
        self.refresh()

    def set_review_queue(self, on: bool) -> None:
        """Rows the model answered and nobody has checked, least sure (smallest margin) first."""
        self.review_queue = on
        if on:
            self.sort(self.sourceModel().column_of(kind=MARGIN), Qt.SortOrder.AscendingOrder)
        else:
            self.refresh()

    def axis_changed(self) -> None:
        """The current field is another: the filters and the review queue read its answers now."""
        if self.review_queue:
            self.set_review_queue(True)
        elif self.filtering:
            self.refresh()

    def set_next_to_label(self, rows: list[int] | None) -> None:
        """Show only these rows, in this order, each until a person labels it; None: back to the
        rows and the sort shown before. Called again with a new queue after each retrain."""
        if rows is not None and self.next_to_label is None:
            self._sort_before = self._sort
        self.next_to_label = None if rows is None else {row: place for place, row in enumerate(rows)}
        self.sort(*((self.sourceModel().column_of(), Qt.SortOrder.AscendingOrder) if rows is not None
                    else self._sort_before))

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order)
        self.refresh()

    def sortColumn(self) -> int:
        return self._sort[0]

    def sortOrder(self) -> Qt.SortOrder:
        return self._sort[1]

    @property
    def filtering(self) -> bool:
        return bool(self.label_filter or self.search or self.review_queue or self.next_to_label is not None)

    def order_reads_data(self) -> bool:
        sorted_on_answers = 0 <= self._sort[0] < self.sourceModel().decision_columns
        return sorted_on_answers or bool(self.label_filter or self.review_queue or self.next_to_label is not None)

    def row_mask(self) -> np.ndarray | None:
        """[N] the rows every filter on lets through; None: no filter on."""
        model = self.sourceModel()
        masks = []
        if self.next_to_label is not None:
            queue = np.zeros(model.rowCount(), dtype=bool)
            queue[[row for row in self.next_to_label if row < model.rowCount()]] = True
            masks.append(queue)
        if self.label_filter:
            masks.append(model.labelled_as(self.label_filter))
        if self.review_queue or self.next_to_label is not None:
            masks.append(~model.person_mask())
        if self.review_queue:
            masks.append(model.margin_mask())
        if self.search:
            masks.append(model.search_mask(self.search))
        return np.logical_and.reduce(masks) if masks else None

    def row_keys(self) -> np.ndarray | None:
        model = self.sourceModel()
        column, descending = self._sort[0], self._sort[1] == Qt.SortOrder.DescendingOrder
        if self.next_to_label is None and not 0 <= column < model.columnCount():
            return None
        if self.next_to_label is not None:              # the queue's order, whichever column is clicked (or none)
            keys = np.zeros(model.rowCount())
            for row, place in self.next_to_label.items():
                if row < model.rowCount():
                    keys[row] = place
        else:
            keys = model.sort_keys(column)
        # descending, equal keys still in file order, as Qt's stable sort kept them
        return -keys if descending else keys

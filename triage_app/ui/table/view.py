"""The ticket table on screen: 1–9 labels the selected rows, Enter or Space agrees with the answer
shown, 0 gives them back to the model, and the label column edits through a dropdown.

The decision columns (label, confidence, margin of each field) are frozen: a second view of the
same rows lies over the left edge, sharing the selection, so they stay in view while the ticket text
scrolls sideways under it (Qt's "frozen column" example). The model keeps its column order, so
exports do not change. The keys act on the current field, the one whose decision column was
selected last (the pane follows the current cell).
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QSize, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFrame, QHeaderView, QStyle, QStyledItemDelegate,
                               QStyleOptionHeader, QTableView)

from triage_app.learn.none_of_these import NONE_OF_THESE
from triage_app.ui.table.cell_roles import PERSON_MARK
from triage_app.ui.table.model import RESULT_HEADERS

MODEL_CHOICE = "(model's answer)"


class LabelDelegate(QStyledItemDelegate):
    """A dropdown of the label column's field's names; the first entry clears a person's label. Only
    label columns are editable, so only they ask for an editor."""

    def createEditor(self, parent, option, index):
        editor = QComboBox(parent)
        editor.addItem(MODEL_CHOICE, None)
        for name in index.model().sourceModel().names_of_column(index.column()):
            editor.addItem(name, name)
        return editor

    def setEditorData(self, editor, index):
        k = editor.findData(index.data(Qt.ItemDataRole.EditRole))
        editor.setCurrentIndex(max(k, 0))

    def setModelData(self, editor, model, index):
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)

    def initStyleOption(self, option, index):
        super().initStyleOption(option, index)
        if option.text.endswith(PERSON_MARK):   # a person's label: its name gives way, never the mark
            style = option.widget.style() if option.widget else None
            margins = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1) if style else 6
            room = option.rect.width() - margins - option.fontMetrics.horizontalAdvance(PERSON_MARK)
            name = option.text[: -len(PERSON_MARK)]
            option.text = option.fontMetrics.elidedText(name, Qt.TextElideMode.ElideRight, max(room, 0)) + PERSON_MARK


class PaintsHoldingTheGil:
    """A view whose paint starts in Python, so that the calls into Python Qt makes per cell within it
    (data, flags, the delegate) find the GIL already held. Started in C++, each of them took the GIL
    anew and waited for a busy thread (the learning thread preparing a big file) to let go of it: the
    table's first show stalled the window (docs/files.md)."""

    def paintEvent(self, event):
        super().paintEvent(event)


class RowNumbers(PaintsHoldingTheGil, QHeaderView):
    """The row numbers at the table's left, as wide as the file's largest number. Qt's own header
    measures the numbers of the first and last 100 rows shown whenever the row count changes (each
    batch that brings rows into a filtered table), a call into Python for each and each of its roles."""

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setSectionsClickable(True)          # as QTableView's own: a click selects the row
        self.setHighlightSections(True)

    def sizeHint(self) -> QSize:
        proxy = self.model()                     # rows keep the file's numbers: its row count is the widest
        rows = proxy.sourceModel().rowCount() if proxy is not None else 0
        option = QStyleOptionHeader()            # set by attribute, as Qt's own header does
        option.fontMetrics = self.fontMetrics()
        option.text = "0" * len(str(rows))
        return self.style().sizeFromContents(QStyle.ContentsType.CT_HeaderSection, option, QSize(), self)


def _set_up(view: QTableView) -> None:
    """What the table and its frozen columns share: rows, selection, editing, looks."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.SelectedClicked)
    view.setItemDelegate(LabelDelegate(view))
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    # fixed row heights: 100k rows must not be measured one by one
    rows = view.verticalHeader()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)


class FrozenColumns(PaintsHoldingTheGil, QTableView):
    """The decision columns, laid over the table's left edge; keys go to the table."""

    def __init__(self, table: TicketView):
        super().__init__(table)
        self.table = table
        _set_up(self)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.verticalHeader().hide()
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.horizontalHeader().setSectionsClickable(True)
        self.horizontalHeader().setSortIndicatorShown(True)
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)   # unsorted, as the table
        self.setStyleSheet("QTableView { border-right: 1px solid palette(mid); }")

    def keyPressEvent(self, event):
        self.table.keyPressEvent(event)

    def hide_unfrozen(self) -> None:
        model = self.model()
        for column in range(model.columnCount() if model is not None else 0):
            self.setColumnHidden(column, column >= self.table.frozen_count)


class TicketView(PaintsHoldingTheGil, QTableView):
    said = Signal(str)      # one line for the status bar: why a key did nothing

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setVerticalHeader(RowNumbers(self))
        _set_up(self)
        self.setSortingEnabled(True)
        self.horizontalHeader().setStretchLastSection(True)
        # by pixels, not columns: a 520-pixel text column would otherwise jump in one step
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.frozen = FrozenColumns(self)
        self.viewport().stackUnder(self.frozen)
        self.frozen.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.verticalScrollBar().valueChanged.connect(self.frozen.verticalScrollBar().setValue)
        self.horizontalHeader().sectionResized.connect(self._section_resized)
        self.horizontalHeader().sortIndicatorChanged.connect(self._sort_indicator_changed)
        self.frozen.horizontalHeader().sectionClicked.connect(self._frozen_header_clicked)
        # the frozen header is the one the user can reach: its widths are the table's
        self.frozen.horizontalHeader().sectionResized.connect(self._frozen_section_resized)

    def setModel(self, model):
        super().setModel(model)
        self.frozen.setModel(model)
        self.frozen.setSelectionModel(self.selectionModel())
        # a new file brings other columns: the frozen view shows the decision columns only
        model.modelReset.connect(self._columns_changed)
        model.layoutChanged.connect(self._columns_changed)
        model.layoutAboutToBeChanged.connect(self._current_seen)
        model.layoutChanged.connect(self._current_in_view)
        model.columnsInserted.connect(self._columns_changed)
        self._columns_changed()

    def _current_seen(self, *_) -> None:
        current = self.currentIndex()
        self._seen = current.isValid() and self.viewport().rect().intersects(self.visualRect(current))

    def _current_in_view(self, *_) -> None:
        # a sort or a retrain's new order carries the selected row away: a key labels it, so it stays in sight;
        # one the person had scrolled away from stays where they are reading
        if getattr(self, "_seen", False) and self.currentIndex().isValid():
            self.scrollTo(self.currentIndex())

    @property
    def frozen_count(self) -> int:
        """The decision columns that lead the model: label, confidence, margin per field."""
        proxy = self.model()
        return proxy.sourceModel().decision_columns if proxy is not None else len(RESULT_HEADERS)

    def _columns_changed(self, *_) -> None:
        self.frozen.hide_unfrozen()
        for column in range(self.frozen_count):
            self.frozen.setColumnWidth(column, self.columnWidth(column))
        self._place_frozen()

    def _section_resized(self, column: int, _old: int, size: int) -> None:
        if column < self.frozen_count:
            self.frozen.setColumnWidth(column, size)
            self._place_frozen()

    def _sort_indicator_changed(self, column: int, order: Qt.SortOrder) -> None:
        self.frozen.horizontalHeader().setSortIndicator(column, order)

    def _frozen_section_resized(self, column: int, _old: int, size: int) -> None:
        if column < self.frozen_count:
            self.setColumnWidth(column, size)

    def _frozen_header_clicked(self, column: int) -> None:
        header = self.horizontalHeader()
        again = header.sortIndicatorSection() == column and header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
        self.sortByColumn(column, Qt.SortOrder.DescendingOrder if again else Qt.SortOrder.AscendingOrder)

    def _place_frozen(self) -> None:
        width = sum(self.columnWidth(column) for column in range(self.frozen_count))
        self.frozen.horizontalHeader().setFixedHeight(self.horizontalHeader().height())
        self.frozen.setGeometry(self.verticalHeader().width() + self.frameWidth(), self.frameWidth(),
                                width, self.viewport().height() + self.horizontalHeader().height())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._place_frozen()

    def updateGeometries(self):
        super().updateGeometries()
        if hasattr(self, "frozen"):      # called from QTableView's own constructor, before it exists
            self._place_frozen()

    def scrollTo(self, index, hint=QAbstractItemView.ScrollHint.EnsureVisible):
        """A click on a wide ticket cell does not throw the table sideways: a cell already in view
        only scrolls the rows, and one scrolled to is placed right of the frozen columns."""
        if not index.isValid():
            return
        h = self.horizontalScrollBar()
        before = h.value()
        rect = self.visualRect(index)
        frozen_right = self.frozen.width()
        in_view = index.column() < self.frozen_count or (rect.right() > frozen_right and
                                                         rect.left() < self.viewport().width())
        super().scrollTo(index, hint)
        if in_view:
            h.setValue(before)
            return
        rect = self.visualRect(index)
        if rect.left() < frozen_right:    # would lie under the frozen columns
            h.setValue(h.value() - (frozen_right - rect.left()))

    def selectRow(self, row: int) -> None:
        """The row selected, the current cell kept in its column: Qt's own moves it to the column at the
        view's left edge, and the current field would follow it there."""
        column = self.currentIndex().column()
        if column < 0:
            super().selectRow(row)
            return
        index = self.model().index(row, column)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.selectionModel().setCurrentIndex(index, flags)

    def selected_source_rows(self) -> list[int]:
        proxy = self.model()
        rows = {proxy.mapToSource(i).row() for i in self.selectionModel().selectedRows()}
        return sorted(rows)

    def label_selected(self, label: str | None) -> int:
        """Label every selected row; the cursor moves on, so a reviewer can keep typing."""
        return self._on_selected(lambda model, row: model.set_person_label(row, label))

    def confirm_selected(self) -> int:
        """The answers shown on the selected rows become the person's labels (agreeing teaches too). One row
        with no label shown to agree with (no answer yet, or "none of these") keeps the cursor, and says so."""
        rows, state = self.selected_source_rows(), self.model().sourceModel().state
        shown = state.predicted_label(rows[0]) if len(rows) == 1 and not state.is_person_label(rows[0]) else ""
        if shown is None or shown == NONE_OF_THESE:
            has = "no answer yet" if shown is None else f"“{NONE_OF_THESE}”, which is no label"
            self.said.emit(f"Enter agrees with the label shown, and this ticket has {has}: press a label's key "
                           "(1–9) to label it.")
            return 0
        return self._on_selected(lambda model, row: model.confirm(row))

    def _on_selected(self, change) -> int:
        proxy = self.model()
        selected = self.selectionModel().selectedRows()
        if not selected:
            return 0
        last = max(i.row() for i in selected)
        sources = [proxy.mapToSource(i) for i in selected]
        following = proxy.source_row(last + 1) if last + 1 < proxy.rowCount() else None   # the next ticket down
        changed = sum(bool(change(proxy.sourceModel(), s.row())) for s in sources)
        if len(sources) == 1 and proxy.rowCount():
            # the next ticket, wherever the label moved the one labelled: out of the review queue, or up a
            # table sorted by label (the row now at its place is one already passed)
            row = sources[0].row() if following is None else following      # the last row: itself, where it went
            place = proxy.mapFromSource(proxy.sourceModel().index(row, 0)).row()
            self.selectRow(place if place >= 0 else min(last, proxy.rowCount() - 1))
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
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and names:
            self.confirm_selected()
            return
        super().keyPressEvent(event)

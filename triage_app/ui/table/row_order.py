"""Rows of a flat table in an order and a subset computed all at once, as numpy arrays.

Qt's QSortFilterProxyModel sorts and filters through one Python call per comparison and per row,
and a retrain that changes most answers of a sorted 100k-row table froze the window for seconds
(docs/learning/window.md, docs/bench/table_updates.txt). Here a subclass says which rows to show and
how they sort (`row_mask`, `row_keys`: whole columns), and this class tells the views what moved in
a few signals: a layout change for a new order, removals and one insertion for rows that leave or
come, with the selection and the current row carried along. A batch that changes a few rows places
them into the order by binary search; only bigger changes sort again.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QAbstractProxyModel, QModelIndex, Qt

_SORT_HINT = QAbstractItemModel.LayoutChangeHint.VerticalSortHint   # rows move, columns stay
_WITH_HINT = ("QList<QPersistentModelIndex>", "QAbstractItemModel::LayoutChangeHint")   # the overload
# Up to this many runs of leaving rows are removed where they are, so the current row, if it leaves,
# passes to its neighbour as Qt does (labelling in the review queue). More (a search typed) are
# gathered at the end and removed in one signal: one each would cost the views O(rows) apiece, and
# gathered at the top, the vertical header repaints every section it had (QTableView's own doing).
_RUNS_REMOVED_IN_PLACE = 16
MERGED_AT_MOST = 0.05      # changed rows, as a share of the table, placed by search rather than a new sort


class RowOrderProxy(QAbstractProxyModel):
    """Proxy row r shows source row order[r]; every column as the source has it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._order = np.zeros(0, dtype=np.int64)    # [R] source row of each proxy row
        self._place = np.zeros(0, dtype=np.int64)    # [N] proxy row of each source row; -1: not shown
        self._columns = 0
        self._source = None                          # the source model's Python object: see data()
        self._changed: list[tuple[int, int]] = []   # source runs whose data the order reads, not yet placed

    # what to show: the subclass's part
    def row_mask(self) -> np.ndarray | None:
        """[N] the source rows to show; None: all of them."""
        return None

    def row_keys(self) -> np.ndarray | None:
        """[N] what the rows sort by, ascending, equal keys in source order; None: the source's order."""
        return None

    def order_reads_data(self) -> bool:
        """Whether a change of the source's data can move or hide rows (then it waits for settle())."""
        return False

    def wanted_order(self) -> np.ndarray:
        """[R] the source rows to show, in order."""
        if self._source is None:
            return np.zeros(0, dtype=np.int64)
        mask, keys = self.row_mask(), self.row_keys()
        rows = np.arange(self._source.rowCount()) if mask is None else np.flatnonzero(mask)
        return rows if keys is None else rows[np.argsort(keys[rows], kind="stable")]

    def refresh(self) -> None:
        """Show wanted_order() now."""
        self._changed = []
        self._show(self.wanted_order())

    def settle(self) -> None:
        """The source finished a change: place the changed rows once, if its data can move rows."""
        if not self._changed:
            return
        runs, self._changed = self._changed, []
        is_changed = np.zeros(len(self._place), dtype=bool)                             # [N]
        for first, last in runs:
            is_changed[first:last + 1] = True
        changed = np.flatnonzero(is_changed)
        if changed.size > MERGED_AT_MOST * len(self._place):
            moved = self._show(self.wanted_order())
        else:
            moved = self._show(self._merged(changed, is_changed))
        if not moved:                   # their dataChanged were held back: pass them on now
            for first, last in contiguous_runs(changed):
                self._pass_on(first, last, 0, self._columns - 1, [])

    def _merged(self, changed: np.ndarray, is_changed: np.ndarray) -> np.ndarray:
        """wanted_order() when only these source rows changed: the rest keep their order (their
        keys and filters read the same), so the changed ones are placed into it by search."""
        mask, keys = self.row_mask(), self.row_keys()
        rest = self._order[~is_changed[self._order]]                                    # [R - C]
        coming = changed if mask is None else changed[mask[changed]]                   # [K] ascending
        if keys is None:
            return np.insert(rest, np.searchsorted(rest, coming), coming)
        coming = coming[np.lexsort((coming, keys[coming]))]                             # by key, then row
        rest_keys, coming_keys = keys[rest], keys[coming]
        places = np.searchsorted(rest_keys, coming_keys, "left")
        ends = np.searchsorted(rest_keys, coming_keys, "right")
        for k in np.flatnonzero(ends > places):                                         # equal keys: by row
            places[k] += np.searchsorted(rest[places[k]:ends[k]], coming[k])
        return np.insert(rest, places, coming)

    # the source
    def setSourceModel(self, model) -> None:
        old = self.sourceModel()
        if old is not None:
            for signal, slot in self._source_links(old):
                signal.disconnect(slot)
        self.beginResetModel()
        super().setSourceModel(model)
        self._source = model
        if model is not None:
            for signal, slot in self._source_links(model):
                signal.connect(slot)
        self._reset_order()
        self.endResetModel()

    def _source_links(self, model):
        return [(model.modelAboutToBeReset, self.beginResetModel), (model.modelReset, self._source_reset),
                (model.dataChanged, self._source_data_changed), (model.headerDataChanged, self._source_headers)]

    def _source_headers(self, orientation, first: int, last: int) -> None:
        """Columns are the source's own: their headers' changes pass on as they are (rows keep their numbers)."""
        if orientation == Qt.Orientation.Horizontal:
            self.headerDataChanged.emit(orientation, first, last)

    def _source_reset(self) -> None:
        self._reset_order()
        self.endResetModel()

    def _reset_order(self) -> None:
        self._columns = self._source.columnCount() if self._source is not None else 0
        self._changed = []
        self._set(self.wanted_order())

    def _source_data_changed(self, top: QModelIndex, bottom: QModelIndex, roles=()) -> None:
        if self.order_reads_data():
            self._changed.append((top.row(), bottom.row()))     # settle() places them once: a batch
            return                                              # is a signal per run of rows
        self._pass_on(top.row(), bottom.row(), top.column(), bottom.column(), roles)

    def _pass_on(self, first: int, last: int, left: int, right: int, roles) -> None:
        places = self._place[first:last + 1]
        places = places[places >= 0]
        if places.size:
            self.dataChanged.emit(self.index(int(places.min()), left), self.index(int(places.max()), right), roles)

    # telling the views
    def _show(self, order: np.ndarray) -> bool:
        """Rows that leave are removed; rows that come are inserted at the end; then all are moved
        into place in one layout change. False: nothing moved."""
        order = np.asarray(order, dtype=np.int64)
        if np.array_equal(order, self._order):
            return False
        leaving = np.flatnonzero(_places(order, len(self._place))[self._order] < 0)     # [K] proxy rows
        runs = contiguous_runs(leaving)
        if len(runs) <= _RUNS_REMOVED_IN_PLACE:
            for first, last in reversed(runs):
                self.beginRemoveRows(QModelIndex(), first, last)
                self._set(np.delete(self._order, np.s_[first:last + 1]))
                self.endRemoveRows()
        else:
            staying = order[self._place[order] >= 0]
            self._relayout(np.concatenate([staying, self._order[leaving]]))
            self.beginRemoveRows(QModelIndex(), staying.size, self._order.size - 1)
            self._set(staying)
            self.endRemoveRows()
        coming = order[self._place[order] < 0]
        if coming.size:
            self.beginInsertRows(QModelIndex(), self._order.size, self._order.size + coming.size - 1)
            self._set(np.concatenate([self._order, coming]))
            self.endInsertRows()
        self._relayout(order)
        return True

    def _relayout(self, order: np.ndarray) -> None:
        """The same rows in another order; the selection and the current row go with their rows."""
        if np.array_equal(order, self._order):
            return
        self.layoutAboutToBeChanged[_WITH_HINT].emit([], _SORT_HINT)
        kept = self.persistentIndexList()
        before = self._order
        self._set(order)
        if kept:
            rows = self._place[before[[i.row() for i in kept]]]
            self.changePersistentIndexList(kept, [self.index(int(r), i.column()) for r, i in zip(rows, kept)])
        self.layoutChanged[_WITH_HINT].emit([], _SORT_HINT)

    def _set(self, order: np.ndarray) -> None:
        self._order = order
        self._place = _places(order, self._source.rowCount() if self._source is not None else 0)

    # QAbstractProxyModel
    def source_row(self, proxy_row: int) -> int:
        return int(self._order[proxy_row])

    def mapToSource(self, index: QModelIndex) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        return self._source.index(int(self._order[index.row()]), index.column())

    def mapFromSource(self, index: QModelIndex) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        place = self._place[index.row()]
        return self.index(int(place), index.column()) if place >= 0 else QModelIndex()

    def index(self, row: int, column: int, parent=QModelIndex()) -> QModelIndex:
        if parent.isValid() or not (0 <= row < self._order.size and 0 <= column < self._columns):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, *child):
        """A flat table: no index has a parent (without an index: QObject's parent)."""
        return QModelIndex() if child else super().parent()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._order.size

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._columns

    def hasChildren(self, parent=QModelIndex()) -> bool:
        return not parent.isValid() and self._order.size > 0

    # The views ask multiData() and flags() of every cell they paint. Qt's own would call mapToSource
    # and then the source, each a call from C++ into Python; these are one, the rest plain Python calls.
    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        return self._source.data(self.mapToSource(index), role) if self._source is not None else None

    def multiData(self, index: QModelIndex, roles) -> None:
        if self._source is not None:
            self._source.multiData(self.mapToSource(index), roles)

    def flags(self, index: QModelIndex):
        return self._source.flags(self.mapToSource(index)) if self._source is not None else Qt.ItemFlag.NoItemFlags

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        model = self._source
        if model is None:
            return None
        if orientation == Qt.Orientation.Vertical:
            if not 0 <= section < self._order.size or role != Qt.ItemDataRole.DisplayRole:
                return None                          # row numbers only: asked of 200 rows per batch
            section = int(self._order[section])      # rows keep the file's numbers
        return model.headerData(section, orientation, role)


def _places(order: np.ndarray, n: int) -> np.ndarray:
    """[N] inverse of order: the position of each source row in it, -1 where it is not."""
    place = np.full(n, -1, dtype=np.int64)
    place[order] = np.arange(order.size)
    return place


def contiguous_runs(rows) -> list[tuple[int, int]]:
    """Sorted (first, last) runs of consecutive row numbers: [5, 1, 2, 3, 9] -> [(1, 3), (5, 5), (9, 9)]."""
    # vectorised: a retrain changes 100k rows (np.unique hashes: several times slower here)
    rows = np.sort(rows if isinstance(rows, np.ndarray) else np.fromiter(rows, dtype=np.int64))
    rows = rows[np.r_[True, np.diff(rows) != 0]] if rows.size else rows
    breaks = np.flatnonzero(np.diff(rows) != 1)
    firsts, lasts = np.r_[rows[:1], rows[breaks + 1]], np.r_[rows[breaks], rows[-1:]]
    return list(zip(firsts.tolist(), lasts.tolist()))

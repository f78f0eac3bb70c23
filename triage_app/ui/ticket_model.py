"""The ticket table: the file's rows as read, the answers shown, and the labels a person chose.

Row r of the model is always row r of the file (and ticket index r of a run), so batches,
exports and the store line up without translation; the proxy does every sort and filter, reading
the model's columns whole (sort_keys, the masks) rather than a row at a time.
An answer is the language model's, or, once the window has learned from a person's labels,
the learned one (triage_app.learn): each row says which, and the export writes it.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont

from triage_app.engine.prediction import Prediction
from triage_app.engine.prediction import Answers, answered
from triage_app.learn.model import LEARNED, MODEL, PERSON
from triage_app.ui.ticket_proxy import MERGED_AT_MOST, RowOrderProxy, contiguous_runs

LABEL, CONFIDENCE, MARGIN = 0, 1, 2
RESULT_HEADERS = ("label", "confidence", "margin")
LOW_CONFIDENCE = 0.7
SORT_ROLE = Qt.ItemDataRole.UserRole + 1     # raw values: floats, or None for "no answer yet"
_LOW_TINT = QColor(255, 228, 181)
_MANUAL_TINT = QColor(214, 234, 248)
# asked per cell painted: made once (an enum's | is a Python call)
_SELECTABLE = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_EDITABLE = _SELECTABLE | Qt.ItemFlag.ItemIsEditable
_NUMBERS_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_RUNS_SIGNALLED_AT_MOST = 64                 # runs of changed rows signalled one by one (see _rows_changed)
_CELL_CHARS = 240                            # a table cell shows the head of a ticket; the tooltip all of it


class Answer(NamedTuple):
    """A row's answer as shown, in the shape files.export.results_frame reads."""

    index: int
    label: str | None
    confidence: float | None
    margin: float | None
    probabilities: list[float]
    truncated: bool


class TicketTableModel(QAbstractTableModel):
    """Columns: label, confidence, margin, then the file's own columns in file order."""

    manual_changed = Signal(int, object)     # row, label (None: back to the model's answer)
    answers_changed = Signal()               # a change's dataChanged are all out: a sorted proxy re-sorts once

    def __init__(self, frame: pd.DataFrame | None = None, parent=None):
        super().__init__(parent)
        self.label_names: list[str] = []
        self._frame = pd.DataFrame()
        self._cells = np.empty((0, 0), dtype=object)
        self._rows, self._columns = 0, len(RESULT_HEADERS)
        self._search: pd.Series | None = None
        self._file_keys: dict[int, np.ndarray] = {}
        self._clear_results(0)
        if frame is not None:
            self.set_frame(frame)

    # the file
    def set_frame(self, frame: pd.DataFrame) -> None:
        with self.resetting():
            self._frame = frame
            self._cells = frame.to_numpy(dtype=object, copy=False)
            # Qt asks for the counts thousands of times per batch (every index() it makes): kept as ints
            self._rows, self._columns = self._cells.shape[0], len(RESULT_HEADERS) + self._cells.shape[1]
            self._search = None
            self._file_keys = {}
            self._clear_results(len(frame))

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self._frame.columns]

    def cell(self, row: int, column: str) -> str:
        return str(self._cells[row, self._frame.columns.get_loc(column)])

    # answers
    def set_label_names(self, names: list[str]) -> None:
        """New label names: answers and manual labels of other names no longer apply."""
        if names == self.label_names:
            return
        with self.resetting():
            self.label_names = list(names)
            self._clear_results(len(self._frame))

    def clear_predictions(self) -> None:
        with self.resetting():
            manual = self._manual
            self._clear_results(len(self._frame))
            self._manual = manual

    def apply_predictions(self, predictions) -> None:
        """One batch's answers (engine Predictions: index, labels, scores); a dataChanged per run of rows.

        While a Learned is applied, a row the model scores shows the learned answer for its new
        scores (Learned.combine), not the raw one: a person who taught the window does not see a
        run undo it. The model's own answer stays in the tooltip.
        """
        scored = [p for p in predictions if p.scores]
        for p in predictions:
            self._ran[p.index] = True
            self._truncated[p.index], self._fallback[p.index] = p.truncated, p.fallback
            self._blank[p.index] = not p.scores
            if not p.scores:
                self._lm[p.index] = np.nan
                self._show(np.array([p.index]), np.full((1, self._lm.shape[1]), np.nan), MODEL)
        if scored:
            rows = np.array([p.index for p in scored])
            self._lm[rows] = [p.scores for p in scored]                                 # [B, L]
            if self._learned is not None:
                self._show(rows, self._learned.combine(rows, self._lm[rows]), self._learned_source)
            else:
                self._show(rows, self._lm[rows], MODEL)
        self._rows_changed(p.index for p in predictions)

    def apply_learned(self, learned) -> bool:
        """A retrain's answers (triage_app.learn.Learned) on every row a person has not labelled and
        the model has not found blank; dataChanged for the rows whose answer changed (_rows_changed).

        Combined with the model's scores as they are now, not as the retrain read them: rows a run
        scored while it trained get the answer a retrain would give them. The rest show the answers
        the retrain read on its own thread: reading a whole file's here held the UI thread too long
        (docs/learning/README.md). False, and nothing changes, when it was learned for other label
        names or another file.
        """
        if learned.names != self.label_names or len(learned.labels) != self._rows:
            return False
        self._learned = learned
        self._learned_source = LEARNED if learned.weights.is_learning else MODEL
        open_rows = np.flatnonzero(~self._blank & ~self.manual_mask())
        as_read = _same_rows(self._lm, learned.lm)[open_rows]
        fresh, stale = open_rows[as_read], open_rows[~as_read]
        before = self._label_index[open_rows], self._confidence[open_rows], self._margin[open_rows]
        self._show(fresh, learned.scores[fresh], self._learned_source, learned.answers.take(fresh))
        self._show(stale, learned.combine(stale, self._lm[stale]), self._learned_source)
        after = self._label_index[open_rows], self._confidence[open_rows], self._margin[open_rows]
        moved = (before[0] != after[0]) | ~_same(before[1], after[1]) | ~_same(before[2], after[2])
        self._rows_changed(open_rows[moved])
        return True

    @property
    def learned(self):
        """The Learned whose answers are shown, or None (the model's own answers)."""
        return self._learned

    def _show(self, rows: np.ndarray, scores: np.ndarray, source: str, answers: Answers | None = None) -> None:
        """rows: [R]; scores: [R, L] log-probabilities of the answer shown (a row of NaN: none);
        answers: what they answer, when already read (Answers.of(scores))."""
        answers = answers or Answers.of(scores)
        names = np.array([*self.label_names, None], dtype=object)
        self._answer[rows] = scores
        self._label_index[rows] = answers.index
        self._label[rows] = names[answers.index]
        self._confidence[rows] = answers.confidence
        self._margin[rows] = answers.margin
        self._source[rows] = source

    def set_manual_labels(self, manual: dict[int, str]) -> None:
        """Bulk: the labels a person chose earlier (from the store); no manual_changed signals."""
        changed = set(self._manual) | set(manual)
        self._manual = {r: l for r, l in manual.items() if l in self.label_names}
        self._rows_changed(changed)

    def _rows_changed(self, rows) -> None:
        """One dataChanged per contiguous run of rows. A batch's rows are spread over the file (the
        engine groups tickets by length), and one signal from the lowest to the highest row would
        make the sorted, filtered proxy look at every row in between, per batch. A retrain changes
        most rows, in as many runs as there are rows a person labelled between them: when so many
        rows changed that the proxy sorts them all again anyway, and in more than
        _RUNS_SIGNALLED_AT_MOST runs, one signal from the first to the last costs the views less
        (docs/learning/README.md)."""
        runs = contiguous_runs(rows)
        changed = sum(last - first + 1 for first, last in runs)
        if len(runs) > _RUNS_SIGNALLED_AT_MOST and changed > MERGED_AT_MOST * self._rows:
            runs = [(runs[0][0], runs[-1][1])]
        for first, last in runs:
            self.dataChanged.emit(self.index(first, LABEL), self.index(last, MARGIN))
        self.answers_changed.emit()

    def set_manual(self, row: int, label: str | None) -> bool:
        return self.setData(self.index(row, LABEL), label, Qt.ItemDataRole.EditRole)

    def confirm(self, row: int) -> bool:
        """The answer shown becomes the person's label (agreeing teaches too); False: no answer, or already theirs."""
        return row not in self._manual and self._label[row] is not None and self.set_manual(row, self._label[row])

    def prediction(self, row: int) -> Prediction | None:
        """The model's own answer for the row as its run gave it; None: no run has reached it."""
        if not self._ran[row]:
            return None
        scores = None if self._blank[row] else self._lm[row].tolist()
        return Prediction(row, list(self.label_names), scores, bool(self._truncated[row]), bool(self._fallback[row]))

    def predicted_label(self, row: int) -> str | None:
        """The answer shown under a person's label: learned or the model's."""
        return self._label[row]

    def source(self, row: int) -> str | None:
        """PERSON, LEARNED or MODEL; None where there is no answer yet."""
        if row in self._manual:
            return PERSON
        return self._source[row] if self._label[row] is not None else None

    @property
    def sources(self) -> list[str]:
        """Every row's source for the export: as the command line writes it, model where there is no answer."""
        out = self._source.copy()
        out[list(self._manual)] = PERSON
        return out.tolist()

    @property
    def lm_scores(self) -> np.ndarray:
        """[N, L] the language model's log-probabilities as its runs gave them (NaN: not scored): what learning reads."""
        return self._lm.copy()

    @property
    def answers(self) -> list[Answer]:
        """Every row a run or a retrain has answered, as shown (the export's rows)."""
        out = []
        has = answered(self._answer)
        for row in np.flatnonzero(has | self._ran):
            out.append(Answer(int(row), self._label[row], self.confidence(row), self.margin(row),
                              np.exp(self._answer[row]).tolist() if has[row] else [], bool(self._truncated[row])))
        return out

    def label_of(self, row: int) -> str | None:
        """What the row is labeled: a person's choice wins over the model's."""
        return self._manual.get(row) or self._label[row]

    def is_manual(self, row: int) -> bool:
        return row in self._manual

    def confidence(self, row: int) -> float | None:
        value = self._confidence[row]
        return None if math.isnan(value) else float(value)

    def margin(self, row: int) -> float | None:
        value = self._margin[row]
        return None if math.isnan(value) else float(value)

    @property
    def confidences(self) -> list[float | None]:
        """Every row's confidence, None where there is no answer yet (vectorised: 100k rows per refresh)."""
        values = self._confidence.astype(object)
        values[np.isnan(self._confidence)] = None
        return values.tolist()

    @property
    def manual_labels(self) -> dict[int, str]:
        return dict(self._manual)

    @property
    def predicted_labels(self) -> list[str | None]:
        return self._label.tolist()

    @property
    def rows_answered(self) -> int:
        """Rows a run has finished, blank tickets (which get no label) included."""
        return int(self._ran.sum())

    def sort_key(self, row: int, column: int):
        if column == LABEL:
            return self.label_of(row) or ""
        if column in (CONFIDENCE, MARGIN):
            value = (self._confidence if column == CONFIDENCE else self._margin)[row]
            return -1.0 if math.isnan(value) else float(value)
        return str(self._cells[row, column - len(RESULT_HEADERS)]).lower()

    # whole columns at once, for the proxy (100k rows per batch)
    def sort_keys(self, column: int) -> np.ndarray:
        """[N] numbers that order the rows as sort_key does, ties equal."""
        if column == LABEL:
            names = np.array([*self.label_names, ""], dtype=object)      # label index -1, no answer: ""
            rank = np.empty(len(names))
            rank[np.argsort(names)] = np.arange(len(names))
            return rank[self._label_indexes()]
        if column in (CONFIDENCE, MARGIN):
            values = self._confidence if column == CONFIDENCE else self._margin
            return np.where(np.isnan(values), -1.0, values)
        if column not in self._file_keys:        # the file does not change: ranked once per column
            cells = np.array([str(c).lower() for c in self._cells[:, column - len(RESULT_HEADERS)]], dtype=object)
            self._file_keys[column] = pd.factorize(cells, sort=True)[0]
        return self._file_keys[column]

    def labelled_as(self, label: str) -> np.ndarray:
        """[N] rows whose label_of is this label."""
        if label not in self.label_names:
            return np.zeros(self._rows, dtype=bool)
        return self._label_indexes() == self.label_names.index(label)

    def manual_mask(self) -> np.ndarray:
        """[N] rows a person labelled."""
        mask = np.zeros(self._rows, dtype=bool)
        mask[list(self._manual)] = True
        return mask

    def margin_mask(self) -> np.ndarray:
        """[N] rows with a margin: answered, with two labels or more."""
        return ~np.isnan(self._margin)

    def search_mask(self, text: str) -> np.ndarray:
        """[N] rows where some cell holds the lower-cased text."""
        if self._search is None:      # every cell of a row, lower-cased, in Arrow strings: one C loop a search
            self._search = pd.Series([" ".join(map(str, r)).lower() for r in self._cells],
                                     dtype=pd.StringDtype("pyarrow"))
        return self._search.str.contains(text, regex=False).to_numpy(dtype=bool)

    def _label_indexes(self) -> np.ndarray:
        """[N] index in label_names of each row's label_of; -1: no answer."""
        shown = self._label_index.copy()
        if self._manual:
            index = {name: k for k, name in enumerate(self.label_names)}
            shown[list(self._manual)] = [index[label] for label in self._manual.values()]
        return shown

    @contextmanager
    def resetting(self):
        """Wrap a change of everything (new file, new label names) in one model reset."""
        self.beginResetModel()
        try:
            yield
        finally:
            self.endResetModel()

    def _clear_results(self, n: int) -> None:
        labels = len(self.label_names)
        # A run's answers are kept as columns, not as its Prediction objects: a hundred thousand
        # objects made each of Python's full garbage collections stall the window (docs/learning/README.md)
        self._ran = np.zeros(n, dtype=bool)                     # [N] a run answered the row (blank included)
        self._truncated = np.zeros(n, dtype=bool)               # [N] the ticket was cut to fit
        self._fallback = np.zeros(n, dtype=bool)                # [N] it ran on the full prompt
        self._blank = np.zeros(n, dtype=bool)                   # [N] a run found the ticket blank
        self._lm = np.full((n, labels), np.nan)                 # [N, L] the language model's log-probs
        self._answer = np.full((n, labels), np.nan)             # [N, L] log-probs of the answer shown
        self._label = np.full(n, None, dtype=object)            # [N] label name shown (None: no answer)
        self._label_index = np.full(n, -1, dtype=np.int64)      # [N] its index in label_names (-1: none)
        self._confidence = np.full(n, np.nan)
        self._margin = np.full(n, np.nan)
        self._source = np.full(n, MODEL, dtype=object)          # [N] MODEL or LEARNED (PERSON is _manual)
        self._manual: dict[int, str] = {}
        self._learned = None
        self._learned_source = MODEL

    # QAbstractTableModel
    def index(self, row: int, column: int, parent=QModelIndex()) -> QModelIndex:
        # Qt's own checks the place through rowCount and columnCount, each a call into Python; the
        # proxy asks for an index per cell painted
        if parent.isValid() or not (0 <= row < self._rows and 0 <= column < self._columns):
            return QModelIndex()
        return self.createIndex(row, column)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._columns

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1)
        if section < len(RESULT_HEADERS):
            return RESULT_HEADERS[section]
        return self.columns[section - len(RESULT_HEADERS)]

    def flags(self, index):
        return _EDITABLE if index.column() == LABEL and self.label_names else _SELECTABLE

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        answer = self._ROLES.get(role)
        return answer(self, index.row(), index.column()) if answer is not None else None

    def multiData(self, index, roles) -> None:
        """Every role a delegate reads to paint a cell, in one call from Qt: by data() it would be
        seven calls into Python per cell, and a batch repaints every cell in view. Every slot is
        set, None too: Qt's delegate passes the same slots for every cell."""
        valid, row, column = index.isValid(), index.row(), index.column()
        for slot in roles:
            answer = self._ROLES.get(slot.role()) if valid else None
            slot.setData(None if answer is None else answer(self, row, column))

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        """A person's label for a row; None or "" goes back to the model's answer."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() != LABEL:
            return False
        label = value or None
        if label is not None and label not in self.label_names:
            return False
        row = index.row()
        if self._manual.get(row) == label:
            return False
        if label is None:
            self._manual.pop(row, None)
        else:
            self._manual[row] = label
        self.dataChanged.emit(self.index(row, LABEL), self.index(row, MARGIN))
        self.answers_changed.emit()
        self.manual_changed.emit(row, label)
        return True

    def _display(self, row: int, column: int):
        if column == LABEL:
            label = self.label_of(row)
            return f"{label}  ✎" if row in self._manual else label
        if column in (CONFIDENCE, MARGIN):
            value = (self._confidence if column == CONFIDENCE else self._margin)[row]
            return None if math.isnan(value) else f"{value:.2f}"
        text = str(self._cells[row, column - len(RESULT_HEADERS)])
        head = text[:_CELL_CHARS]
        return head.replace("\n", " ⏎ ") + ("…" if len(text) > _CELL_CHARS else "")

    def _edit(self, row: int, column: int):
        return self.label_of(row) if column == LABEL else self._display(row, column)

    def _background(self, row: int, column: int):
        if column == LABEL and row in self._manual:
            return _MANUAL_TINT
        return _LOW_TINT if self._confidence[row] < LOW_CONFIDENCE else None   # NaN compares False

    def _font(self, row: int, column: int):
        if column != LABEL or row not in self._manual:
            return None
        font = QFont()
        font.setBold(True)
        return font

    def _alignment(self, row: int, column: int):
        return _NUMBERS_ALIGNED if column in (CONFIDENCE, MARGIN) else None

    def _tooltip(self, row: int, column: int):
        if column >= len(RESULT_HEADERS):
            text = str(self._cells[row, column - len(RESULT_HEADERS)])
            return text if len(text) > 40 else None
        prediction = self.prediction(row)
        lines = []
        if row in self._manual:
            lines.append(f"labeled by you: {self._manual[row]} (a run never overwrites it)")
        elif self.source(row) == LEARNED:
            lines.append("learned from your labels: " + ", ".join(
                f"{n} {p:.2f}" for n, p in zip(self.label_names, np.exp(self._answer[row]))))
        if prediction is not None and not prediction.is_blank:
            lines.append("model: " + ", ".join(f"{n} {p:.2f}" for n, p in
                                               zip(prediction.labels, prediction.probabilities)))
        elif prediction is not None:
            lines.append("blank ticket: nothing to classify")
        return "\n".join(lines) or None

    # what data() and multiData() answer, by role (as ints: multiData's roles are); a role not here has no value
    _ROLES = {int(role): answer for role, answer in {
        Qt.ItemDataRole.DisplayRole: _display, Qt.ItemDataRole.EditRole: _edit, SORT_ROLE: sort_key,
        Qt.ItemDataRole.BackgroundRole: _background, Qt.ItemDataRole.FontRole: _font,
        Qt.ItemDataRole.TextAlignmentRole: _alignment, Qt.ItemDataRole.ToolTipRole: _tooltip}.items()}


def _same_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[N, L] float64 twice -> [N] rows equal bit for bit (NaN, not scored, equals the same NaN). One
    comparison of the bits: float comparisons on whole copies took most of apply_learned's time."""
    return (a.view(np.int64) == b.view(np.int64)).all(axis=1)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise equal, NaN equal to NaN (no answer before and after is no change)."""
    return (a == b) | (np.isnan(a) & np.isnan(b))


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
            self.sort(MARGIN, Qt.SortOrder.AscendingOrder)
        else:
            self.refresh()

    def set_next_to_label(self, rows: list[int] | None) -> None:
        """Show only these rows, in this order, each until a person labels it; None: back to the
        rows and the sort shown before. Called again with a new queue after each retrain."""
        if rows is not None and self.next_to_label is None:
            self._sort_before = self._sort
        self.next_to_label = None if rows is None else {row: place for place, row in enumerate(rows)}
        self.sort(*((LABEL, Qt.SortOrder.AscendingOrder) if rows is not None else self._sort_before))

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
        return 0 <= self._sort[0] < len(RESULT_HEADERS) or bool(self.label_filter or self.review_queue or
                                                                self.next_to_label is not None)

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
            masks.append(~model.manual_mask())
        if self.review_queue:
            masks.append(model.margin_mask())
        if self.search:
            masks.append(model.search_mask(self.search))
        return np.logical_and.reduce(masks) if masks else None

    def row_keys(self) -> np.ndarray | None:
        model = self.sourceModel()
        column, descending = self._sort[0], self._sort[1] == Qt.SortOrder.DescendingOrder
        if not 0 <= column < model.columnCount():
            return None
        if self.next_to_label is not None:              # the queue's order, whichever column is clicked
            keys = np.zeros(model.rowCount())
            for row, place in self.next_to_label.items():
                if row < model.rowCount():
                    keys[row] = place
        else:
            keys = model.sort_keys(column)
        # descending, equal keys still in file order, as Qt's stable sort kept them
        return -keys if descending else keys

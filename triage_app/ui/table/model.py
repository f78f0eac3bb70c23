"""The ticket table: the file's rows as read, and the answers of review.answers.FileAnswers, shown.

Row r of the model is always row r of the file (and ticket index r of a run), so batches,
exports and the store line up without translation; the proxy does every sort and filter, reading
the answers' columns whole (sort_keys, the masks) rather than a row at a time. The answers' state
lives in FileAnswers, which knows nothing of Qt; this model presents it and signals its changes.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont

from triage_app.learn.model import LEARNED
from triage_app.review.answers import Answer, FileAnswers
from triage_app.ui.plain_text import tooltip as plain_tooltip
from triage_app.ui.table.row_order import MERGED_AT_MOST, contiguous_runs

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


class TicketTableModel(QAbstractTableModel):
    """Columns: label, confidence, margin, then the file's own columns in file order."""

    manual_changed = Signal(int, object)     # row, label (None: back to the model's answer)
    answers_changed = Signal()               # a change's dataChanged are all out: a sorted proxy re-sorts once

    def __init__(self, frame: pd.DataFrame | None = None, parent=None):
        super().__init__(parent)
        self.state = FileAnswers()             # the answers shown: the model's, learned, the person's
        self._frame = pd.DataFrame()
        self._cells = np.empty((0, 0), dtype=object)
        self._rows, self._columns = 0, len(RESULT_HEADERS)
        self._search: pd.Series | None = None
        self._file_keys: dict[int, np.ndarray] = {}
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
            self.state.clear(len(frame))

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self._frame.columns]

    def cell(self, row: int, column: str) -> str:
        return str(self._cells[row, self._frame.columns.get_loc(column)])

    # answers: changes go through here, to be signalled
    def set_label_names(self, names: list[str]) -> None:
        """New label names: answers and manual labels of other names no longer apply."""
        if list(names) == self.label_names:
            return
        with self.resetting():
            self.state.set_label_names(names)

    def clear_predictions(self) -> None:
        with self.resetting():
            self.state.clear_predictions()

    def apply_predictions(self, predictions) -> None:
        """One batch's answers (FileAnswers.apply_predictions); a dataChanged per run of rows."""
        self._rows_changed(self.state.apply_predictions(predictions))

    def apply_learned(self, learned) -> bool:
        """A retrain's answers (FileAnswers.apply_learned); dataChanged for the rows whose answer
        changed. False, and nothing changes, when it was learned for other label names or another file."""
        changed = self.state.apply_learned(learned)
        if changed is None:
            return False
        self._rows_changed(changed)
        return True

    def set_manual_labels(self, manual: dict[int, str]) -> None:
        """Bulk: the labels a person chose earlier; no manual_changed signals."""
        self._rows_changed(self.state.set_manual_labels(manual))

    def set_manual(self, row: int, label: str | None) -> bool:
        return self.setData(self.index(row, LABEL), label, Qt.ItemDataRole.EditRole)

    def confirm(self, row: int) -> bool:
        """The answer shown becomes the person's label (agreeing teaches too); False: no answer, or already theirs."""
        shown = self.state.predicted_label(row)
        return not self.state.is_manual(row) and shown is not None and self.set_manual(row, shown)

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

    # answers: read from the state (the window, learning, the export and the proxy ask the table)
    @property
    def label_names(self) -> list[str]:
        return self.state.label_names

    @property
    def learned(self):
        return self.state.learned

    def prediction(self, row: int):
        return self.state.prediction(row)

    def predicted_label(self, row: int) -> str | None:
        return self.state.predicted_label(row)

    def label_of(self, row: int) -> str | None:
        return self.state.label_of(row)

    def is_manual(self, row: int) -> bool:
        return self.state.is_manual(row)

    def source(self, row: int) -> str | None:
        return self.state.source(row)

    def confidence(self, row: int) -> float | None:
        return self.state.confidence(row)

    def margin(self, row: int) -> float | None:
        return self.state.margin(row)

    @property
    def manual_labels(self) -> dict[int, str]:
        return self.state.manual_labels

    @property
    def sources(self) -> list[str]:
        return self.state.sources

    @property
    def lm_scores(self) -> np.ndarray:
        return self.state.lm_scores

    @property
    def answers(self) -> list[Answer]:
        return self.state.answers

    @property
    def confidences(self) -> list[float | None]:
        return self.state.confidences

    @property
    def predicted_labels(self) -> list[str | None]:
        return self.state.predicted_labels

    @property
    def rows_answered(self) -> int:
        return self.state.rows_answered

    def labelled_as(self, label: str) -> np.ndarray:
        return self.state.labelled_as(label)

    def manual_mask(self) -> np.ndarray:
        return self.state.manual_mask()

    def margin_mask(self) -> np.ndarray:
        return self.state.margin_mask()

    # the order of rows, for the proxy
    def sort_key(self, row: int, column: int):
        if column == LABEL:
            return self.label_of(row) or ""
        if column in (CONFIDENCE, MARGIN):
            value = self._number(row, column)
            return -1.0 if math.isnan(value) else float(value)
        return str(self._cells[row, column - len(RESULT_HEADERS)]).lower()

    # whole columns at once, for the proxy (100k rows per batch)
    def sort_keys(self, column: int) -> np.ndarray:
        """[N] numbers that order the rows as sort_key does, ties equal."""
        if column == LABEL:
            names = np.array([*self.label_names, ""], dtype=object)      # label index -1, no answer: ""
            rank = np.empty(len(names))
            rank[np.argsort(names)] = np.arange(len(names))
            return rank[self.state.label_indexes()]
        if column in (CONFIDENCE, MARGIN):
            values = self.state.confidence_column if column == CONFIDENCE else self.state.margin_column
            return np.where(np.isnan(values), -1.0, values)
        if column not in self._file_keys:        # the file does not change: ranked once per column
            cells = np.array([str(c).lower() for c in self._cells[:, column - len(RESULT_HEADERS)]], dtype=object)
            self._file_keys[column] = pd.factorize(cells, sort=True)[0]
        return self._file_keys[column]

    def search_mask(self, text: str) -> np.ndarray:
        """[N] rows where some cell holds the lower-cased text."""
        if self._search is None:      # every cell of a row, lower-cased, in Arrow strings: one C loop a search
            self._search = pd.Series([" ".join(map(str, r)).lower() for r in self._cells],
                                     dtype=pd.StringDtype("pyarrow"))
        return self._search.str.contains(text, regex=False).to_numpy(dtype=bool)

    def _number(self, row: int, column: int) -> float:
        return (self.state.confidence_column if column == CONFIDENCE else self.state.margin_column)[row]

    @contextmanager
    def resetting(self):
        """Wrap a change of everything (new file, new label names) in one model reset."""
        self.beginResetModel()
        try:
            yield
        finally:
            self.endResetModel()

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
        label, row = value or None, index.row()
        if not self.state.set_manual(row, label):
            return False
        self.dataChanged.emit(self.index(row, LABEL), self.index(row, MARGIN))
        self.answers_changed.emit()
        self.manual_changed.emit(row, label)
        return True

    def _display(self, row: int, column: int):
        if column == LABEL:
            label = self.state.label_of(row)
            return f"{label}  ✎" if self.state.is_manual(row) else label
        if column in (CONFIDENCE, MARGIN):
            value = self._number(row, column)
            return None if math.isnan(value) else f"{value:.2f}"
        text = str(self._cells[row, column - len(RESULT_HEADERS)])
        head = text[:_CELL_CHARS]
        return head.replace("\n", " ⏎ ") + ("…" if len(text) > _CELL_CHARS else "")

    def _edit(self, row: int, column: int):
        return self.label_of(row) if column == LABEL else self._display(row, column)

    def _background(self, row: int, column: int):
        if column == LABEL and self.state.is_manual(row):
            return _MANUAL_TINT
        return _LOW_TINT if self.state.confidence_column[row] < LOW_CONFIDENCE else None   # NaN compares False

    def _font(self, row: int, column: int):
        if column != LABEL or not self.state.is_manual(row):
            return None
        font = QFont()
        font.setBold(True)
        return font

    def _alignment(self, row: int, column: int):
        return _NUMBERS_ALIGNED if column in (CONFIDENCE, MARGIN) else None

    def _tooltip(self, row: int, column: int):
        if column >= len(RESULT_HEADERS):
            text = str(self._cells[row, column - len(RESULT_HEADERS)])
            return plain_tooltip(text) if len(text) > 40 else None
        prediction = self.state.prediction(row)
        lines = []
        if self.state.is_manual(row):
            lines.append(f"labeled by you: {self.state.label_of(row)} (a run never overwrites it)")
        elif self.state.source(row) == LEARNED:
            lines.append("learned from your labels: " + ", ".join(
                f"{n} {p:.2f}" for n, p in zip(self.label_names, self.state.shown_probabilities(row))))
        if prediction is not None and not prediction.is_blank:
            lines.append("model: " + ", ".join(f"{n} {p:.2f}" for n, p in
                                               zip(prediction.labels, prediction.probabilities)))
        elif prediction is not None:
            lines.append("blank ticket: nothing to classify")
        return plain_tooltip("\n".join(lines))

    # what data() and multiData() answer, by role (as ints: multiData's roles are); a role not here has no value
    _ROLES = {int(role): answer for role, answer in {
        Qt.ItemDataRole.DisplayRole: _display, Qt.ItemDataRole.EditRole: _edit, SORT_ROLE: sort_key,
        Qt.ItemDataRole.BackgroundRole: _background, Qt.ItemDataRole.FontRole: _font,
        Qt.ItemDataRole.TextAlignmentRole: _alignment, Qt.ItemDataRole.ToolTipRole: _tooltip}.items()}

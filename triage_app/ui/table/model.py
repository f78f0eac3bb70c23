"""The ticket table: the file's rows as read, and the answers of review.answers.FileAnswers, shown.

Row r of the model is always row r of the file (and ticket index r of a run), so batches,
exports and the store line up without translation; the proxy does every sort and filter, reading
the answers' columns whole (sort_keys, the masks) rather than a row at a time. The answers' state
lives in FileAnswers, which knows nothing of Qt, one per field (table/decisions.py); this model
presents them and signals their changes. What reads one field's answers without naming it reads the
current field's (the one whose decision column is selected).
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from triage_app.learn.none_of_these import NONE_OF_THESE
from triage_app.review.answers import Answer, FileAnswers
from triage_app.ui.table.cell_roles import LOW_CONFIDENCE, SORT_ROLE, CellRoles
from triage_app.ui.table.decisions import CONFIDENCE, LABEL, MARGIN, PER_AXIS, RESULT_HEADERS, Decisions
from triage_app.ui.table.row_order import MERGED_AT_MOST, contiguous_runs

__all__ = ["CONFIDENCE", "LABEL", "LOW_CONFIDENCE", "MARGIN", "RESULT_HEADERS", "SORT_ROLE", "TicketTableModel"]
# asked per cell painted: made once (an enum's | is a Python call)
_SELECTABLE = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_EDITABLE = _SELECTABLE | Qt.ItemFlag.ItemIsEditable
_RUNS_SIGNALLED_AT_MOST = 64                 # runs of changed rows signalled one by one (see _rows_changed)


class TicketTableModel(CellRoles, QAbstractTableModel):
    """Columns: label, confidence, margin of each field, then the file's own columns in file order."""

    person_label_changed = Signal(int, object, str)   # row, label (None: back to the model's answer), field
    answers_changed = Signal()               # a change's dataChanged are all out: a sorted proxy re-sorts once

    def __init__(self, frame: pd.DataFrame | None = None, parent=None):
        super().__init__(parent)
        self.decisions = Decisions()           # per field, the answers shown: the model's, learned, the person's
        self._frame = pd.DataFrame()
        self._cells = np.empty((0, 0), dtype=object)
        self._rows, self._columns, self._first_file_column = 0, len(RESULT_HEADERS), len(RESULT_HEADERS)
        self._search: pd.Series | None = None
        self._file_keys: dict[int, np.ndarray] = {}
        if frame is not None:
            self.set_frame(frame)

    # the file
    def set_frame(self, frame: pd.DataFrame) -> None:
        with self.resetting():
            self._frame = frame
            self._cells = frame.to_numpy(dtype=object, copy=False)
            self._search = None
            self.decisions.clear(len(frame))
            self._count_columns()

    def _count_columns(self) -> None:
        # Qt asks for the counts thousands of times per batch (every index() it makes): kept as ints
        self._first_file_column = self.decisions.count
        self._rows, self._columns = self._cells.shape[0], self._first_file_column + self._cells.shape[1]
        self._file_keys = {}

    @property
    def state(self) -> FileAnswers:
        """The current field's answers."""
        return self.decisions.of()

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self._frame.columns]

    def cell(self, row: int, column: str) -> str:
        return str(self._cells[row, self._frame.columns.get_loc(column)])

    # the fields
    @property
    def axes(self) -> list[str]:
        return self.decisions.axes

    @property
    def current_axis(self) -> str:
        return self.decisions.current

    def set_current_axis(self, axis: str) -> bool:
        """The field the keys, filters and review work on; False: it was already (or is no field)."""
        if axis == self.decisions.current or not self.decisions.has(axis):
            return False
        self.decisions.current = axis
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self._first_file_column - 1)   # its mark
        return True

    def answers_of(self, axis: str | None = None) -> FileAnswers:
        return self.decisions.of(axis)

    def names_of(self, axis: str) -> list[str]:
        """A field's label names; none for a field the table does not have (any more)."""
        return self.decisions.of(axis).label_names if self.decisions.has(axis) else []

    # answers: changes go through here, to be signalled
    def set_axes(self, names: dict[str, list[str]]) -> None:
        """The fields and their label names: a field's answers of other names no longer apply, and a
        person's labels of names it no longer has wait, set aside (rename_axis first, and a renamed
        field keeps them)."""
        if list(names.items()) == list(self.decisions.names.items()):
            return
        with self.resetting():
            self.decisions.set_axes(names, self._rows)
            self._count_columns()

    def rename_axis(self, old: str, new: str) -> None:
        with self.resetting():
            self.decisions.rename_axis(old, new)

    def set_label_names(self, names: list[str]) -> None:
        """The current field's new label names."""
        self.set_axes({**self.decisions.names, self.current_axis: list(names)})

    def clear_predictions(self) -> None:
        with self.resetting():
            self.decisions.clear_predictions()

    def apply_predictions(self, predictions, axis: str | None = None) -> None:
        """One batch's answers for a field (FileAnswers.apply_predictions); a dataChanged per run of rows."""
        self._rows_changed(self.answers_of(axis).apply_predictions(predictions))

    def apply_learned(self, learned, axis: str | None = None) -> bool:
        """A retrain's answers (FileAnswers.apply_learned); dataChanged for the rows whose answer
        changed. False, and nothing changes, when it was learned for other label names or another file."""
        changed = self.answers_of(axis).apply_learned(learned)
        if changed is None:
            return False
        self._rows_changed(changed)
        return True

    def set_none_of_these(self, fitted, axis: str | None = None) -> None:
        """A field's "none of these" threshold (a learn.NoneOfThese; None: not offered): the rows it moves
        are shown again."""
        answers = self.answers_of(axis)
        before = answers.misfit_mask()
        answers.none_of_these = fitted
        self._rows_changed(np.flatnonzero(before | answers.misfit_mask()))

    def start_labels_first(self, axis: str) -> None:
        """A labels-first run of the field: its answers start again from the person's labels, and the rows
        the language model reads are marked as it reads them (FileAnswers.read_by_model)."""
        with self.resetting():
            answers = self.answers_of(axis)
            answers.clear_predictions()
            answers.labels_first = True

    def run_ended(self, axis: str) -> None:
        """A run of the field's model ended (FileAnswers.ran_through): the rows are shown again where it
        changed what they show."""
        if self.answers_of(axis).ran_through():
            self._rows_changed(np.arange(self.rowCount()))

    def show_person_labels(self, person, axis: str | None = None) -> None:
        """A field's PersonLabels, which its answers read from now on (FileAnswers.show_person_labels); no
        person_label_changed signals."""
        self._rows_changed(self.answers_of(axis).show_person_labels(person))

    def set_person_label(self, row: int, label: str | None, axis: str | None = None) -> bool:
        return self.setData(self.index(row, self.decisions.column(axis)), label, Qt.ItemDataRole.EditRole)

    def confirm(self, row: int) -> bool:
        """The answer shown becomes the person's label (agreeing teaches too); False: no answer, or already theirs."""
        shown = self.state.predicted_label(row)
        return not self.state.is_person_label(row) and shown is not None and self.set_person_label(row, shown)

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
        right = self._first_file_column - 1
        for first, last in runs:
            self.dataChanged.emit(self.index(first, 0), self.index(last, right))
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

    def is_person_label(self, row: int) -> bool:
        return self.state.is_person_label(row)

    def source(self, row: int) -> str | None:
        return self.state.source(row)

    def confidence(self, row: int) -> float | None:
        return self.state.confidence(row)

    def margin(self, row: int) -> float | None:
        return self.state.margin(row)

    @property
    def person_labels(self) -> dict[int, str]:
        return self.state.person_labels

    @property
    def sources(self) -> list[str]:
        return self.state.sources

    @property
    def lm_scores(self) -> np.ndarray:
        return self.state.lm_scores

    @property
    def lm_drift(self) -> np.ndarray:
        return self.state.lm_drift

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

    def person_mask(self) -> np.ndarray:
        return self.state.person_mask()

    def margin_mask(self) -> np.ndarray:
        return self.state.margin_mask()

    @property
    def decision_columns(self) -> int:
        """How many decision columns (label, confidence, margin of each field) lead the table."""
        return self._first_file_column

    def axis_of_column(self, column: int) -> str | None:
        """The field a decision column shows; None for a file's own column."""
        return self.decisions.axis_at(column)

    def column_of(self, axis: str | None = None, kind: int = LABEL) -> int:
        """A field's label (CONFIDENCE, MARGIN) column; the current field's by default."""
        return self.decisions.column(axis, kind)

    def names_of_column(self, column: int) -> list[str]:
        """The label names a label column offers."""
        return self.decisions.at(column).label_names if column < self._first_file_column else []

    # the order of rows, for the proxy
    def sort_key(self, row: int, column: int):
        if column >= self._first_file_column:
            return str(self._cells[row, column - self._first_file_column]).lower()
        if column % PER_AXIS == LABEL:
            return self.decisions.at(column).label_of(row) or ""
        value = self._number(row, column)
        return -1.0 if math.isnan(value) else float(value)

    # whole columns at once, for the proxy (100k rows per batch)
    def sort_keys(self, column: int) -> np.ndarray:
        """[N] numbers that order the rows as sort_key does, ties equal."""
        if column < self._first_file_column:
            state = self.decisions.at(column)
            if column % PER_AXIS == LABEL:
                # label index -1, no answer: ""; "none of these" sorts as the word it shows, as sort_key does
                names = np.array([*state.label_names, NONE_OF_THESE, ""], dtype=object)
                rank = np.empty(len(names))
                rank[np.argsort(names)] = np.arange(len(names))
                return rank[np.where(state.misfit_mask(), len(state.label_names), state.label_indexes())]
            values = state.confidence_column if column % PER_AXIS == CONFIDENCE else state.margin_column
            return np.where(np.isnan(values), -1.0, values)
        if column not in self._file_keys:        # the file does not change: ranked once per column
            cells = np.array([str(c).lower() for c in self._cells[:, column - self._first_file_column]], dtype=object)
            self._file_keys[column] = pd.factorize(cells, sort=True)[0]
        return self._file_keys[column]

    def search_mask(self, text: str) -> np.ndarray:
        """[N] rows where some cell holds the lower-cased text."""
        if self._search is None:      # every cell of a row, lower-cased, in Arrow strings: one C loop a search
            self._search = pd.Series([" ".join(map(str, r)).lower() for r in self._cells],
                                     dtype=pd.StringDtype("pyarrow"))
        return self._search.str.contains(text, regex=False).to_numpy(dtype=bool)

    def _number(self, row: int, column: int) -> float:
        state = self.decisions.at(column)
        return (state.confidence_column if column % PER_AXIS == CONFIDENCE else state.margin_column)[row]

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
        if section < self._first_file_column:
            return self.decisions.header(section)
        return self.columns[section - self._first_file_column]

    def flags(self, index):
        column = index.column()
        editable = column < self._first_file_column and column % PER_AXIS == LABEL and self.names_of_column(column)
        return _EDITABLE if editable else _SELECTABLE

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        """A person's label for a row, on the field of the label column; None or "" goes back to the model's answer."""
        column = index.column()
        if (role != Qt.ItemDataRole.EditRole or not index.isValid() or column >= self._first_file_column
                or column % PER_AXIS != LABEL):
            return False
        label, row = value or None, index.row()
        if not self.decisions.at(column).set_person_label(row, label):
            return False
        self.dataChanged.emit(self.index(row, column), self.index(row, column + MARGIN))
        self.answers_changed.emit()
        self.person_label_changed.emit(row, label, self.decisions.axis_at(column))
        return True

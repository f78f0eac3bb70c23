"""What a cell of the ticket table shows, role by role: its text, tint, font, alignment, tooltip.

A mixin of TicketTableModel (table/model.py), kept apart so that each stays short: a decision
column shows its own field's answer, a file's column the file's cell.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont

from triage_app.learn.model import LEARNED
from triage_app.ui.plain_text import tooltip as plain_tooltip
from triage_app.ui.table.decisions import LABEL, PER_AXIS

PERSON_MARK = "  ✎"   # after a label a person gave (view.LabelDelegate keeps it in view)
READ_MARK = "◆ "      # before an answer the language model read the ticket for, after a labels-first run

LOW_CONFIDENCE = 0.7
SORT_ROLE = Qt.ItemDataRole.UserRole + 1     # raw values: floats, or None for "no answer yet"
_LOW_TINT = QColor(255, 228, 181)
_PERSON_TINT = QColor(214, 234, 248)
_NONE_TINT = QColor(225, 225, 225)          # "none of these": no label's colour
_NUMBERS_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_CELL_CHARS = 240                            # a table cell shows the head of a ticket; the tooltip all of it


class CellRoles:
    """data() and multiData() of the ticket table; the model supplies decisions, state, _cells,
    _first_file_column, _number and sort_key."""

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

    def _display(self, row: int, column: int):
        if column >= self._first_file_column:
            text = str(self._cells[row, column - self._first_file_column])
            head = text[:_CELL_CHARS]
            return head.replace("\n", " ⏎ ") + ("…" if len(text) > _CELL_CHARS else "")
        if column % PER_AXIS == LABEL:
            state = self.decisions.at(column)
            label = state.label_of(row)
            if label is not None and state.labels_first and state.was_read(row):
                label = READ_MARK + label
            return label + PERSON_MARK if state.is_person_label(row) else label
        value = self._number(row, column)
        return None if math.isnan(value) else f"{value:.2f}"

    def _edit(self, row: int, column: int):
        if column < self._first_file_column and column % PER_AXIS == LABEL:
            return self.decisions.at(column).label_of(row)
        return self._display(row, column)

    def _background(self, row: int, column: int):
        if column < self._first_file_column:        # a field's own columns: its own confidence
            state = self.decisions.at(column)
            if column % PER_AXIS == LABEL and state.is_person_label(row):
                return _PERSON_TINT
            if column % PER_AXIS == LABEL and state.fits_none(row):
                return _NONE_TINT
        else:
            state = self.state
        return _LOW_TINT if state.confidence_column[row] < LOW_CONFIDENCE else None   # NaN compares False

    def _font(self, row: int, column: int):
        if column >= self._first_file_column or column % PER_AXIS != LABEL:
            return None
        state = self.decisions.at(column)
        if not state.is_person_label(row) and not state.fits_none(row):
            return None
        font = QFont()
        font.setBold(state.is_person_label(row))
        font.setItalic(not state.is_person_label(row))       # "none of these": no label, said apart
        return font

    def _alignment(self, row: int, column: int):
        return _NUMBERS_ALIGNED if column < self._first_file_column and column % PER_AXIS != LABEL else None

    def _tooltip(self, row: int, column: int):
        if column >= self._first_file_column:
            text = str(self._cells[row, column - self._first_file_column])
            return plain_tooltip(text) if len(text) > 40 else None
        state = self.decisions.at(column)
        prediction = state.prediction(row)
        lines = []
        if state.is_person_label(row):
            lines.append(f"labeled by you: {state.label_of(row)} (a run never overwrites it)")
        elif state.source(row) == LEARNED:
            lines.append("learned from your labels: " + ", ".join(
                f"{n} {p:.2f}" for n, p in zip(state.label_names, state.shown_probabilities(row))))
        if state.fits_none(row):
            lines.insert(0, f"none of these: less than {100 * state.none_of_these.threshold:.0f}% sure of any "
                            f"label, the threshold fitted on your labels")
        if state.labels_first:
            lines.append("read by the language model" if prediction is not None else
                         "not read by the language model: answered from your labels (labels first)")
        if prediction is not None and not prediction.is_blank:
            lines.append("model: " + ", ".join(f"{n} {p:.2f}" for n, p in
                                               zip(prediction.labels, prediction.probabilities)))
        elif prediction is not None:
            lines.append("blank ticket: nothing to classify")
        return plain_tooltip("\n".join(lines))

    def _sort_key(self, row: int, column: int):
        return self.sort_key(row, column)

    # what data() and multiData() answer, by role (as ints: multiData's roles are); a role not here has no value
    _ROLES = {int(role): answer for role, answer in {
        Qt.ItemDataRole.DisplayRole: _display, Qt.ItemDataRole.EditRole: _edit, SORT_ROLE: _sort_key,
        Qt.ItemDataRole.BackgroundRole: _background, Qt.ItemDataRole.FontRole: _font,
        Qt.ItemDataRole.TextAlignmentRole: _alignment, Qt.ItemDataRole.ToolTipRole: _tooltip}.items()}

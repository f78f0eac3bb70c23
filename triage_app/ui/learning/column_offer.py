"""A file that already has a column of queues, half filled in: its values offered as the label set,
and its filled rows as labels to learn from, so a new user types nothing.

The values are grouped as labels_from_column reads them (case and surrounding spaces ignored),
most frequent first. The most frequent few are proposed (keys 1–9 reach nine); a value on a
single ticket cannot be cross-validated, so it is not proposed. The person can rename a value
(two values renamed alike are merged), untick it, and choose whether the values not taken are
left out or merged into one "other" label. The dialog says which column it reads and lets the
person choose another: it starts on a label-like column filled on some tickets but not all (a queue
half filled in), not on a column of answers filled on every one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView,
                               QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout)

from triage_app.engine.labels import folded
from triage_app.learn.teaching import cell_text, labels_from_column
from triage_app.ui.plain_text import fit_names

OTHER = "other"
_NAME, _ROWS, _VALUE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class ColumnValue:
    key: str           # the value as labels_from_column compares it: stripped, folded
    shown: str         # its commonest spelling in the file
    rows: int


@dataclass(slots=True)
class Offer:
    """What the person took: the label set, and the rows it teaches."""

    names: list[str]
    labels: dict[int, str]     # row -> label name
    left_out: int              # filled rows whose value was not taken

    def line(self) -> str:
        out = f"{len(self.names)} labels from the column; learning from {len(self.labels):,} tickets"
        return out + (f"; {self.left_out:,} tickets with a value not taken are left out" if self.left_out else "")


def column_values(values) -> list[ColumnValue]:
    """The column's filled values, grouped, most frequent first (ties: alphabetical)."""
    spellings: dict[str, Counter] = {}
    for value in values:
        text = cell_text(value)
        if text:
            spellings.setdefault(folded(text), Counter())[text] += 1
    found = [ColumnValue(key, c.most_common(1)[0][0], sum(c.values())) for key, c in spellings.items()]
    return sorted(found, key=lambda v: (-v.rows, v.key))


def proposed(found: list[ColumnValue], cap: int = 9, min_rows: int = 2) -> list[ColumnValue]:
    """The values offered as labels: on at least min_rows tickets, the cap most frequent."""
    return [v for v in found if v.rows >= min_rows][:cap]


def label_like(values, most: int = 50) -> bool:
    """A column of a few repeated values, two of which the dialog would propose."""
    keys = set()
    for value in values:
        keys.add(folded(cell_text(value)))
        if len(keys) > most + 1:           # (blank is one) a text column: known long before its end
            return False
    found = column_values(values)
    return len(found) <= most and len(proposed(found)) >= 2


def partly_filled(values) -> bool:
    """Filled on some tickets but not all, as a queue typed in by hand is (a column of answers is filled on every one)."""
    filled = sum(1 for v in values if cell_text(v))
    return 0 < filled < len(values)


def best_column(columns: dict[str, list], suggested: str | None) -> str | None:
    """The column to offer first (name -> its cells): label-like, and partly filled; among equals the
    suggested one, then the first."""
    def rank(name: str) -> tuple[bool, bool]:
        return partly_filled(columns[name]), name == suggested

    return max((c for c in columns if label_like(columns[c])), key=rank, default=suggested)


def hinted_column(columns: dict[str, list], gold: str | None) -> str | None:
    """The column the window points at when a file opens (name -> its cells): label-like and partly filled,
    never the gold column (the answers the accuracy is measured on: learning from them would teach the
    answers); None where there is no such column."""
    return next((c for c in columns if c != gold and label_like(columns[c]) and partly_filled(columns[c])), None)


def column_hint(frame, gold: str | None) -> str | None:
    """The status line a file opens with where a column could teach (hinted_column), or None. Read on the
    file reader's thread: every cell of every column, too long for the UI thread on a big file."""
    column = hinted_column({str(name): frame.iloc[:, k].tolist() for k, name in enumerate(frame.columns)}, gold)
    if column is None:
        return None
    return f"“{column}” has labels on some tickets: Labels ▸ Labels from a column… learns from them."


def take(values, names_by_key: dict[str, str | None]) -> Offer:
    """The column read through the person's choices: key -> label name, or None (left out). Names
    that differ only in case are one label (the first spelling), as the label set requires."""
    first: dict[str, str] = {}
    for name in names_by_key.values():
        if name:
            first.setdefault(folded(name), name)
    names = list(first.values())
    mapped = [names_by_key.get(folded(cell_text(v))) for v in values]
    found = labels_from_column(mapped, names)
    left_out = sum(1 for v, m in zip(values, mapped) if cell_text(v) and m is None)
    return Offer(names, found.labels, left_out)


class LabelOfferDialog(QDialog):
    """Accepted: offer() says what was taken, from chosen_column."""

    def __init__(self, columns: dict[str, list], column: str, parent=None, cap: int = 9, min_rows: int = 2):
        """columns: the columns the person may choose from (name -> its cells); column: the one shown first."""
        super().__init__(parent)
        self.columns, self.cap, self.min_rows = columns, cap, min_rows
        self.column = QComboBox()
        self.column.addItems(list(columns))
        fit_names(self.column)
        self.column.setToolTip("The column whose values become the labels; its filled tickets teach the rest")
        column_row = QHBoxLayout()
        column_row.addWidget(QLabel("Labels from the column"))
        column_row.addWidget(self.column, 1)
        self.intro = QLabel()
        self.intro.setTextFormat(Qt.TextFormat.PlainText)      # it names the file's column
        self.intro.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["label", "tickets", "value in the file"])
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(_NAME, QHeaderView.ResizeMode.Stretch)
        self.rest = QComboBox()
        self.rest.addItem("are left out (not learned from)", False)
        self.rest.addItem(f"are merged into one label, “{OTHER}”", True)
        rest_row = QHBoxLayout()
        rest_row.addWidget(QLabel("Values not ticked"))
        rest_row.addWidget(self.rest, 1)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        buttons = QDialogButtonBox()
        buttons.addButton("Use these labels", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton("Not now", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(column_row)
        layout.addWidget(self.intro)
        layout.addWidget(self.table)
        layout.addLayout(rest_row)
        layout.addWidget(self.summary)
        layout.addWidget(buttons)
        self.table.itemChanged.connect(self._show_summary)
        self.rest.currentIndexChanged.connect(self._show_summary)
        self.column.setCurrentText(column)
        self._show_column(self.column.currentText())
        self.column.currentTextChanged.connect(self._show_column)
        self.resize(560, 460)

    @property
    def chosen_column(self) -> str:
        return self.column.currentText()

    def names_by_key(self) -> dict[str, str | None]:
        merge_rest = self.rest.currentData()
        out = {}
        for r, value in enumerate(self.found):
            item = self.table.item(r, _NAME)
            name = item.text().strip()
            out[value.key] = name if item.checkState() == Qt.CheckState.Checked and name else (
                OTHER if merge_rest else None)
        return out

    def offer(self) -> Offer:
        return take(self.values, self.names_by_key())

    def _show_column(self, column: str) -> None:
        """The chosen column's values, the frequent ones ticked."""
        self.values = list(self.columns.get(column, []))
        self.found = column_values(self.values)
        taken = {v.key for v in proposed(self.found, self.cap, self.min_rows)}
        filled = sum(v.rows for v in self.found)
        self.setWindowTitle(f"Labels from “{column}”")
        self.intro.setText(f"“{column}” is filled in on {filled:,} of {len(self.values):,} tickets, with "
                           f"{len(self.found)} different values. Use them as the labels, and learn from the "
                           f"tickets where it is filled in? The rest are labeled from what those teach.\n"
                           f"Rename a label to merge it with another; untick one to leave it out.")
        self.table.blockSignals(True)
        self.table.setRowCount(len(self.found))
        for r, value in enumerate(self.found):
            name = QTableWidgetItem(value.shown)
            name.setFlags(name.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEditable)
            name.setCheckState(Qt.CheckState.Checked if value.key in taken else Qt.CheckState.Unchecked)
            self.table.setItem(r, _NAME, name)
            for column_index, text in ((_ROWS, f"{value.rows:,}"), (_VALUE, value.shown)):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(r, column_index, item)
        self.table.blockSignals(False)
        self._show_summary()

    def _show_summary(self, *_) -> None:
        offer = self.offer()
        line = offer.line()
        if len(offer.names) > 9:
            line += "; keys 1–9 reach the first nine"
        self.summary.setText(line)

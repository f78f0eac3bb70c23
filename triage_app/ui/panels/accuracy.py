"""How the model does against a gold column: accuracy, per-label precision/recall, confusions.

It scores the answers shown, the model's or learned from the person's labels, never a person's label: a label
a person set is a correction, not a prediction (on that row the model's own answer counts).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from triage_app.quality.metrics import Report

class AccuracyPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.headline = QLabel("Choose a gold column above to compare the model's labels with it.")
        self.headline.setWordWrap(True)
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.headline.setFont(font)
        layout.addWidget(self.headline)
        self.calibration = QLabel()
        self.calibration.setWordWrap(True)
        layout.addWidget(self.calibration)
        self.per_label = _table(["precision", "recall", "rows"])
        layout.addWidget(QLabel("Per label"))
        layout.addWidget(self.per_label)
        _fit_height(self.per_label)
        # gold values no label has (a label renamed after the gold column was written): their rows count
        # in the headline, never in a label's row, so they are named here rather than lost
        self.unmatched = QLabel()
        self.unmatched.setWordWrap(True)
        self.unmatched.setStyleSheet("color: #8a5300;")
        self.unmatched.hide()
        layout.addWidget(self.unmatched)
        gates_title = QLabel("Apply above a confidence, the rest to a person")
        gates_title.setWordWrap(True)
        layout.addWidget(gates_title)
        self.gates = _table(["applied", "right of those"])
        layout.addWidget(self.gates)
        _fit_height(self.gates)
        self.matrix_title = QLabel("Confusion matrix (rows: gold; columns: the model's label, by number)")
        self.matrix_title.setWordWrap(True)
        layout.addWidget(self.matrix_title)
        self.matrix = _table([])
        layout.addWidget(self.matrix, 1)
        self.scores: Report | None = None

    def show_scores(self, scores: Report | None, gold_column: str | None) -> None:
        self.scores = scores
        if scores is None or gold_column is None:
            self.headline.setText("Choose a gold column above to compare the model's labels with it.")
            self.calibration.setText("")
            self.per_label.setRowCount(0)
            self.unmatched.hide()
            self.gates.setRowCount(0)
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            return
        if not scores.n:
            self.headline.setText(f"No labeled rows with a “{html.escape(gold_column)}” value yet.")
        else:
            self.headline.setText(f"Accuracy <b>{100 * scores.accuracy:.1f}%</b> — {scores.correct:,} of "
                                  f"{scores.n:,} rows agree with “{html.escape(gold_column)}” (the answers shown, "
                                  "the model's or learned from your labels; where you labelled, the model's own)")
        self.calibration.setText(_calibration(scores))
        self.per_label.setRowCount(len(scores.per_label))
        self.per_label.setVerticalHeaderLabels(list(scores.per_label))
        for r, s in enumerate(scores.per_label.values()):
            for c, value in enumerate((_pct(s.precision), _pct(s.recall), f"{s.support:,}")):
                self.per_label.setItem(r, c, _item(value))
        _fit_height(self.per_label)
        self._show_unmatched(scores, gold_column)
        self._show_gates(scores.gates)
        self._show_matrix(scores)

    def _show_unmatched(self, scores: Report, gold_column: str) -> None:
        unmatched = {value: sum(row) for value, row in zip(scores.gold_values[len(scores.labels):],
                                                           scores.confusion[len(scores.labels):]) if sum(row)}
        self.unmatched.setVisible(bool(unmatched))
        if unmatched:
            named = ", ".join(f"“{html.escape(value)}” ({n:,})" for value, n in unmatched.items())
            self.unmatched.setText(f"{sum(unmatched.values()):,} of {scores.n:,} rows have a “{html.escape(gold_column)}” "
                                   f"value that matches no label, so no label's row above counts them: {named}. "
                                   f"They count as wrong in the accuracy.")

    def _show_matrix(self, scores: Report) -> None:
        # label names do not fit above narrow columns: each column is its label's number, and the
        # rows, wide enough, name the number with the label
        self.matrix.setRowCount(len(scores.gold_values))
        self.matrix.setColumnCount(len(scores.labels))
        self.matrix.setHorizontalHeaderLabels([str(k + 1) for k in range(len(scores.labels))])
        for k, name in enumerate(scores.labels):
            self.matrix.horizontalHeaderItem(k).setToolTip(name)
        self.matrix.setVerticalHeaderLabels([f"{k + 1}  {value}" if k < len(scores.labels) else f"–  {value} (no label)"
                                             for k, value in enumerate(scores.gold_values)])
        peak = max((n for row in scores.confusion for n in row), default=0) or 1
        for r, row in enumerate(scores.confusion):
            for c, n in enumerate(row):
                item = _item(f"{n:,}")
                shade = int(225 * n / peak)
                diagonal = r < len(scores.labels) and r == c
                item.setBackground(QColor(255 - shade, 255 - shade // 3, 255 - shade) if diagonal else
                                   QColor(255, 255 - shade // 2, 255 - shade // 2))
                self.matrix.setItem(r, c, item)

    def _show_gates(self, gates: list[dict]) -> None:
        self.gates.setRowCount(len(gates))
        self.gates.setVerticalHeaderLabels([f"≥ {g['threshold']:.2f}" for g in gates])
        for r, g in enumerate(gates):
            self.gates.setItem(r, 0, _item(f"{_pct(g['applied'])} ({g['n']:,})"))
            self.gates.setItem(r, 1, _item(_pct(g["accuracy"])))
        _fit_height(self.gates)


def _calibration(scores: Report) -> str:
    """Whether 'review everything under 70%' is a sane instruction for this file."""
    if scores.ece is None or not scores.n:
        return ""
    shown = sum(b["n"] * b["confidence"] for b in scores.reliability) / scores.n
    gap = shown - scores.accuracy
    side = "is close to" if abs(gap) < 0.02 else "overstates" if gap > 0 else "understates"
    return (f"Confidence: calibration error {scores.ece:.3f}; the mean confidence, {100 * shown:.0f}%, {side} "
            f"the accuracy. Near 0, a label shown at 70% is right about 70% of the time; "
            f"<code>triage-app eval</code> fits a temperature that corrects it.")


def _fit_height(table: QTableWidget) -> None:
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(rows + table.horizontalHeader().height() + 2 * table.frameWidth() + 2)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _item(text: str) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return table

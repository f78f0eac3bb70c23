"""Which column holds the ticket text (and subject), and which holds the right answers, if any.

With several fields (queue, priority), each has a gold column of its own: the picker shows the
current field's, at first the file's column of the field's name."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QWidget

from triage_app.ui.plain_text import fit_names

NONE = "none"


class ColumnPicker(QWidget):
    texts_changed = Signal()      # the text a ticket is classified on changed
    gold_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.text = QComboBox()
        self.text.setToolTip("The column the model reads")
        self.with_subject = QCheckBox("after the subject in")
        self.with_subject.setToolTip("Prepend the subject/title to the text, as the ticket's first line")
        self.subject = QComboBox()
        self._axes: list[str] = []
        self._axis = ""
        self._detected: str | None = None       # the gold column the file's reading found
        self._chosen: dict[str, str | None] = {}   # field -> gold column the person chose
        self.gold_label = QLabel("Gold column:")
        self.gold = QComboBox()
        self.gold.setToolTip("A column with the right answers, to measure accuracy against (or none)")
        for combo in (self.text, self.subject, self.gold):
            fit_names(combo)
        layout.addWidget(QLabel("Ticket text:"))
        layout.addWidget(self.text)
        layout.addWidget(self.with_subject)
        layout.addWidget(self.subject)
        layout.addSpacing(16)
        layout.addWidget(self.gold_label)
        layout.addWidget(self.gold)
        layout.addStretch(1)
        self.text.currentTextChanged.connect(lambda *_: self.texts_changed.emit())
        self.subject.currentTextChanged.connect(lambda *_: self.with_subject.isChecked() and self.texts_changed.emit())
        self.with_subject.toggled.connect(self._subject_toggled)
        self.gold.currentTextChanged.connect(self._gold_chosen)
        self.set_columns([], None, None, None)

    def set_columns(self, columns: list[str], text: str | None, subject: str | None, gold: str | None) -> None:
        """A new file: fill the pickers with what was detected; no signals."""
        blockers = [QSignalBlocker(w) for w in (self.text, self.subject, self.with_subject, self.gold)]
        self.text.clear()
        self.text.addItems(columns)
        if text:
            self.text.setCurrentText(text)
        self.subject.clear()
        self.subject.addItems(columns)
        if subject:
            self.subject.setCurrentText(subject)
        self.with_subject.setChecked(False)
        self.subject.setEnabled(False)
        self.with_subject.setEnabled(bool(columns))
        self.gold.clear()
        self.gold.addItems([NONE] + columns)
        self._detected, self._chosen = gold, {}
        self.gold.setCurrentText(self.gold_of(self._axis) or NONE)
        del blockers

    def set_axes(self, axes: list[str], current: str) -> None:
        """The fields, and the one whose gold column is shown; no signals."""
        self._axes = list(axes)
        blocker = QSignalBlocker(self.gold)
        self._axis = current
        self.gold.setCurrentText(self.gold_of(current) or NONE)
        self.gold_label.setText(f"Gold for {current}:" if len(self._axes) > 1 else "Gold column:")
        del blocker

    def rename_axis(self, old: str, new: str) -> None:
        if old in self._chosen:
            self._chosen[new] = self._chosen.pop(old)

    def gold_of(self, axis: str) -> str | None:
        """A field's gold column: the one chosen for it, else the file's column of its name."""
        if axis in self._chosen:
            return self._chosen[axis]
        if len(self._axes) <= 1:
            return self._detected
        columns = [self.gold.itemText(k) for k in range(1, self.gold.count())]
        named = next((c for c in columns if c.strip().lower() == axis.lower()), None)
        return named or (self._detected if axis == self._axes[0] else None)

    def _gold_chosen(self, *_) -> None:
        self._chosen[self._axis] = self.gold_column
        self.gold_changed.emit()

    @property
    def text_column(self) -> str | None:
        return self.text.currentText() or None

    @property
    def subject_column(self) -> str | None:
        return self.subject.currentText() or None if self.with_subject.isChecked() else None

    @property
    def gold_column(self) -> str | None:
        value = self.gold.currentText()
        return None if value in ("", NONE) else value

    def _subject_toggled(self, on: bool) -> None:
        self.subject.setEnabled(on)
        self.texts_changed.emit()

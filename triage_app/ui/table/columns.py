"""Which column holds the ticket text (and subject), and which holds the right answers, if any."""

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
        self.gold = QComboBox()
        self.gold.setToolTip("A column with the right answers, to measure accuracy against (or none)")
        for combo in (self.text, self.subject, self.gold):
            fit_names(combo)
        layout.addWidget(QLabel("Ticket text:"))
        layout.addWidget(self.text)
        layout.addWidget(self.with_subject)
        layout.addWidget(self.subject)
        layout.addSpacing(16)
        layout.addWidget(QLabel("Gold column:"))
        layout.addWidget(self.gold)
        layout.addStretch(1)
        self.text.currentTextChanged.connect(lambda *_: self.texts_changed.emit())
        self.subject.currentTextChanged.connect(lambda *_: self.with_subject.isChecked() and self.texts_changed.emit())
        self.with_subject.toggled.connect(self._subject_toggled)
        self.gold.currentTextChanged.connect(lambda *_: self.gold_changed.emit())
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
        self.gold.setCurrentText(gold or NONE)
        del blockers

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

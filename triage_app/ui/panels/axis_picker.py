"""Which field (axis) the label editor edits: queue, priority, type, each a label set of its own.

A plain label set is one axis and shows only a small "Add a field" button; with two or more, a
picker of the fields and the buttons to add, rename and remove one. The label editor does the
editing (ui/panels/label_editor.py); this is the row of controls above it.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QInputDialog, QLabel, QPushButton, QWidget

from triage_app.ui.plain_text import fit_names


class AxisPicker(QWidget):
    chosen = Signal(str)              # the person picked this field to edit
    add_requested = Signal()
    rename_requested = Signal(str, str)   # old name, new name
    remove_requested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("<b>Field</b>")
        self.combo = QComboBox()
        fit_names(self.combo)
        self.combo.setToolTip("The field whose labels are edited here; it follows the decision column "
                              "selected in the table")
        self.combo.currentTextChanged.connect(self._chosen)
        self.add_button = QPushButton("Add a field")
        self.add_button.setToolTip("Classify another field of each ticket in the same run "
                                   "(priority beside queue): each field has its own labels")
        self.add_button.clicked.connect(lambda *_: self.add_requested.emit())
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(lambda *_: self._ask_rename())
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Leave this field out of runs; the labels you gave it are kept, "
                                      "and back when a field of its name is")
        self.remove_button.clicked.connect(lambda *_: self.remove_requested.emit(self.current))
        for widget in (self.title, self.combo):
            layout.addWidget(widget)
        layout.addStretch(1)
        for widget in (self.add_button, self.rename_button, self.remove_button):
            layout.addWidget(widget)

    @property
    def current(self) -> str:
        return self.combo.currentText()

    def show_axes(self, names: list[str], current: str) -> None:
        """The fields as they are now; one field (a plain label set) shows only the button to add one."""
        blocker = QSignalBlocker(self.combo)
        if [self.combo.itemText(k) for k in range(self.combo.count())] != names:
            self.combo.clear()
            self.combo.addItems(names)
        self.combo.setCurrentText(current)
        del blocker
        several = len(names) > 1
        for widget in (self.title, self.combo, self.rename_button, self.remove_button):
            widget.setVisible(several)
        self.add_button.setFlat(not several)
        self.add_button.setText("Add a field" if several else "+ Add a field (queue, priority, …)")

    def _chosen(self, name: str) -> None:
        if name:
            self.chosen.emit(name)

    def _ask_rename(self) -> None:
        old = self.current
        new, ok = QInputDialog.getText(self, "Rename the field", "Name (it names the export's columns):", text=old)
        if ok and new.strip() and new.strip() != old:
            self.rename_requested.emit(old, new.strip())

"""The label editor: names, one-line descriptions, few-shot examples; save and load as JSON.

A label set may have several fields (axes: queue, priority, ...), each a label set of its own: the
editor shows one at a time, the one the axis picker (or the decision column selected in the table)
names, and saves and loads every one."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QMessageBox,
                               QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from triage_app.engine.axes import Axes, Axis
from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.ui import plain_text
from triage_app.ui.panels.axis_picker import AxisPicker
from triage_app.ui.panels.removed_labels import RemovedLabels
from triage_app.ui.plain_text import fit_names

# why the panel asks: measured with `triage-app eval --compare` and scripts/experiments/confident_examples.py
# (docs/quality/README.md, "Few-shot examples under channel"; docs/quality/channel_examples_smollm2.txt)
CORRECTIONS_WARNING = (
    "With channel scoring (the default), corrected tickets made poor examples when measured: accuracy on "
    "the rest of the tickets fell, on both files tried. The tickets a model gets wrong are the ambiguous "
    "ones, and as a label's example one of them pulls unrelated tickets to that label.\n\n"
    "What helped on the sample: two ordinary tickets of each label, picked at random (Use as example "
    "of). Or switch to direct scoring (Model > Settings), where corrections helped.\n\n"
    "Add them anyway?")

_COMMITTED = Qt.ItemDataRole.UserRole   # a name item remembers its last valid name, to follow renames


class LabelsPanel(QWidget):
    changed = Signal(object)              # new valid Axes (every field's label set)
    renamed = Signal(object)              # {old name: new name} of the current field's labels, before the changed
    axis_renamed = Signal(str, str)       # a field renamed (old, new), just before the changed it belongs to
    axis_chosen = Signal(str)             # the field shown here is now this one
    preview_requested = Signal()
    example_requested = Signal(str)       # add the selected ticket as an example of this label
    message = Signal(str)                 # something to tell the user (saved, loaded, why not)

    def __init__(self, axes: Axes | LabelSet | None = None, parent=None):
        super().__init__(parent)
        self._axes = _as_axes(axes or LabelSet.default())
        self._axis = self._axes.first.name          # the field shown
        self._filling = False
        self.rename_problem = lambda renames: None   # why a rename may not be applied (the window's say), or None
        self.spelling = lambda name: name    # a typed name as the window spells it (a set-aside label's)
        self.removed = RemovedLabels()
        self.axis_rename_problem = lambda old, new: None   # the same for a field's rename
        layout = QVBoxLayout(self)

        self.axis_picker = AxisPicker()
        self.axis_picker.chosen.connect(self.choose_axis)
        self.axis_picker.add_requested.connect(lambda: self.add_axis())
        self.axis_picker.rename_requested.connect(self.rename_axis)
        self.axis_picker.remove_requested.connect(self.remove_axis)
        layout.addWidget(self.axis_picker)
        layout.addWidget(QLabel("<b>Labels</b> — double-click to rename or describe"))
        self.edit_note = QLabel()      # what an edit costs with the scoring method in use, said before it
        self.edit_note.setWordWrap(True)
        self.edit_note.setStyleSheet("color: #555;")
        self.edit_note.hide()
        layout.addWidget(self.edit_note)
        self.labels = QTableWidget(0, 2)
        self.labels.setHorizontalHeaderLabels(["name", "description (one line)"])
        self.labels.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.labels.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.labels.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.labels.itemChanged.connect(self._edited)
        layout.addWidget(self.labels, 2)
        row = QHBoxLayout()
        self.add_button = _button("Add label", self.add_label, row)
        self.remove_button = _button("Remove", self.remove_selected_label, row)
        row.addStretch(1)
        self.preview_button = _button("Show prompt…", self.preview_requested.emit, row)
        layout.addLayout(row)

        layout.addWidget(QLabel("<b>Few-shot examples</b> — pick a ticket in the table, then:"))
        row = QHBoxLayout()
        self.example_label = QComboBox()
        fit_names(self.example_label)
        self.use_button = _button("Use as example of", self._use_selected, row)
        row.addWidget(self.example_label, 1)
        layout.addLayout(row)
        self.examples = QTableWidget(0, 2)
        self.examples.setHorizontalHeaderLabels(["label", "text"])
        self.examples.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.examples.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.examples.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.examples.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        layout.addWidget(self.examples, 2)
        row = QHBoxLayout()
        self.remove_example_button = _button("Remove example", self.remove_selected_example, row)
        row.addStretch(1)
        _button("Defaults", lambda: self.set_label_set(LabelSet.default(), announce=True), row)
        _button("Load…", self._load_dialog, row)
        _button("Save…", self._save_dialog, row)
        layout.addLayout(row)

        self.error = QLabel()
        self.error.setTextFormat(Qt.TextFormat.PlainText)     # a label name from a file, said back
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #a00;")
        self.error.hide()
        layout.addWidget(self.error)
        self._fill()

    @property
    def label_set(self) -> LabelSet:
        """The shown field's last valid label set (edits that make it invalid are shown, not applied)."""
        return self._axes.named(self._axis).label_set

    @property
    def axes(self) -> Axes:
        """Every field's last valid label set."""
        return self._axes

    @property
    def axis(self) -> str:
        """The name of the field shown."""
        return self._axis

    def set_label_set(self, label_set: LabelSet, announce: bool = False) -> None:
        """The shown field's labels."""
        self.set_axes(Axes(tuple(replace(a, label_set=label_set) if a.name == self._axis else a for a in self._axes)),
                      announce)

    def set_axes(self, axes: Axes | LabelSet, announce: bool = False, axis: str | None = None) -> None:
        """Every field at once (a file loaded); axis: the one to show (the shown one, or the first)."""
        axes = _as_axes(axes)
        changed = axes != self._axes
        self._axes = axes
        shown = axis if axis in axes.names else self._axis if self._axis in axes.names else axes.first.name
        moved, self._axis = shown != self._axis, shown
        self._fill()
        if changed or announce:
            self.changed.emit(axes)
        if moved:
            self.axis_chosen.emit(shown)

    def choose_axis(self, name: str) -> None:
        """Show this field's labels (the picker, or the decision column selected in the table)."""
        if name == self._axis or name not in self._axes.names:
            return
        self._axis = name
        self._show_error("")
        self._fill()
        self.axis_chosen.emit(name)

    def add_axis(self, name: str | None = None, label_set: LabelSet | None = None) -> str:
        """A new field, shown at once: named fieldN unless given, two placeholder labels unless given."""
        taken = {n.lower() for n in self._axes.names}
        name = name or next(f"field{k}" for k in range(2, len(taken) + 3) if f"field{k}" not in taken)
        label_set = label_set or LabelSet.from_names(["label1", "label2"])
        try:
            self.set_axes(Axes(self._axes.axes + (Axis(name, label_set),)), axis=name)
        except ValueError as exc:
            self._show_error(str(exc))
        return name

    def rename_axis(self, old: str, new: str, ask: bool = True) -> bool:
        """A field's new name: the labels a person gave it follow (the window's part, axis_renamed). ask
        False: the database's word is known already (it refused the rename this one takes back)."""
        try:
            axes = Axes(tuple(replace(a, name=new) if a.name == old else a for a in self._axes))
        except ValueError as exc:
            self._show_error(f"{exc} — not renamed")
            return False
        problem = self.axis_rename_problem(old, new) if ask else None
        if problem:
            self._show_error(f"{problem} — not renamed")
            return False
        self.axis_renamed.emit(old, new)
        self._axis = new if self._axis == old else self._axis
        self.set_axes(axes)
        return True

    def can_rename_labels(self, axis: str, renames: dict[str, str]) -> bool:
        """Whether a field's labels can be renamed so: each old name there, no new one taken."""
        return self._renamed_labels(axis, renames) is not None

    def rename_labels(self, axis: str, renames: dict[str, str]) -> None:
        """A field's labels renamed, their examples with them, without asking or `renamed`: the caller has
        the database's word already and renamed the labels given (it takes back renames the database refused)."""
        label_set = self._renamed_labels(axis, renames)
        if label_set is not None:
            self._show_error("")
            self.set_axes(Axes(tuple(replace(a, label_set=label_set) if a.name == axis else a for a in self._axes)))

    def _renamed_labels(self, axis: str, renames: dict[str, str]) -> LabelSet | None:
        label_set = self._axes.named(axis).label_set if axis in self._axes.names else None
        if label_set is None or not set(renames) <= set(label_set.names):
            return None
        try:
            return LabelSet(tuple(replace(l, name=renames.get(l.name, l.name)) for l in label_set.labels),
                            tuple(replace(e, label=renames.get(e.label, e.label)) for e in label_set.examples))
        except ValueError:      # a name taken since
            return None

    def remove_axis(self, name: str) -> None:
        """Leave a field out; the labels a person gave it are kept (the store holds them)."""
        if len(self._axes) > 1 and name in self._axes.names:
            self.set_axes(Axes(tuple(a for a in self._axes if a.name != name)))

    def set_edit_note(self, text: str) -> None:
        """"" hides it (nothing is answered yet, so an edit costs nothing)."""
        self.edit_note.setText(text)
        self.edit_note.setVisible(bool(text))

    def add_label(self) -> None:
        names = {n.lower() for n in self.label_set.names}
        name = next(f"label{k}" for k in range(len(names) + 1, 10 * len(names) + 2) if f"label{k}" not in names)
        self._apply(LabelSet(self.label_set.labels + (Label(name),), self.label_set.examples))
        self.labels.editItem(self.labels.item(self.labels.rowCount() - 1, 0))

    def remove_selected_label(self) -> None:
        rows = {i.row() for i in self.labels.selectedIndexes()}
        if not rows:
            return
        keep = tuple(l for k, l in enumerate(self.label_set.labels) if k not in rows)
        names, before = {l.name for l in keep}, self.label_set
        try:
            self._apply(LabelSet(keep, tuple(e for e in self.label_set.examples if e.label in names)))
        except ValueError as exc:
            self._show_error(str(exc))
            return
        self.removed.keep(self._axis, before, self.label_set)

    def add_example(self, text: str, label: str) -> None:
        text = str(text).strip()
        if not text:
            self._show_error("that ticket is blank")
            return
        if any(e.text == text for e in self.label_set.examples):
            self._show_error("that ticket is already an example")
            return
        try:    # a ticket's text that no prompt takes is said, never raised inside a slot
            example = Example(text, label)
        except ValueError as exc:
            self._show_error(str(exc))
            return
        self._apply(LabelSet(self.label_set.labels, self.label_set.examples + (example,)))

    def add_corrections(self, corrections: list[tuple[str, str]], ask_first: bool) -> int | None:
        """(ticket, label) pairs a person chose become examples, those not examples already. ask_first:
        say why they may be poor examples and add them only if the user agrees. Returns how many were
        added (0: the user said no); None when none was new."""
        known = {e.text for e in self.label_set.examples}
        try:
            new = tuple(Example(text, label) for text, label in ((str(t).strip(), l) for t, l in corrections)
                        if text and text not in known)
        except ValueError as exc:
            self._show_error(str(exc))
            return None
        if not new:
            return None
        if ask_first and not self._confirm("Add corrections as examples?", CORRECTIONS_WARNING):
            return 0
        self.set_label_set(self.label_set.with_examples(self.label_set.examples + new), announce=True)
        return len(new)

    def _confirm(self, title: str, text: str) -> bool:
        yes, no = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
        box = QMessageBox(QMessageBox.Icon.Question, title, text, yes | no, self)
        box.setDefaultButton(no)
        box.exec()
        return box.clickedButton() is box.button(yes)

    def remove_selected_example(self) -> None:
        rows = {i.row() for i in self.examples.selectedIndexes()}
        if rows:
            self._apply(LabelSet(self.label_set.labels,
                                 tuple(e for k, e in enumerate(self.label_set.examples) if k not in rows)))

    def suggest_example_label(self, label: str | None) -> None:
        if label in self.label_set.names:
            self.example_label.setCurrentText(label)

    def load(self, path: str) -> bool:
        """A label-set file: one label set, or several fields (every one replaces the fields shown)."""
        try:
            axes = Axes.load(path)
        except (OSError, ValueError) as exc:
            self.message.emit(f"Cannot load labels: {exc}")
            return False
        self.set_axes(axes, announce=True, axis=axes.first.name)
        self.message.emit(f"Loaded {len(axes.first.label_set.labels)} labels from {path}" if len(axes) == 1 else
                          f"Loaded {len(axes)} fields ({', '.join(axes.names)}) from {path}")
        return True

    def save(self, path: str) -> bool:
        """Written whole or not at all; never over the ticket file open in the window or its results database."""
        from triage_app.files import output_paths
        from triage_app.files.export import write_text

        window = self.window()      # the open file and the database are the window's; a panel alone has neither
        table, db = getattr(window, "table", None), getattr(window, "db", None)
        kept = output_paths.kept_from(path, table.path if table else None, db.path if db else None)
        if kept:
            self.message.emit(f"Cannot save labels: {kept}, and the label set would replace it. Choose another name.")
            return False
        try:
            write_text(path, self._axes.file_text())
        except (OSError, ValueError) as exc:
            self.message.emit(f"Cannot save labels: {exc}")
            return False
        self.message.emit(f"Saved the labels to {path}")
        return True

    # editing
    def _edited(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        labels, renames = [], {}
        aliases = {label.name: label.alias for label in self.label_set.labels}   # not shown here: kept as they were
        for r in range(self.labels.rowCount()):
            name_item, description_item = self.labels.item(r, 0), self.labels.item(r, 1)
            name, old = (name_item.text().strip(), name_item.data(_COMMITTED)) if name_item else ("", None)
            name = name if name == old else self.spelling(name)     # a name typed, not one left as it was
            description = " ".join((description_item.text() if description_item else "").split())
            if old and old != name:
                renames[old] = name
            labels.append((name, description, aliases.get(old, "")))
        try:
            label_set = LabelSet(tuple(Label(n, d, a) for n, d, a in labels),
                                 tuple(Example(e.text, renames.get(e.label, e.label))
                                       for e in self.label_set.examples))
        except ValueError as exc:
            self._show_error(f"{exc} — not applied yet")
            return
        problem = self.rename_problem(renames) if renames else None
        if problem:
            self._show_error(f"{problem} — not applied yet")
            return
        if renames:
            self.renamed.emit(renames)
        self._apply(self.removed.restored(self._axis, self.label_set, label_set))

    def _apply(self, label_set: LabelSet) -> None:
        self._show_error("")
        self.set_label_set(label_set)

    def _use_selected(self) -> None:
        if self.example_label.currentText():
            self.example_requested.emit(self.example_label.currentText())

    def _fill(self) -> None:
        self._filling = True
        try:
            self.axis_picker.show_axes(self._axes.names, self._axis)
            label_set = self.label_set
            self.labels.setRowCount(len(label_set.labels))
            for r, label in enumerate(label_set.labels):
                name = QTableWidgetItem(label.name)
                name.setData(_COMMITTED, label.name)
                self.labels.setItem(r, 0, name)
                self.labels.setItem(r, 1, QTableWidgetItem(label.description))
            self.examples.setRowCount(len(label_set.examples))
            for r, example in enumerate(label_set.examples):
                self.examples.setItem(r, 0, QTableWidgetItem(example.label))
                text = QTableWidgetItem(example.text.replace("\n", " ⏎ "))
                text.setToolTip(plain_text.tooltip(example.text))
                self.examples.setItem(r, 1, text)
            current = self.example_label.currentText()
            self.example_label.clear()
            self.example_label.addItems(label_set.names)
            if current in label_set.names:
                self.example_label.setCurrentText(current)
        finally:
            self._filling = False

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def _load_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load labels", "", "Label sets (*.json)")
        if path:
            self.load(path)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save labels", "labels.json", "Label sets (*.json)")
        if path:
            self.save(path)


def _as_axes(labels: Axes | LabelSet) -> Axes:
    return labels if isinstance(labels, Axes) else Axes.of(labels)


def _button(text, slot, layout) -> QPushButton:
    button = QPushButton(text)
    button.clicked.connect(lambda *_: slot())
    layout.addWidget(button)
    return button

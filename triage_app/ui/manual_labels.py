"""What the person has labelled: the labels in the table model, written to the results database off
the UI thread, read back when the rows or the label set change, taught to live learning, and
turned into few-shot examples when asked.

The window tells this object when the rows (the ticket texts) or the label set change; the labels
are keyed by the label set's fingerprint and each ticket's text, so they resume with the file.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from triage_app.engine.labels import LabelSet


class ManualLabels(QObject):
    changed = Signal()           # a label given or taken back: counts and accuracy follow
    message = Signal(str, int)   # one line for the status bar, and how long it stays (ms)
    failed = Signal(str)         # one line for the message bar

    def __init__(self, label_set: LabelSet, model, view, db, labels_panel, learning, parent=None):
        """model, view: the ticket table's TicketTableModel and TicketView; db: the ResultsDb;
        labels_panel: the LabelsPanel; learning: the LearningSession."""
        super().__init__(parent)
        self.label_set = label_set
        self.texts: list[str] = []
        self.model, self.view, self.db = model, view, db
        self.labels_panel, self.learning = labels_panel, learning
        model.manual_changed.connect(self._given)
        view.selectionModel().selectionChanged.connect(self._selection_changed)
        labels_panel.example_requested.connect(self.use_as_example)

    def file_opened(self, texts: list[str]) -> None:
        """A new file: its labels came with it (the reader read them back); learning starts from them."""
        self.texts = texts
        self.learning.file_changed(texts, self.label_set.names)

    def texts_changed(self, texts: list[str]) -> None:
        """Another text column: other rows, so the labels given for them are read back."""
        self.texts = texts
        self.load()
        self.learning.file_changed(texts, self.label_set.names)

    def label_set_changed(self, label_set: LabelSet) -> None:
        """Call after the table took the new names."""
        old, self.label_set = self.label_set, label_set
        if label_set.names != old.names:
            self.load()
            self.learning.file_changed(self.texts, label_set.names)
        else:
            # same names: a person's labels still mean the same, so they follow the new prompt
            self.store()

    def store(self) -> None:
        """Write every label in the table under the current label set (written off this thread)."""
        for row, label in self.model.manual_labels.items():
            self.db.set_manual(self.label_set.fingerprint, self.texts[row], label)

    def load(self) -> None:
        manual = self.db.manual_labels(self.label_set.fingerprint, self.texts) if self.texts else None
        if manual is not None:      # None: no database; the labels in the table are all there is
            self.model.set_manual_labels(manual)

    def take_column(self, column: str, values: list) -> None:
        """Offer a column's values as the label set and its filled rows as the person's labels."""
        taken = self.learning.offer_column(column, values, self.parent())
        if taken:
            names, labels = taken
            self.labels_panel.set_label_set(LabelSet.from_names(names), announce=True)
            self.model.set_manual_labels({**labels, **self.model.manual_labels})
            self.store()
            self.learning.label_given()

    def promote(self, ask_first: bool) -> None:
        """Tickets a person labeled become few-shot examples (the prefix is encoded once more, then reused)."""
        corrections = [(self.texts[row], label) for row, label in sorted(self.model.manual_labels.items())]
        added = self.labels_panel.add_corrections(corrections, ask_first=ask_first)
        if added is None:
            self.failed.emit("No new corrections to add: label tickets by hand first (keys 1–9).")
        elif added:
            self.message.emit(f"{added} correction(s) added as examples: Run again to use them.", 10_000)

    def use_as_example(self, label: str) -> None:
        rows = self.view.selected_source_rows()
        if not rows:
            self.failed.emit("Select a ticket in the table first, then “Use as example of”.")
            return
        self.labels_panel.add_example(self.texts[rows[0]], label)

    def _selection_changed(self, *_) -> None:
        rows = self.view.selected_source_rows()
        if rows:
            self.labels_panel.suggest_example_label(self.model.label_of(rows[0]))

    def _given(self, row: int, label: str | None) -> None:
        self.db.set_manual(self.label_set.fingerprint, self.texts[row], label)   # written off this thread
        self.learning.label_given()
        self.changed.emit()

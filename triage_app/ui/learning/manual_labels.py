"""What the person has labelled: every label they gave the open file (review.person_labels), the
ones of the current label set shown in the table, each change written to the results database off
the UI thread, taught to live learning, and turned into few-shot examples when asked.

A label belongs to a ticket of a file (its row), by the label's name: another text column, a
description or an example changes none; a rename carries them along; a removed label's are set
aside, counted, and shown again when it returns. The file reader reads them with the file, so
nothing here waits on the database.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from triage_app.engine.labels import LabelSet
from triage_app.review.person_labels import PersonLabels


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
        self.person = PersonLabels()
        self.given_here: set[tuple[str, int]] = set()   # (file, row) labelled in this window, saved or not
        self.model, self.view, self.db = model, view, db
        self.labels_panel, self.learning = labels_panel, learning
        model.manual_changed.connect(self._given)
        view.selectionModel().selectionChanged.connect(self._selection_changed)
        labels_panel.example_requested.connect(self.use_as_example)
        labels_panel.renamed.connect(self.rename)
        labels_panel.rename_problem = self.rename_problem

    def file_opened(self, texts: list[str], person: PersonLabels) -> None:
        """A new file, with the labels the reader read for it; learning starts from them."""
        self.texts, self.person = texts, person
        self._show()
        self.learning.file_changed(texts, self.label_set.names)
        if person.not_found:
            self.message.emit(f"{person.not_found:,} of your labels are for tickets this file no longer "
                              "holds: they are kept, in case the ticket comes back.", 15_000)

    def texts_changed(self, texts: list[str]) -> None:
        """Another text column: the same tickets, so the same labels; learning reads the new texts."""
        self.texts = texts
        self.learning.file_changed(texts, self.label_set.names)

    def rename_problem(self, renames: dict[str, str]) -> str | None:
        """A rename of a label with labels onto a name whose labels are set aside would merge the two
        for good: refused. (A new label named so brings the set-aside ones back, as it should.)"""
        aside, given = self.person.set_aside(self.label_set.names), set(self.person.given.values())
        taken = [new for old, new in renames.items() if aside.get(new) and old in given]
        if not taken:
            return None
        return (f"“{taken[0]}” has {aside[taken[0]]:,} of your labels set aside: renaming onto it would merge them "
                f"with these. Add “{taken[0]}” back first, or choose another name")

    def rename(self, renames: dict[str, str]) -> None:
        """Labels renamed in the label set (before it changes): their tickets' labels follow."""
        self.person.rename(renames)
        self.db.rename_labels(self.person.file, renames)

    def label_set_changed(self, label_set: LabelSet) -> None:
        """Call after the table took the new names."""
        old, self.label_set = self.label_set, label_set
        if label_set.names != old.names:
            self._show()
            self.learning.file_changed(self.texts, label_set.names)
            aside = self.person.set_aside(label_set.names)
            if aside:
                self.message.emit(f"{sum(aside.values()):,} of your labels set aside ("
                                  + ", ".join(f"{name}: {n:,}" for name, n in aside.items())
                                  + "): they are back when the label is.", 15_000)

    def store(self) -> None:
        """Write every label of the file (a fresh database after an unusable one)."""
        if self.person.given:
            self.db.set_person_labels(self.person.file, self.person.rows())
        self.given_here.clear()

    def unsaved(self) -> int:
        """Labels this window took while the database cannot be used: none of them is on disk."""
        if self.db.problem is None:
            return 0
        return sum(1 for file, row in self.given_here if file == self.person.file and row in self.person.given)

    def take_column(self, column: str | None) -> None:
        """Offer a column's values as the label set and its filled rows as the person's labels (the
        dialog starts on this column, or the best one, and lets the person choose); a label the
        person gave by hand (shown or set aside) is theirs, never replaced."""
        taken = self.learning.offer_column(column, self.parent())
        if taken:
            names, labels = taken
            self.labels_panel.set_label_set(LabelSet.from_names(names), announce=True)
            new = {row: label for row, label in labels.items() if row not in self.person.given}
            self.db.set_person_labels(self.person.file, self.person.give_many(new))
            self.given_here.update((self.person.file, row) for row in new)
            self._show()
            self.learning.label_given()

    def _show(self) -> None:
        self.model.set_manual_labels(self.person.shown(self.label_set.names))
        self.changed.emit()

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
        self.db.set_person_labels(self.person.file, self.person.give(row, label))   # written off this thread
        self.given_here.add((self.person.file, row))
        self.learning.label_given()
        self.changed.emit()

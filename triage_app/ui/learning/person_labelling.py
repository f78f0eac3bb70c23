"""What the person has labelled: every label they gave the open file (review.person_labels), kept
here once per field and read by the table itself (it shows those of the current label set), each
change written to the results database off the UI thread, taught to live learning, and turned into
few-shot examples when asked.

A label belongs to a ticket of a file (its row), by the label's name: another text column, a
description or an example changes none; a rename carries them along; a removed label's are set
aside, counted, and shown again when it returns. The file reader reads them with the file, so
nothing here waits on the database.

With several fields (queue, priority), a label is a fact about one ticket on one field: each field
has its PersonLabels, written under its name, shown in its own decision column, and kept when the
field is removed (back when a field of that name is). What names no field works on the current one.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import TimeoutError as FutureTimeout

from PySide6.QtCore import QObject, Signal

from triage_app.engine.axes import Axes
from triage_app.engine.labels import LabelSet, folded
from triage_app.files.clean import model_texts
from triage_app.files.field_renames import refusal
from triage_app.files.label_places import replayed
from triage_app.files.moved_labels import SAID
from triage_app.review.person_labels import PersonLabels


# a rename is the database's too (other windows, the command line follow it): not made where it cannot be written
WAITING = "the results database cannot be written for now: rename once it works again (Try again above the table)"


class PersonLabelling(QObject):
    changed = Signal()           # a label given or taken back: counts and accuracy follow
    message = Signal(str, int)   # one line for the status bar, and how long it stays (ms)
    failed = Signal(str)         # one line for the message bar

    def __init__(self, axes: Axes, model, view, db, labels_panel, learning, parent=None):
        """model, view: the ticket table's TicketTableModel and TicketView; db: the ResultsDb;
        labels_panel: the LabelsPanel; learning: the LearningSession."""
        super().__init__(parent)
        self.axes = axes
        self.texts: list[str] = []
        self.people: dict[str, PersonLabels] = {}       # field -> the labels given on it, shown or not
        self.labelled_here: set[tuple[str, str, int]] = set()   # (file, field, row) labelled here, saved or not
        # (file, field, row, row hash, label) given while a file is read: the reader's copy may predate them
        self._since_read: list[tuple[str, str, int, str, str | None]] | None = None
        # (the rename's number, file, field, {old label: new} or None, the field's new name or None) made while
        # a file is read: the reader's copy of that file predates those the database had not made when it read it
        self._renamed_since_read: list[tuple[int, str, str, dict[str, str] | None, str | None]] = []
        self.model, self.view, self.db = model, view, db
        self.labels_panel, self.learning = labels_panel, learning
        model.person_label_changed.connect(self._person_label_changed)
        view.selectionModel().selectionChanged.connect(self._selection_changed)
        view.said.connect(lambda line: self.message.emit(line, 10_000))
        labels_panel.example_requested.connect(self.use_as_example)
        labels_panel.renamed.connect(self.rename)
        labels_panel.rename_problem = self.rename_problem
        labels_panel.spelling = self.set_aside_spelling
        db.redirected.connect(self._redirected)
        db.labels_redirected.connect(self._labels_redirected)
        db.rename_refused.connect(self._rename_refused)
        db.labels_rename_refused.connect(self._labels_rename_refused)

    @property
    def label_set(self) -> LabelSet:
        """The current field's label set."""
        return self.axes.named(self.model.current_axis).label_set

    @property
    def person(self) -> PersonLabels:
        """The labels given on the current field."""
        return self.person_of(self.model.current_axis)

    def person_of(self, axis: str) -> PersonLabels:
        if axis not in self.people:      # a field new to this file: none given yet
            some = next(iter(self.people.values()), PersonLabels())
            self.people[axis] = PersonLabels(some.file, some.row_hashes, axis=axis)
        return self.people[axis]

    def reading(self) -> None:
        """A file is being read: labels given and renames made until it is open are kept to lay over what the
        reader read."""
        self._since_read, self._renamed_since_read = [], []

    def file_opened(self, texts: list[str], read) -> str:
        """A new file, with the labels the reader read for it (background/file_reading.ReadPeople); learning
        starts from them. Returns what the window says of them ("" when all are shown): labels of tickets the
        file no longer holds, and labels under names the label set does not have (set aside)."""
        self.texts, self.people = texts, dict(read.people)
        self._rename_since_read(read.renames_made)
        self._replay_since_read()
        self._show()
        self.learning.file_changed(texts, self._names())
        said = [f"The field “{axis}” was renamed “{person.stored_as}” on this file in another window: its labels show "
                f"here and are saved under “{person.stored_as}”. Rename it “{person.stored_as}” here too."
                for axis, person in self.people.items() if person.stored_as not in ("", axis)]
        if read.moved_from:
            said.append(f"{SAID.format(read.moved_from)}.")
        not_found = sum(person.not_found for person in self.people.values())
        if not_found:
            said.append(f"{not_found:,} of your labels are for tickets this file no longer holds: they are kept, "
                        "in case the ticket comes back.")
        shown = self._names()
        asides = {axis: self.person_of(axis).set_aside(names) for axis, names in shown.items()}
        aside = sum(asides.values(), Counter())
        if aside:
            said.append(self._aside_line(aside))
        # set aside under the name a label shown here was given since (another window's rename, after this
        # label set was saved): how to show them
        for axis, names in shown.items():
            person = self.person_of(axis)
            said += [f"“{old}” was renamed “{now}” on this file since this label set was saved: rename it “{now}” "
                     "here to show its labels." for now in asides[axis] for old in person.renamed_from(names, now)]
        return " ".join(said)

    @staticmethod
    def _aside_line(aside: Counter) -> str:
        counts = ", ".join(f"{name}: {n:,}" for name, n in aside.items())
        return f"{sum(aside.values()):,} of your labels set aside ({counts}): they are back when the label is."

    def _rename_since_read(self, made: int) -> None:
        """The renames made while the file was read that the database had not made when the reader read its
        labels: laid over the reader's copy, in order (a field's labels follow it, a label's tickets theirs)."""
        renamed, self._renamed_since_read = self._renamed_since_read, []
        for number, file, axis, labels, new in renamed:
            person = self.people.get(axis)
            if number <= made or person is None or person.file != file:   # made, or another file's
                continue
            if labels is not None:
                person.rename(labels)
            elif new not in self.people or not self.people[new].labels:
                person.axis, person.stored_as = new, new if person.stored_as in ("", axis) else person.stored_as
                self.people[new] = self.people.pop(axis)

    def _replay_since_read(self) -> None:
        """The same file read again: a label given while it was read may have reached the database after the
        reader's copy, under the row it had. Each is laid over that copy where its ticket is now (placed as the
        database places labels, all at once) and written there; its entry under the row it had is taken back,
        or it would come back, or hide the label, at the next reading."""
        given, self._since_read = self._since_read or [], None
        for file, axis in dict.fromkeys((f, a) for f, a, *_ in given):
            person = self.person_of(axis)
            if person.file != file:
                continue
            now, stale = replayed([entry for f, a, *entry in given if (f, a) == (file, axis)], person.row_hashes)
            for row, h in stale:
                self.db.set_person_labels(file, {row: (h, None)}, person.axis)
            change = {}
            for row, label in now.items():
                change.update(person.give(row, label))
            self.db.set_person_labels(file, change, person.axis)

    def _note(self, person: PersonLabels, rows: dict[int, str | None]) -> None:
        self.labelled_here.update((person.file, person.axis, row) for row in rows)
        if self._since_read is not None:
            self._since_read += [(person.file, person.axis, row, person.key(row), label)
                                 for row, label in rows.items()]

    def texts_changed(self, texts: list[str]) -> None:
        """Another text column: the same tickets, so the same labels; learning reads the new texts."""
        self.texts = texts
        self.learning.file_changed(texts, self._names())

    def _names(self) -> dict[str, list[str]]:
        return {axis.name: axis.names for axis in self.axes}

    def set_aside_spelling(self, name: str) -> str:
        """The name as a label set aside on this field spells it, where the two are one name to a person (case
        and accent spelling aside, as LabelSet tells names apart): its labels then come back with it."""
        aside = self.person.set_aside(self.label_set.names)
        return next((old for old in aside if folded(old) == folded(name)), name)

    def rename_problem(self, renames: dict[str, str]) -> str | None:
        """A rename of a label with labels onto a name whose labels are set aside would merge the two
        for good: refused. (A new label named so brings the set-aside ones back, as it should.) The
        database says the same of labels this window does not hold (another window's, an edited ticket's:
        files.field_renames.label_refusal); while the writer is busy, it decides on the way."""
        aside, given = self.person.set_aside(self.label_set.names), set(self.person.labels.values())
        taken = [new for old, new in renames.items() if aside.get(new) and old in given]
        if taken:
            return (f"“{taken[0]}” has {aside[taken[0]]:,} of your labels set aside: renaming onto it would merge "
                    f"them with these. Add “{taken[0]}” back first, or choose another name")
        if not self.person.file:
            return None
        if self.db.problem and self.db.passing:
            return WAITING
        try:
            return self.db.label_rename_problem(self.person.file, renames, self.person.axis)
        except FutureTimeout:
            return None

    def rename(self, renames: dict[str, str]) -> None:
        """The current field's labels renamed (before the set changes): their tickets' labels follow."""
        person = self.person
        person.rename(renames)
        number = self.db.rename_labels(person.file, renames, person.axis)
        if self._since_read is not None:    # labels given while a file is read follow their name too
            self._renamed_since_read.append((number, person.file, person.axis, dict(renames), None))
            self._relabel_since_read(person.file, person.axis, renames)

    def axis_rename_problem(self, old: str, new: str) -> str | None:
        """A field renamed onto a name that holds labels of this file would merge the two: refused. The
        database decides (it knows labels this window cannot place, and other windows' labels); while it
        cannot be used, the same rule on what this window holds."""
        person = self.person_of(old)
        if not person.file or old == new:
            return None
        if self.db.problem and self.db.passing:
            return WAITING
        try:
            problem = self.db.axis_rename_problem(person.file, old, new)
            if self.db.problem is None:
                return problem
        except FutureTimeout:       # the writer is busy: the window's own rule now, the writer's on the way
            pass
        held = self.people.get(new)
        return refusal(new, len(held.labels) + held.not_found if held else 0)

    def rename_axis(self, old: str, new: str) -> None:
        """A field renamed (before the set changes): its labels follow, in the window and the database,
        which remembers the rename for every window on this file (files.field_renames)."""
        person = self.person_of(old)
        self.people.pop(old)
        person.axis = new
        self.people[new] = person
        if self._since_read is not None:    # labels given while a file is read follow their field too
            self._since_read = [(file, new if axis == old else axis, *given) for file, axis, *given in self._since_read]
        if person.file:
            number = self.db.rename_axis(person.file, old, new)
            if self._since_read is not None:
                self._renamed_since_read.append((number, person.file, old, None, new))

    def _rename_refused(self, file: str, old: str, new: str, why: str) -> None:
        """The database kept the field under its old name after this window's check let the rename through
        (another window gave labels under the new name meanwhile): the window takes it back, every part of
        it (ui/fields), so the labels given since stay with the field's others, and says why."""
        names, person = self.labels_panel.axes.names, self.people.get(new)
        if person is None or person.file != file or old in self.people:
            self.db.rename_axis(file, new, old)     # another file open, or a field named so since: the database alone
        elif new in names and old not in names:
            self.labels_panel.rename_axis(new, old, ask=False)
        else:       # the field was removed since: its labels alone
            self.rename_axis(new, old)
        if self._since_read is not None:    # the rename and its taking back: neither laid over a read's copy
            self._unrecord(file, old, None, new)
            self._unrecord(file, new, None, old)
        self.failed.emit(f"The field “{old}” was not renamed “{new}”: {why}.")

    def _relabel_since_read(self, file: str, axis: str, renames: dict[str, str]) -> None:
        """The labels given on a file's field while the file is read, under the names these renames give them."""
        self._since_read = [(f, a, row, h, renames.get(label, label) if (f, a) == (file, axis) else label)
                            for f, a, row, h, label in self._since_read]

    def _unrecord(self, file: str, axis: str, labels: dict[str, str] | None, new: str | None) -> None:
        """The latest rename of these made while a file is read, forgotten (the database refused it)."""
        for k in range(len(self._renamed_since_read) - 1, -1, -1):
            if self._renamed_since_read[k][1:] == (file, axis, labels, new):
                del self._renamed_since_read[k]
                return

    def _labels_rename_refused(self, file: str, axis: str, back: dict[str, str], why: str) -> None:
        """The database kept a field's labels under their old names after this window's check let the renames
        through (another window gave labels under a new name meanwhile): the window takes them back (the
        label editor and the labels given, every part a rename changes) and says why."""
        if self._since_read is not None:    # never made: not laid over the copy a file's read brings
            self._unrecord(file, axis, {old: new for new, old in back.items()}, None)
            self._relabel_since_read(file, axis, back)
        person, panel = self.people.get(axis), self.labels_panel
        if person is None or person.file != file:
            self.db.rename_labels(file, back, axis)     # another file open: the writer's part alone
        elif axis not in panel.axes.names or panel.can_rename_labels(axis, back):   # removed since: its labels alone
            person.rename(back)                         # before the set changes, as a rename by hand
            self.db.rename_labels(file, back, axis)     # the writer's: it never made them
            panel.rename_labels(axis, back)
        names = ", ".join(f"“{old}” was not renamed “{new}”" for new, old in back.items())
        self.failed.emit(f"The label {names}: {why}.")

    def from_file(self, axis: str) -> frozenset[int]:
        """The field's rows whose label was taken from the file's own column: the helpdesk's value already,
        never sent back as an update (files.updates)."""
        return frozenset(self.person_of(axis).from_file)

    def _redirected(self, file: str, axis: str, now: str) -> None:
        if axis in self.people and self.people[axis].file == file:
            self.failed.emit(f"The field “{axis}” was renamed “{now}” in another window on this file: your labels "
                             f"on it are saved under “{now}”. Rename it “{now}” here too.")

    def _labels_redirected(self, file: str, axis: str, now: dict) -> None:
        if axis in self.people and self.people[axis].file == file:
            renamed = ", ".join(f"“{old}” to “{new}”" for old, new in now.items())
            self.failed.emit(f"Another window on this file renamed the label {renamed}: your labels under the old "
                             "name are saved under the new one. Rename it here too, or reopen the file.")

    def axes_changed(self, axes: Axes) -> None:
        """Call after the table took the new fields and names."""
        old, self.axes = self._names(), axes
        new = self._names()
        if new == old:
            return
        self._show()
        self.learning.file_changed(self.texts, new)
        for axis, names in new.items():
            aside = self.person_of(axis).set_aside(names) if names != old.get(axis) else None
            if aside:
                self.message.emit(self._aside_line(aside), 15_000)

    def store(self) -> None:
        """Write every label of the file, every field's, and the rows whose label was taken back here (a fresh
        database after an unusable one, or the same one working again: it holds them still)."""
        for person in self.people.values():
            cleared = {row: None for file, axis, row in self.labelled_here
                       if (file, axis) == (person.file, person.axis) and row not in person.labels}
            if person.labels or cleared:
                self.db.set_person_labels(person.file, {**person.rows(), **person.rows(cleared)}, person.axis,
                                          person.from_file)
        self.labelled_here.clear()

    def unsaved(self) -> int:
        """Labels this window took while the database cannot be used: none of them is on disk."""
        if self.db.problem is None:
            return 0
        return sum(1 for file, axis, row in self.labelled_here
                   if axis in self.people and file == self.people[axis].file and row in self.people[axis].labels)

    def set_aside(self) -> int:
        """How many labels are set aside now, on every field (their label is not in the field's set)."""
        return sum(sum(self.person_of(axis).set_aside(names).values()) for axis, names in self._names().items())

    def take_column(self, column: str | None) -> None:
        """Offer a column's values as the label set and its filled rows as the person's labels (the
        dialog starts on this column, or the best one, and lets the person choose); a label the
        person gave by hand (shown or set aside) is theirs, never replaced."""
        taken = self.learning.offer_column(column, self.parent())
        if taken:
            names, labels = taken
            person = self.person       # the current field's: the column's values become its labels
            self._respell(person, names)
            self.labels_panel.set_label_set(self.label_set.for_names(names), announce=True)
            new = {row: label for row, label in labels.items() if row not in person.labels}
            self.db.set_person_labels(person.file, person.give_many(new, from_file=True), person.axis, set(new))
            self._note(person, new)
            self._show()
            self.learning.person_labelled(person.axis)

    def _respell(self, person: PersonLabels, names: list[str]) -> None:
        """Labels given under a name the column spells otherwise ("billing", the column "Billing": one name to a
        person) take the column's spelling, the helpdesk's; never onto a name that holds labels already."""
        spelled = {folded(name): name for name in names}
        held = [*self.label_set.names, *person.set_aside(self.label_set.names)]
        renames = {}
        for old in held:
            new = spelled.get(folded(old), old)
            if new != old and new not in held and new not in renames.values():
                renames[old] = new
        if renames:
            self.rename(renames)

    def _show(self) -> None:
        for axis, names in self._names().items():
            self.model.show_person_labels(self.person_of(axis), axis)     # the one PersonLabels: the table reads it
        self.changed.emit()

    def promote(self, ask_first: bool) -> None:
        """Tickets a person labeled become few-shot examples (the prefix is encoded once more, then reused)."""
        corrections = [(self._as_read(row), label) for row, label in sorted(self.model.person_labels.items())]
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
        self.labels_panel.add_example(self._as_read(rows[0]), label)

    def _as_read(self, row: int) -> str:
        """The ticket as the model reads it (the window's cleaning: no HTML, no signature): an example shows the
        model what tickets look like, so it is one as they are read, as eval --examples-per-label builds them."""
        return model_texts([self.texts[row]], self.parent().remembered.cleaning)[0]

    def _selection_changed(self, *_) -> None:
        rows = self.view.selected_source_rows()
        if rows:
            self.labels_panel.suggest_example_label(self.model.label_of(rows[0]))

    def _person_label_changed(self, row: int, label: str | None, axis: str) -> None:
        person = self.person_of(axis)     # the table has written the label into it (FileAnswers.set_person_label)
        change = person.rows({row: label})
        self.db.set_person_labels(person.file, change, axis, person.from_file & change.keys())   # off this thread
        self._note(person, {row: label})
        self.learning.person_labelled(axis)
        self.changed.emit()


"""The labels a person gave one open file on one axis: every one of them, whatever the label set says now.

The label set decides which are shown (those whose name it has), never which are kept: a label
removed from the set sets its tickets' labels aside, counted, and they are back when it returns; a
rename carries them along; a description or an example changes none. Each change comes back as the
rows to write, {row: (row hash, label or None)}, for the results database (files.store).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from triage_app.engine.axes import PLAIN

Change = dict[int, tuple[str, "str | None"]]


@dataclass(slots=True)
class PersonLabels:
    file: str = ""                                      # files.ticket_keys.file_key; "" for no file
    row_hashes: list[str] = field(default_factory=list)
    labels: dict[int, str] = field(default_factory=dict)  # row -> label name, shown or set aside
    not_found: int = 0                                  # stored for tickets the file no longer holds
    axis: str = PLAIN                                   # the field these labels set (engine.axes)
    from_file: set[int] = field(default_factory=set)    # rows whose label is the file's own column's, not typed
    renamed: dict[str, str] = field(default_factory=dict)  # a label's old name -> its name now, on this file
    stored_as: str = ""     # the field's name in the database, where another window renamed it since ("": axis)

    def read(self, stored) -> None:
        """Take what the database holds for these rows (files.label_places.FileLabels)."""
        self.labels, self.not_found, self.from_file = dict(stored.labels), stored.not_found, set(stored.from_file)
        self.renamed = dict(stored.renamed)

    def shown(self, names: list[str]) -> dict[int, str]:
        """The labels of these names: what the table shows and the export writes."""
        known = set(names)
        return {row: label for row, label in self.labels.items() if label in known}

    def set_aside(self, names: list[str]) -> Counter:
        """{label name: count} of the labels whose name is not among these."""
        known = set(names)
        return Counter(label for label in self.labels.values() if label not in known)

    def renamed_from(self, names: list[str], aside: str) -> list[str]:
        """The names among these that a rename on this file made `aside`: a label set saved before the rename
        (another window's, saved last) shows the old name, and the labels are under the new one."""
        return [name for name in names if self.renamed.get(name) == aside]

    def give(self, row: int, label: str | None) -> Change:
        """label None: taken back."""
        self.set(row, label)
        return self.rows({row: label})

    def set(self, row: int, label: str | None) -> None:
        """give, for answers that write no database (review.answers.FileAnswers: a key press). A label
        typed over the file's own is the person's (the same one stays the file's)."""
        if label != self.labels.get(row):
            self.from_file.discard(row)
        if label is None:
            self.labels.pop(row, None)
        else:
            self.labels[row] = label

    def give_many(self, labels: dict[int, str], from_file: bool = False) -> Change:
        """from_file: read from the file's own column, the helpdesk's values already."""
        self.labels.update(labels)
        if from_file:
            self.from_file.update(labels)
        else:
            self.from_file.difference_update(labels)
        return self.rows(labels)

    def rename(self, renames: dict[str, str]) -> None:
        """{old name: new name}, applied at once (a swap of two names is a swap)."""
        self.labels = {row: renames.get(label, label) for row, label in self.labels.items()}

    def rows(self, labels: dict[int, "str | None"] | None = None) -> Change:
        """These labels (all of them by default) as rows to write."""
        labels = self.labels if labels is None else labels
        return {row: (self.key(row), label) for row, label in labels.items()}

    def key(self, row: int) -> str:
        """The row's hash, with its ticket where the hashes know it (files.ticket_keys.RowHashes.keyed)."""
        return getattr(self.row_hashes, "keyed", self.row_hashes.__getitem__)(row)

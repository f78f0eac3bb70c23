"""The table's decision columns: label, confidence and margin for each field (axis) a run classifies.

Each field's answers are a review.answers.FileAnswers of their own, kept by the field's name, so
one field's labels never mix with another's. A plain label set is one field named "label", and its
columns are today's three (label, confidence, margin). The current field is the one the keys 1–9,
the filters, the review queue and the accuracy tab work on: it follows the decision column selected.
"""

from __future__ import annotations

from triage_app.review.answers import FileAnswers

LABEL, CONFIDENCE, MARGIN = 0, 1, 2          # within a field's columns; the plain set's columns as they are
RESULT_HEADERS = ("label", "confidence", "margin")
PLAIN = "label"                              # engine.axes.PLAIN: the field of a plain label set
PER_AXIS = len(RESULT_HEADERS)
CURRENT_MARK = "▸ "                          # before the current field's name in its column's header


class Decisions:
    def __init__(self):
        self._answers: dict[str, FileAnswers] = {PLAIN: FileAnswers()}
        self.current = PLAIN
        self._by_column: list[FileAnswers] = []
        self._index()

    # the fields
    @property
    def axes(self) -> list[str]:
        return list(self._answers)

    @property
    def names(self) -> dict[str, list[str]]:
        """{field: its label names}, in the fields' order."""
        return {axis: answers.label_names for axis, answers in self._answers.items()}

    def set_axes(self, names: dict[str, list[str]], rows: int) -> bool:
        """The fields and their label names; a field kept keeps its answers unless its names changed.
        False: nothing changed."""
        if list(names.items()) == list(self.names.items()):
            return False
        kept = {}
        for axis, label_names in names.items():
            answers = self._answers.get(axis) or FileAnswers(rows, label_names)
            answers.set_label_names(label_names)
            kept[axis] = answers
        self._answers = kept
        if self.current not in kept:
            self.current = next(iter(kept))
        self._index()
        return True

    def rename_axis(self, old: str, new: str) -> None:
        """The same answers under the field's new name."""
        self._answers = {new if axis == old else axis: answers for axis, answers in self._answers.items()}
        self.current = new if self.current == old else self.current
        self._index()

    def of(self, axis: str | None = None) -> FileAnswers:
        """A field's answers (the current field's by default)."""
        return self._answers[self.current if axis is None else axis]

    def has(self, axis: str) -> bool:
        return axis in self._answers

    def clear(self, rows: int) -> None:
        for answers in self._answers.values():
            answers.clear(rows)

    def clear_predictions(self) -> None:
        for answers in self._answers.values():
            answers.clear_predictions()

    # the columns
    @property
    def count(self) -> int:
        """How many decision columns lead the table."""
        return len(self._by_column)

    def at(self, column: int) -> FileAnswers:
        """The answers a decision column shows."""
        return self._by_column[column]

    def axis_at(self, column: int) -> str | None:
        """The field of a decision column; None for a file's column."""
        return self.axes[column // PER_AXIS] if 0 <= column < self.count else None

    def column(self, axis: str | None = None, kind: int = LABEL) -> int:
        """A field's label (or confidence, margin) column; the current field's by default."""
        return self.axes.index(self.current if axis is None else axis) * PER_AXIS + kind

    def header(self, column: int) -> str:
        """The plain set's headers are today's; with several fields, a field's label column bears its
        name, the current field's marked (the keys act on it)."""
        kind = column % PER_AXIS
        if list(self._answers) == [PLAIN] or kind != LABEL:
            return RESULT_HEADERS[kind]
        axis = self.axis_at(column)
        return f"{CURRENT_MARK}{axis}" if axis == self.current else axis

    def _index(self) -> None:
        self._by_column = [answers for answers in self._answers.values() for _ in RESULT_HEADERS]

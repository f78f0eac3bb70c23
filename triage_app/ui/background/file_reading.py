"""Ticket files read off the UI thread: a 100k-row file must not freeze the window.

The reader owns its thread pool, so the window can wait for it on close: a read still running
when the window goes would emit on a destroyed object. Each read carries the request number it
was started with; the window keeps only the latest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from triage_app.files.opening import open_tickets
from triage_app.review.person_labels import PersonLabels
from triage_app.files.reader import BadInput
from triage_app.files.ticket_keys import file_key, ticket_row_hashes

# pandas imports this at the first string column it builds, which would be on the reader's thread
# (the one import an audit of the window tests found off the main thread). Imported here instead,
# on the main thread, for the reason app._import_engine gives: no import races the UI thread.
try:
    import pyarrow.pandas_compat  # noqa: F401
except ImportError:     # pandas without pyarrow builds its strings without it
    pass


@dataclass(slots=True)
class ReadPeople:
    """A read's labels, per field, and the number of the last of the window's renames the database had made
    when it read them (ResultsDb.read_labels): the later ones are laid over them (PersonLabelling.file_opened)."""

    people: dict[str, PersonLabels]
    renames_made: int = 0
    moved_from: str = ""    # the gone file whose labels followed this one (files.moved_labels)


class FileReader(QObject):
    """Reads on its own pool, one file at a time; close() waits for the read in flight."""

    # request id, files.opening.OpenedFile, {field: person_labels.PersonLabels}, the opening hint or None
    read = Signal(int, object, object, object)
    failed = Signal(int, str)            # request id, one line

    def __init__(self, db, hint=lambda frame, gold: None):
        """db: the window's ResultsDb, where a person's earlier labels are looked up; hint(frame, gold column):
        the line a file opens with, read here with the file (it reads every cell)."""
        super().__init__()
        self.db, self.hint = db, hint
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)
        self._closed = False

    def start(self, request: int, path: str, axes: list[str]) -> None:
        """axes: the fields whose labels are read with the file (besides every field the store holds labels on)."""
        if self._closed:
            return
        self.pool.clear()           # a file asked for and not started yet is no longer wanted
        axes = list(axes)
        self.pool.start(lambda: self._read(request, path, axes))

    def close(self, timeout_ms: int) -> bool:
        """No more reads; wait for the one in flight. False: still reading (the caller keeps self alive)."""
        self._closed = True
        self.pool.clear()
        return self.pool.waitForDone(timeout_ms)

    def _read(self, request: int, path: str, axes: list[str]) -> None:
        try:
            opened = open_tickets(path)
            person = self._person_labels(opened, axes)
        except BadInput as exc:
            self._emit(self.failed, request, str(exc))
            return
        except Exception as exc:  # an unreadable file fails in many ways; the user needs one line
            self._emit(self.failed, request, f"cannot read {Path(path).name}: {exc}")
            return
        self._emit(self.read, request, opened, person, self.hint(opened.table.frame, opened.gold_column))

    def _person_labels(self, opened, axes: list[str]) -> ReadPeople:
        """The labels a person gave this file before, on these fields and on every other field they gave
        it labels on (a field removed, kept for when it is back); none while the database is unavailable.
        A field another window renamed since this label set was saved is read under its name now (as
        classify reads it: ResultsDb.read_labels), and shown under the name here."""
        table = opened.table
        file, hashes = file_key(table.path, table.sheet), ticket_row_hashes(table)
        read = self.db.read_labels(file, hashes, opened.texts, axes)
        people = {axis: PersonLabels(file, hashes, axis=axis) for axis in axes}
        if read is None:
            return ReadPeople(people)
        for axis, stored in read.fields.items():
            person = people.setdefault(axis, PersonLabels(file, hashes, axis=axis))
            person.read(stored)
            person.stored_as = read.stored_as.get(axis, axis)
        return ReadPeople(people, read.renames_made, read.moved_from)

    def _emit(self, signal, request: int, *values) -> None:
        if not self._closed:       # the window is gone or going: nobody is left to show it
            signal.emit(request, *values)

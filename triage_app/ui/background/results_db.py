"""The results database as the window uses it: one owner for the window, its file reader and its
worker. Any failure is one StoreUnavailable line naming the file, said once; everything goes on
without the database until the user sets it aside for a fresh one, or, where the file is sound and
only locked, full or read-only for now (passing), until it works again: tried at the next run, or
when the person asks.

SQLite connections belong to one thread, so the owner hands out connections rather than sharing
one: a run opens its own on the worker's thread, and a person's labels are written (and read
back) on the owner's one writer thread, in order, never on the UI thread.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from triage_app.engine.axes import PLAIN
from triage_app.files.field_renames import RenameRefused
from triage_app.files.store import FileLabels, ResultStore, StoreUnavailable, default_path
from triage_app.files.store_errors import passing

STORE_ERRORS = (StoreUnavailable, sqlite3.Error)   # sqlite3's own: a database that broke after it opened
RENAME_WAIT_S = 0.5     # the longest a field rename holds the UI thread for the database's word


class ResultsDb(QObject):
    """Owns the database's state (usable or not) and its writer; call from any thread."""

    unavailable = Signal(str)   # the first failure since it was last usable, one line
    recovered = Signal()        # a passing failure is over: what was labelled meanwhile can be written
    redirected = Signal(str, str, str)   # file, field, the name it has now: another window renamed it
    labels_redirected = Signal(str, str, object)   # file, field, {label shown: its name now}: the same for labels
    # file, the field's name in the database, the name the window gave it, why: a rename the window's check
    # let through and the database then refused (another window gave labels under the new name meanwhile)
    rename_refused = Signal(str, str, str, str)
    # file, field (as the window shows it), {name shown: name in the database}, why: the same for labels renamed
    labels_rename_refused = Signal(str, str, object, str)

    def __init__(self, path=None):
        super().__init__()
        self.path = path
        self.problem: str | None = None   # the one line while the database is unavailable
        self.passing = False              # the file is sound: it may work again as it is (store_errors.passing)
        self.ours = True                  # False: another (newer) Triage's file, never moved aside
        self._lock = threading.Lock()
        self._labels: ResultStore | None = None   # the writer thread's connection
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="triage-labels")
        self._closed = False
        # file -> the renames of its fields this window knows (files.field_renames), on the writer thread
        self._known: dict[str, frozenset[int]] = {}
        # file -> {the name a window shows: the name in the database}: renames refused here and not yet taken
        # back in the window, whose labels on the shown name still belong under the old one (on the writer thread)
        self._shown: dict[str, dict[str, str]] = {}
        # file -> {the name a window shows: the name in the database}: fields another window renamed since this
        # window's label set was saved (_fields_now), read and written under their name now (on the writer thread)
        self._followed: dict[str, dict[str, str]] = {}
        # (file, field) -> {label name shown: name in the database}: the same for label renames refused here
        self._shown_labels: dict[tuple[str, str], dict[str, str]] = {}
        # renames numbered as the window asks them (UI thread), and the last the writer made (writer thread)
        self._renames_asked = self._renames_made = 0
        # file -> the ids of the field renames this window made (files.field_renames; on the writer thread)
        self._mine: dict[str, frozenset[int]] = {}

    def open(self) -> ResultStore | None:
        """A connection of the caller's own, for its thread (close it when done); None while unavailable. A
        passing failure is tried again (a run asks): the database that works again is said (recovered)."""
        if self.problem is not None and not self.passing:
            return None
        try:
            store = open_store(self.path)
        except StoreUnavailable as exc:
            self.give_up_on(exc)
            return None
        if self._clear():
            self.recovered.emit()
        return store

    def give_up_on(self, error: Exception) -> None:
        """give_up with the error's line, whether it may pass (store_errors.passing), and whether the file is ours."""
        self.give_up(store_line(error, self.path), passing(error), getattr(error, "ours", True))

    def give_up(self, message: str, may_pass: bool = False, ours: bool = True) -> None:
        """The database failed: nothing is resumed or saved until use_fresh(), or, may_pass, until it works again;
        not ours (a newer Triage's): never moved aside for a fresh one."""
        with self._lock:
            first, self.problem = self.problem is None, self.problem or message
            self.passing = may_pass if first else self.passing and may_pass
            self.ours = ours if first else self.ours and ours
        if first:
            self.unavailable.emit(message)

    def retry(self, wait: bool = False) -> bool:
        """Open the database again as it is (a passing failure, over now?), on the writer thread: a failure is
        said as unavailable again. At once (False), said as recovered where it works; wait: until then, True
        where it works, and the caller writes what was labelled meanwhile (a window closing will not hear it)."""
        done = self._submit(self._retry, not wait)
        return done.result() if wait else False

    def _retry(self, announce: bool) -> bool:
        self._close_labels()
        if self._clear():               # a failure now is said again, as the first
            self._labels = self.open()
            if self._labels is not None and announce:
                self.recovered.emit()
        return self.problem is None

    def _clear(self) -> bool:
        with self._lock:
            was, self.problem, self.passing, self.ours = self.problem is not None, None, False, True
        return was

    def use_fresh(self) -> Path | None:
        """Move the unusable database aside (kept, renamed) and open an empty one; returns where the old
        one went. Raises OSError when it cannot be moved. A fresh one that fails too is said as the first."""
        self._submit(self._close_labels).result()     # the writer must not hold the old file
        moved = set_aside(store_file(self.path))
        self._clear()
        self._submit(self._labels_store).result()     # opened now, so a failure is said now
        return moved

    # a person's labels, in the order they were made, each on its field (axis; PLAIN for a plain set)
    def set_person_labels(self, file: str, labels: dict[int, tuple[str, str | None]], axis: str = PLAIN,
                          from_file: frozenset[int] = frozenset()) -> None:
        """{row: (row hash, label or None)} of one file, queued for the writer (from_file: the rows whose
        label is the file's own); while the database is unavailable they live in the window only. A field
        another window renamed is written under its name now, and said (redirected)."""
        self._submit(self._write, self._set_person_labels, file, labels, axis, frozenset(from_file))

    def rename_labels(self, file: str, renames: dict[str, str], axis: str = PLAIN) -> int:
        """Refused on the way (another window gave labels under a new name meanwhile): nothing changed in the
        database, said (labels_rename_refused), and until the window takes the renames back its labels under
        a new name are written under the old one: two labels' tickets are never mixed up. Returns the
        rename's number (ReadLabels.renames_made)."""
        return self._rename(self._rename_labels, file, renames, axis)

    def label_rename_problem(self, file: str, renames: dict[str, str], axis: str = PLAIN) -> str | None:
        """Why the database refuses these label renames (files.field_renames.label_refusal), or None; waits as
        axis_rename_problem does, and raises TimeoutError as it does."""
        return self._submit(self._read, lambda store: store.label_rename_problem(
            file, self._labels_stored(file, axis, renames), self._stored(file, axis),
            self._known.get(file, frozenset()))).result(timeout=RENAME_WAIT_S)

    def axis_rename_problem(self, file: str, old: str, new: str) -> str | None:
        """Why the database refuses this rename (files.field_renames.refusal), after every change queued
        before; None when it allows it or cannot be used. The window asks before anything changes: it waits
        for the writer, which usually holds a few labels' writes, but no longer than RENAME_WAIT_S (the
        writer may be reading a big file's labels): then TimeoutError, and the writer checks again itself."""
        return self._submit(self._read, lambda store: store.axis_rename_problem(
            file, self._stored(file, old), new, self._known.get(file, frozenset()))).result(timeout=RENAME_WAIT_S)

    def rename_axis(self, file: str, old: str, new: str) -> int:
        """Refused on the way (a label given in another window meanwhile): nothing changed in the database,
        said (rename_refused), and until the window renames the field back (to the name rename_refused
        gave) its labels on the new name are written under the old one: never split across the two.
        Returns the rename's number (ReadLabels.renames_made)."""
        return self._rename(self._rename_axis, file, old, new)

    def read_labels(self, file: str, row_hashes: list[str], texts: list[str], axes: list[str]) -> ReadLabels | None:
        """The labels a person gave the file, per field as stored, after every change queued before, in one
        step of the writer: on these fields, each read under the name its labels are under now (another window
        renamed it since this window's label set was saved: _fields_now), and on every other field the file has
        labels on. None while the database is unavailable. Waits for the writer: call it off the UI thread
        (the file reader does). The renames of the file's fields recorded by then are known from then on
        (field_renames)."""
        return self._submit(self._read, self._read_labels, file, row_hashes, texts, axes).result()

    def flush(self) -> None:
        """Wait until every change queued so far is written (or given up); closed: all were."""
        if not self._closed:
            self._submit(lambda: None).result()

    def close(self) -> None:
        """Every label queued is written, then the writer's connection is closed."""
        if not self._closed:
            self._closed = True
            self._writer.submit(self._close_labels)
            self._writer.shutdown(wait=True)

    def _submit(self, job, *args) -> Future:
        if self._closed:
            raise RuntimeError("the results database is closed")
        return self._writer.submit(_reported, job, *args)

    # on the writer thread
    def _labels_store(self) -> ResultStore | None:
        if self.problem is not None:      # given up elsewhere (a run): labels stop here too
            self._close_labels()
        elif self._labels is None:
            self._labels = self.open()
        return self._labels

    def _write(self, change, *args) -> None:
        store = self._labels_store()
        if store is not None:
            self._failing(change, store, *args)

    def _stored(self, file: str, axis: str) -> str:
        """The name the database has for a field this window shows as `axis` (a rename refused, not yet undone)."""
        return self._shown.get(file, {}).get(axis) or self._followed.get(file, {}).get(axis, axis)

    def _labels_stored(self, file: str, axis: str, renames: dict[str, str]) -> dict[str, str]:
        """Label renames as the database has the names (a label rename refused, not yet undone); a window's
        rename that takes back one refused here is none: the database never made it."""
        shown = self._shown_labels.get((file, axis), {})
        return {old: new for old, new in ((shown.get(old, old), new) for old, new in renames.items()) if old != new}

    def _rename_labels(self, store: ResultStore, file: str, renames: dict[str, str], axis: str) -> None:
        stored = self._labels_stored(file, axis, renames)
        shown = self._shown_labels.setdefault((file, axis), {})
        for old in renames:
            shown.pop(old, None)
        known = self._known.get(file, frozenset())
        try:
            self._known[file] = known | store.rename_labels(file, stored, self._stored(file, axis), known)
        except RenameRefused as exc:
            shown.update({new: old for old, new in stored.items()})
            self.labels_rename_refused.emit(file, axis, {new: old for old, new in renames.items()}, str(exc))

    def _set_person_labels(self, store: ResultStore, file, labels, axis, from_file) -> None:
        shown = self._shown_labels.get((file, axis), {})
        labels = {row: (h, shown.get(label, label)) for row, (h, label) in labels.items()}
        axis, known = self._stored(file, axis), self._known.get(file, frozenset())
        stored_as, moved = store.set_person_labels(file, labels, axis, from_file, known)
        if stored_as != axis:
            self.redirected.emit(file, axis, stored_as)
        if moved:
            self.labels_redirected.emit(file, axis, moved)

    def _rename_axis(self, store: ResultStore, file: str, old: str, new: str) -> None:
        shown = self._shown.setdefault(file, {})
        refused, followed = shown.pop(old, None), self._followed.get(file, {}).pop(old, None)
        was = refused or followed or old
        if was == new:      # the window took back a rename refused here: the database never made it
            return
        known, before = self._known.get(file, frozenset()), store.axis_renames(file)
        try:
            self._known[file] = known | store.rename_axis(file, was, new, known)
        except RenameRefused as exc:
            shown[new] = was
            self.rename_refused.emit(file, was, new, str(exc))
        self._mine[file] = self._mine.get(file, frozenset()) | (store.axis_renames(file) - before)

    def _fields_now(self, store: ResultStore, file: str, axes: list[str]) -> dict[str, str]:
        refused, followed, out = self._shown.get(file, {}), self._followed.setdefault(file, {}), {}
        mine = self._mine.get(file, frozenset())
        nows = {axis: store.field_now(file, axis, mine, tuple(axes)) for axis in axes}   # another window's renames
        for axis, now in nows.items():
            followed.pop(axis, None)        # decided again at every read
            # its own; a field shown here (unless renames took that one on too: two names swapped); a refusal
            # on its way
            if now == axis or nows.get(now) == now or axis in refused:
                out[axis] = axis
            else:
                followed[axis] = out[axis] = now
        return out

    def _read_labels(self, store: ResultStore, file: str, hashes: list[str], texts: list[str],
                     axes: list[str]) -> ReadLabels:
        moved = store.follow_moved(file, hashes)        # before the renames: a moved file's come with it
        self._known[file] = store.axis_renames(file)
        now = self._fields_now(store, file, axes)
        fields = [*axes, *(a for a in store.person_label_axes(file) if a not in axes and a not in now.values())]
        return ReadLabels({axis: store.person_labels(file, hashes, texts, now.get(axis, axis)) for axis in fields},
                          now, self._renames_made, moved or "")

    def _rename(self, change, *args) -> int:
        """A rename queued for the writer, numbered: the writer counts the ones it has made."""
        self._renames_asked += 1
        number = self._renames_asked
        self._submit(self._renamed, number, change, *args)
        return number

    def _renamed(self, number: int, change, *args) -> None:
        try:
            self._write(change, *args)
        finally:
            self._renames_made = number

    def _read(self, query, *args):
        store = self._labels_store()
        return None if store is None else self._failing(query, store, *args)

    def _failing(self, use, *args):
        try:
            return use(*args)
        except STORE_ERRORS as exc:     # read-only, full, or broken since it opened
            self._close_labels()
            self.give_up_on(exc)
            return None

    def _close_labels(self) -> None:
        if self._labels is not None:
            self._labels.close()
            self._labels = None


@dataclass(slots=True)
class ReadLabels:
    """What a file's read found in the database: per field, its labels as stored (files.label_places.FileLabels);
    {field shown: the name its labels are under}; and the number of the last of the window's renames made by
    then: those asked after it are laid over these labels (PersonLabelling.file_opened)."""

    fields: dict[str, FileLabels]
    stored_as: dict[str, str]
    renames_made: int
    moved_from: str = ""    # the gone file whose labels followed this one (files.moved_labels)


def _reported(job, *args):
    try:
        return job(*args)
    except Exception as exc:   # a future nobody waits on would swallow it: say it where it can be seen
        traceback.print_exception(exc, file=sys.stderr)
        raise


def store_file(path=None) -> Path:
    return Path(path) if path else default_path()


def open_store(path=None) -> ResultStore:
    """ResultStore(path); raises StoreUnavailable (one line naming the file) however it fails."""
    try:
        return ResultStore(path)
    except StoreUnavailable:
        raise               # as it is: whether it may pass, whether the file is ours
    except (*STORE_ERRORS, OSError) as exc:     # OSError: a folder that cannot be made
        raise StoreUnavailable(store_line(exc, path), passing=passing(exc)) from exc


def store_line(exc: Exception, path=None) -> str:
    if isinstance(exc, StoreUnavailable):
        return str(exc)
    lines = str(exc).strip().splitlines()
    return f"The results database {store_file(path)} cannot be used: {lines[0] if lines else type(exc).__name__}."


def set_aside(path: Path) -> Path | None:
    """Rename a database and its WAL files to <name>.unusable-<time>; None if there was nothing to move."""
    target = path.with_name(f"{path.name}.unusable-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    if not path.exists():
        return None
    path.rename(target)
    return target

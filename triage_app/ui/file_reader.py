"""Ticket files read off the UI thread: a 100k-row file must not freeze the window.

The reader owns its thread pool, so the window can wait for it on close: a read still running
when the window goes would emit on a destroyed object. Each read carries the request number it
was started with; the window keeps only the latest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from triage_app.files.reader import (BadInput, TicketTable, detect_gold_column, detect_subject_column,
                                     detect_text_column, read_tickets)
from triage_app.ui.results_db import STORE_ERRORS, open_store, store_line

# pandas imports this at the first string column it builds, which would be on the reader's thread
# (the one import an audit of the window tests found off the main thread). Imported here instead,
# on the main thread, for the reason app._import_engine gives: no import races the UI thread.
try:
    import pyarrow.pandas_compat  # noqa: F401
except ImportError:     # pandas without pyarrow builds its strings without it
    pass


@dataclass(slots=True)
class OpenedFile:
    """A ticket file read, its columns detected and a person's earlier labels looked up."""

    table: TicketTable
    text_column: str
    subject_column: str | None
    gold_column: str | None
    texts: list[str]
    manual: dict[int, str]
    notes: list[str]
    store_error: str | None = None     # the results database could not be read: no earlier labels


def open_tickets(path: str, label_set_key: str, store_path=None, use_store: bool = True) -> OpenedFile:
    """Everything slow about opening a file, for the thread pool. Raises BadInput."""
    table = read_tickets(path)
    notes = list(table.warnings)
    try:
        text = detect_text_column(table)
    except BadInput as exc:
        text = table.columns[0]
        notes.append(f"{exc}. Showing “{text}” for now.")
    texts = table.texts(text)
    manual, store_error = {}, None
    if use_store:
        try:
            with open_store(store_path) as store:
                manual = store.manual_labels(label_set_key, texts)
        except STORE_ERRORS as exc:
            store_error = store_line(exc, store_path)
    return OpenedFile(table, text, detect_subject_column(table), detect_gold_column(table), texts, manual,
                      notes, store_error)


class FileReader(QObject):
    """Reads on its own pool, one file at a time; close() waits for the read in flight."""

    read = Signal(int, object)      # request id, OpenedFile
    failed = Signal(int, str)       # request id, one line

    def __init__(self):
        super().__init__()
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)
        self._closed = False

    def start(self, request: int, path: str, label_set_key: str, store_path=None, use_store: bool = True) -> None:
        if self._closed:
            return
        self.pool.clear()           # a file asked for and not started yet is no longer wanted
        self.pool.start(lambda: self._read(request, path, label_set_key, store_path, use_store))

    def close(self, timeout_ms: int) -> bool:
        """No more reads; wait for the one in flight. False: still reading (the caller keeps self alive)."""
        self._closed = True
        self.pool.clear()
        return self.pool.waitForDone(timeout_ms)

    def _read(self, request: int, path: str, label_set_key: str, store_path, use_store: bool) -> None:
        try:
            opened = open_tickets(path, label_set_key, store_path, use_store)
        except BadInput as exc:
            self._emit(self.failed, request, str(exc))
            return
        except Exception as exc:  # an unreadable file fails in many ways; the user needs one line
            self._emit(self.failed, request, f"cannot read {Path(path).name}: {exc}")
            return
        self._emit(self.read, request, opened)

    def _emit(self, signal, request: int, value) -> None:
        if not self._closed:       # the window is gone or going: nobody is left to show it
            signal.emit(request, value)

"""Results that survive anything: an embedded SQLite database, written after every batch.

A result is keyed by (ticket text hash, prompt hash, model, dtype): the same text under the
same prompt and model always gets the same answer, so a killed run resumes where it stopped,
identical texts are classified once, and nothing is classified twice. The model is named by what
was loaded (its file's path, size and time, or its hub commit) and where it ran, both in the
model column: databases from before the device was part of the key open as they are, and their
rows, keyed by the spec the user typed, simply no longer match.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from triage_app.paths import user_data_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    text_hash TEXT NOT NULL, prompt_hash TEXT NOT NULL, model TEXT NOT NULL, dtype TEXT NOT NULL,
    labels TEXT NOT NULL, scores TEXT NOT NULL, truncated INTEGER NOT NULL, fallback INTEGER NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (text_hash, prompt_hash, model, dtype)
);
CREATE TABLE IF NOT EXISTS manual_labels (
    text_hash TEXT NOT NULL, label_set TEXT NOT NULL, label TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (text_hash, label_set)
);
"""
LOCK_TIMEOUT_S = 30.0


class StoreUnavailable(ValueError):
    """The results database cannot be opened or written; the message names it and the way out.

    path, problem and fix are there for a caller that words the way out itself (the window).
    """

    def __init__(self, message: str, path: Path | None = None, problem: str = "", fix: str = ""):
        super().__init__(message)
        self.path, self.problem, self.fix = path, problem, fix


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RunKey:
    """Everything besides the text that decides a result."""

    prompt_hash: str
    model: str      # the loaded model's identity, not the spec the user typed
    dtype: str
    device: str

    @property
    def model_column(self) -> str:
        # a device never contains "|", so two keys never share a column value
        return f"{self.model}|{self.device}"


@dataclass(frozen=True, slots=True)
class StoredResult:
    labels: list[str]
    scores: list[float]
    truncated: bool
    fallback: bool


def default_path() -> Path:
    return user_data_dir() / "results.sqlite3"


class ResultStore:
    """Every method raises StoreUnavailable, never a bare sqlite3 error, when the file fails it."""

    def __init__(self, path: str | Path | None = None, timeout: float = LOCK_TIMEOUT_S):
        self.path = Path(path) if path else default_path()
        self.timeout = timeout
        self._db = None
        try:
            with self._reported():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False)
                # WAL: readers never block the writer. synchronous=FULL: a batch is on disk when its
                # commit returns, power loss included; NORMAL would only sync at checkpoints and can
                # lose the last batches. fullfsync: on macOS a plain fsync stops at the drive's cache.
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("PRAGMA fullfsync=ON")
                self._db.executescript(_SCHEMA)
                self._check_writable()
        except StoreUnavailable:
            self.close()
            raise

    def _check_writable(self) -> None:
        # A read-only file opens and reads fine; say so now, not after the first batch's work.
        # The delete matches nothing and is rolled back: nothing is written.
        try:
            self._db.execute("DELETE FROM manual_labels WHERE 0")
        finally:
            self._db.rollback()

    @contextmanager
    def _reported(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.IntegrityError):
            raise  # our own mistakes, not the file's
        except (sqlite3.Error, OSError) as exc:
            raise unavailable(self.path, exc, self.timeout) from exc

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def lookup(self, key: RunKey, hashes: Iterable[str]) -> dict[str, StoredResult]:
        found = {}
        hashes = list(dict.fromkeys(hashes))
        with self._reported():
            for start in range(0, len(hashes), 500):  # SQLite caps the number of parameters
                chunk = hashes[start:start + 500]
                rows = self._db.execute(
                    f"SELECT text_hash, labels, scores, truncated, fallback FROM results WHERE prompt_hash=? AND "
                    f"model=? AND dtype=? AND text_hash IN ({','.join('?' * len(chunk))})",
                    (key.prompt_hash, key.model_column, key.dtype, *chunk))
                for h, labels, scores, truncated, fallback in rows:
                    found[h] = StoredResult(json.loads(labels), json.loads(scores), bool(truncated), bool(fallback))
        return found

    def save(self, key: RunKey, results: dict[str, StoredResult]) -> None:
        """One transaction per batch: all of it is on disk, or none of it."""
        with self._reported(), self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO results (text_hash, prompt_hash, model, dtype, labels, scores, truncated, "
                "fallback) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(h, key.prompt_hash, key.model_column, key.dtype, json.dumps(r.labels), json.dumps(r.scores),
                  int(r.truncated), int(r.fallback)) for h, r in results.items()])

    def count(self, key: RunKey) -> int:
        with self._reported():
            return self._db.execute("SELECT COUNT(*) FROM results WHERE prompt_hash=? AND model=? AND dtype=?",
                                    (key.prompt_hash, key.model_column, key.dtype)).fetchone()[0]

    # labels a person chose
    def set_manual(self, label_set: str, text: str, label: str | None) -> None:
        with self._reported(), self._db:
            if label is None:
                self._db.execute("DELETE FROM manual_labels WHERE text_hash=? AND label_set=?",
                                 (text_hash(text), label_set))
            else:
                self._db.execute("INSERT OR REPLACE INTO manual_labels (text_hash, label_set, label) "
                                 "VALUES (?, ?, ?)", (text_hash(text), label_set, label))

    def manual_labels(self, label_set: str, texts: list[str]) -> dict[int, str]:
        with self._reported():
            chosen = dict(self._db.execute("SELECT text_hash, label FROM manual_labels WHERE label_set=?",
                                           (label_set,)).fetchall())
        if not chosen:
            return {}   # most files: no text to hash
        return {i: chosen[h] for i, h in enumerate(map(text_hash, texts)) if h in chosen}


def unavailable(path: Path, error: sqlite3.Error | OSError, timeout: float = LOCK_TIMEOUT_S) -> StoreUnavailable:
    """One line: which database, what is wrong with it, and what to do."""
    problem, fix = _diagnosis(path, error, timeout)
    return StoreUnavailable(f"results database {path.absolute()} {problem}: {fix}, or choose another with --db PATH",
                            path, problem, fix)


def _diagnosis(path: Path, error: sqlite3.Error | OSError, timeout: float) -> tuple[str, str]:
    if isinstance(error, (FileExistsError, NotADirectoryError)):
        return f"cannot be created (a file stands where a folder should be: {error.filename})", "check its path"
    if isinstance(error, OSError):
        return f"cannot be created ({error.strerror or error})", "check the folder it goes in"
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF   # the primary code; extended ones say more than we need
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
        return "is damaged or not a SQLite database", "move it aside (a new one is made in its place)"
    if code == sqlite3.SQLITE_FULL:
        return "cannot be written (the disk is full)", "free some space"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return f"is locked by another Triage run (waited {timeout:g} s)", "wait for that run to finish"
    if code == sqlite3.SQLITE_READONLY or (code in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM)
                                           and not _writable(path)):
        return "is read-only", "make it, its folder and the -wal and -shm files beside it writable"
    if code == sqlite3.SQLITE_CANTOPEN:
        return ("is a folder, not a file" if path.is_dir() else "cannot be opened"), "check its path"
    if code == sqlite3.SQLITE_IOERR:
        return "cannot be read or written (disk I/O error)", "check the disk"
    return f"cannot be used ({error})", "move it aside (a new one is made in its place)"


def _writable(path: Path) -> bool:
    if path.is_dir():
        return True   # not a permission problem
    folder_ok = os.access(path.parent, os.W_OK | os.X_OK)
    return folder_ok and (not path.exists() or os.access(path, os.W_OK))

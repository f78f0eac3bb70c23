"""The results database's file: what one that cannot be used says (which one, what is wrong with it, and
what to do; files/store.py raises these, the window words the way out from their parts), and that it is
the user's alone (make_private)."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_TIMEOUT_S = 30.0
SQLITE_HEADER = b"SQLite format 3\x00"   # the first 16 bytes of every SQLite database file


class StoreUnavailable(ValueError):
    """The results database cannot be opened or written; the message names it and the way out.

    path, problem and fix are there for a caller that words the way out itself (the window).
    """

    def __init__(self, message: str, path: Path | None = None, problem: str = "", fix: str = "",
                 passing: bool = False, ours: bool = True):
        super().__init__(message)
        self.path, self.problem, self.fix = path, problem, fix
        self.passing = passing      # the file is sound and may work again as it is (passing(): locked, full)
        self.ours = ours            # False: another Triage's (newer) file, never to be moved aside


def unavailable(path: Path, error: sqlite3.Error | OSError, timeout: float = LOCK_TIMEOUT_S) -> StoreUnavailable:
    """One line: which database, what is wrong with it, and what to do."""
    problem, fix = _diagnosis(path, error, timeout)
    return StoreUnavailable(f"results database {path.absolute()} {problem}: {fix}, or choose another with --db PATH",
                            path, problem, fix, passing(error))


def passing(error: Exception) -> bool:
    """Whether the database is sound and may work again as it is, once the person or another run lets it: locked
    by another run, the disk full, a disk error, read-only; not a damaged file or another kind of file."""
    if isinstance(error, StoreUnavailable):
        return error.passing
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR,
                    sqlite3.SQLITE_READONLY)


SCHEMA_VERSION = 1      # the database's PRAGMA user_version: raised with every change an earlier Triage cannot read


def check_version(db: sqlite3.Connection, path: Path) -> None:
    """A database a newer Triage changed is refused before anything reads or writes it (its rows may need
    columns this one does not fill); an older one is marked as this version's once brought up to date."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        problem, fix = f"was made by a newer Triage (its version {found}, this one reads {SCHEMA_VERSION})", \
            "open it with that Triage"
        raise StoreUnavailable(f"results database {path.absolute()} {problem}: {fix}, or choose another with --db "
                               "PATH", path, problem, fix, ours=False)
    if found < SCHEMA_VERSION:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def check_kind(path: Path) -> None:
    """Refused before anything is changed: a path that is there and is neither a file nor a folder (a device
    such as /dev/null, a pipe, a socket) is no database, and SQLite would write a journal beside it."""
    if path.exists() and not path.is_file() and not path.is_dir():
        problem, fix = "is not a file (a device, a pipe or a socket)", "name a database file"
        raise StoreUnavailable(f"results database {path.absolute()} {problem}: {fix}, or choose another with "
                               "--db PATH", path, problem, fix)


def _diagnosis(path: Path, error: sqlite3.Error | OSError, timeout: float) -> tuple[str, str]:
    if isinstance(error, (FileExistsError, NotADirectoryError)):
        return f"cannot be created (a file stands where a folder should be: {error.filename})", "check its path"
    if isinstance(error, OSError):
        return f"cannot be created ({error.strerror or error})", "check the folder it goes in"
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF   # the primary code; extended ones say more than we need
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT) and not starts_as_sqlite(path):
        # another kind of file, as likely a person's own as a database gone bad: not told to move it
        return ("is damaged or not a SQLite database (it does not start as one)",
                "if it is a results database, move it aside (a new one is made in its place)")
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


def starts_as_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return True   # unread: nothing to tell it by


def _writable(path: Path) -> bool:
    if path.is_dir():
        return True   # not a permission problem
    folder_ok = os.access(path.parent, os.W_OK | os.X_OK)
    return folder_ok and (not path.exists() or os.access(path, os.W_OK))


@contextmanager
def reported(path: Path, timeout: float) -> Iterator[None]:
    """The file's failures as StoreUnavailable, in one line naming it; our own mistakes raised as they are."""
    try:
        yield
    except (sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.IntegrityError):
        raise  # our own mistakes, not the file's
    except (sqlite3.Error, OSError) as exc:
        raise unavailable(path, exc, timeout) from exc


def make_private(path: Path) -> None:
    """The database holds a person's labels and hashes of ticket texts (a short text's can be guessed):
    the user's alone, as the settings file is. Created so before SQLite makes it (SQLite gives the -wal
    and -shm files the database's own mode), and tightened where an older version made it readable."""
    if path.exists() and (not path.is_file() or (path.stat().st_size and not starts_as_sqlite(path))):
        return      # not ours to change (a folder, a person's own file named by mistake): opening says why
    try:
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if file.exists() and file.stat().st_mode & 0o077:
                os.chmod(file, stat.S_IMODE(file.stat().st_mode) & 0o700)   # a file made read-only stays so
    except OSError:
        pass        # a folder or file we may not change: SQLite's own open says why, if it fails


def set_wal(db: sqlite3.Connection, timeout: float) -> None:
    """WAL mode, set once per file (it stays). Setting it needs the file to itself, and SQLite answers
    "locked" at once, without its busy wait, while another connection reads it (processes opening a file
    from before WAL at the same moment): asked again until the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.02)

"""The results database as the window uses it: opened so that any failure is one StoreUnavailable
line naming the file, and set aside when the user asks for a fresh one."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from triage_app.files.store import ResultStore, StoreUnavailable, default_path

STORE_ERRORS = (StoreUnavailable, sqlite3.Error)   # sqlite3's own: a database that broke after it opened


def store_file(path=None) -> Path:
    return Path(path) if path else default_path()


def open_store(path=None) -> ResultStore:
    """ResultStore(path); raises StoreUnavailable (one line naming the file) however it fails."""
    try:
        return ResultStore(path)
    except (*STORE_ERRORS, OSError) as exc:     # OSError: a folder that cannot be made
        raise StoreUnavailable(store_line(exc, path)) from exc


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

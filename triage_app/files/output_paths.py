"""Which paths one command may write: never one file twice, never over a file it reads, never over its
results database (which holds a person's labels). The rule is here once; the command line asks it
(cli/__init__.py) before anything is read, opened or loaded.

Two spellings name one file when they resolve to one path (relative, `./`, `..`, a symlink), when the
file that exists is the other's (a hard link), or when they differ only by case on a file system that
folds case (macOS's and Windows' by default), where neither has to exist yet.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from pathlib import Path

from triage_app.files.export import refuse_read_only, same_file

JOURNALS = ("-wal", "-shm", "-journal")   # SQLite's own files beside a database


def check(reads: Sequence[tuple[str, str, str]], writes: Sequence[tuple[str, str, str, str]]) -> None:
    """reads: (option, path, what it holds), e.g. ("", "tickets.csv", "the input file"); writes: the same and
    what to do instead, e.g. ("--db", "x.db", "the results database", "keep the results database in another
    file"). A database is read and written: name it among the writes, first, so the outputs are held to it.

    Raises ValueError, in one line naming the path, what it is and the option that named it there, where
    a written path is a read one or lies inside a read folder, two written paths are one file, or a written
    path is a folder or lies under a file (either found only when the file is renamed into place, after the run)."""
    for k, (option, path, _, instead) in enumerate(writes):
        named = f" ({option})" if option else ""
        if os.path.isdir(path):
            raise ValueError(f"{path}: that is a folder{named}; name a file")
        if (blocking := _file_above(path)) is not None:
            raise ValueError(f"{path}: {blocking} is a file, not a folder{named}; name a file in a folder")
        for flag, other, what, *_ in (*reads, *writes[:k]):
            if same(path, other):
                raise ValueError(f"{path}: that is {what}{f' ({flag})' if flag else ''}; {instead}")
            if os.path.isdir(other) and _inside(path, other):
                raise ValueError(f"{path}: that is inside {what}{f' ({flag})' if flag else ''}; {instead}")


def refuse_unwritable(writes: Sequence[tuple[str, str, str, str]]) -> None:
    """PermissionError, as write_atomic words it, where a written file is read-only or the folder it would go
    in (or the nearest one there, which the write makes) cannot be written in: said before the run, not after."""
    for option, path, *_ in writes:
        refuse_read_only(Path(path))
        place = next((p for p in Path(path).absolute().parents if p.exists()), None)
        if place is not None and not os.access(place, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, f"the folder {place} is read-only; make it writable or choose "
                                                f"another folder", path)


def _file_above(path: str) -> Path | None:
    """The nearest existing folder above path, where it is a file: writing there fails (found, before, only
    after the run)."""
    for place in Path(path).absolute().parents:
        if place.exists():
            return None if place.is_dir() else place
    return None


def _inside(path: str | Path, folder: str | Path) -> bool:
    """path lies in folder or below, by any spelling (a write there replaces a file the command reads)."""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    if _folds_case(Path(top)):
        real, top = real.casefold(), top.casefold()
    return Path(top) in Path(real).parents


def with_journals(database: tuple[str, str, str, str]) -> list[tuple[str, str, str, str]]:
    """A SQLite database's write as check() takes it, followed by its journal files': in WAL mode a committed
    label lives in the -wal file until a checkpoint, so a file written there loses it."""
    option, path, what, instead = database
    # SQLite puts them beside the file a symlink names, not beside the link
    journals = [f"{path}{end}" for end in JOURNALS]
    journals += [real for real, plain in zip((f"{os.path.realpath(path)}{end}" for end in JOURNALS), journals)
                 if not same(real, plain)]
    return [database, *((option, journal, f"{what}'s journal", instead) for journal in journals)]


def kept_from(path: str | Path, open_file: str | Path | None, database: str | Path | None) -> str | None:
    """Why the window writes nothing at path, or None: it is the ticket file open there, or the results
    database (None: the default one) or one of its journals, by any spelling."""
    if open_file is not None and same(open_file, path):
        return f"“{Path(open_file).name}” is the file open here"
    if database is None:
        from triage_app.files.store import default_path

        database = default_path()
    if any(same(written, path) for _, written, *_ in with_journals(("", str(database), "", ""))):
        return f"“{Path(path).name}” is the results database, which holds your labels"
    return None


def same(a: str | Path, b: str | Path) -> bool:
    """a and b name one file, by any spelling (the module's docstring)."""
    if same_file(a, b) or same_file(b, a):
        return True
    real_a, real_b = os.path.realpath(a), os.path.realpath(b)
    return real_a.casefold() == real_b.casefold() and _folds_case(Path(real_a).parent)


def _folds_case(folder: Path) -> bool:
    """Whether the file system holding folder finds a name whatever its case. Read from the nearest folder
    that exists and has a letter in its name, spelt in the other case: nothing is written to find out.
    (Where a case-sensitive volume is mounted inside a folding one, the answer may be yes: a refusal
    too many, never a file written twice.)"""
    try:
        for place in (folder, *folder.parents):
            if place.exists() and place.name.swapcase() != place.name:
                return os.path.samefile(place, place.with_name(place.name.swapcase()))
    except OSError:   # the other spelling is not there, or cannot be looked at
        return False
    return False

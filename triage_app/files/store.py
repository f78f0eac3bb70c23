"""Results that survive anything: an embedded SQLite database, written after every batch.

A person's label is a fact about one ticket of one file on one axis (the field it sets: queue,
priority; a plain label set's is "label"): it is keyed by the file (files.ticket_keys.file_key), the
axis and the row, with the row's hash as a check, and holds the label's name, so editing the label
set never changes which labels a person gave (person_labels). Databases from before keyed them by the
label set's fingerprint and the ticket's text (manual_labels); a file adopts those once, the first
time it is opened (ResultStore._adopt), and the old table is kept as it was. Databases from before
axes get the axis column once, every label the plain axis's (ResultStore._once). A label also keeps
its origin: typed by a person, or taken from the file's own column (the helpdesk's value already, never
sent back by files.updates); older databases get the column once, every label a person's, as it was read
then. Where the file names its tickets by an id, a label keeps its ticket too (its id and text): the label
follows it when the helpdesk's next export changed its other cells (files.label_places); a label from before
gets its ticket the next time its row is read (files/store_schema.py keeps the tables). A field renamed is remembered per file (files.field_renames): one name per field, in every window.

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
import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from triage_app.engine.axes import PLAIN
from triage_app.engine.config import is_checked
from triage_app.files import field_renames, moved_labels, store_schema
from triage_app.files.field_renames import RenameRefused, followed, label_names, label_refusal, labels_now, refusal
from triage_app.files.label_places import (FILE, PERSON, TAKEN_BACK, FileLabels, place, placed_from_file,
                                          untold_tickets)
from triage_app.files.store_errors import (LOCK_TIMEOUT_S, StoreUnavailable, check_kind, check_version, make_private,
                                           reported, set_wal)
from triage_app.paths import user_data_dir


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
    drift: float = 0.0    # a checked low precision's answer: the margin it beat (Prediction.drift); 0: float32's own


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
                check_kind(self.path)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                make_private(self.path)
                self._db = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False)
                # WAL: readers never block the writer. synchronous=FULL: a batch is on disk when its
                # commit returns, power loss included; NORMAL would only sync at checkpoints and can
                # lose the last batches. fullfsync: on macOS a plain fsync stops at the drive's cache.
                set_wal(self._db, self.timeout)
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("PRAGMA fullfsync=ON")
                check_version(self._db, self.path)
                self._db.executescript(store_schema.SCHEMA + field_renames.SCHEMA)
                for table, column, statements in store_schema.CHANGES:
                    self._once(partial(self._has, table, column), statements)
                self._once(lambda: field_renames.has_label_renames(self._db), field_renames.WITH_LABEL_RENAMES)
                self._check_writable()
                make_private(self.path)
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

    def _once(self, done, statements: tuple[str, ...]) -> None:
        """A database from before brought up to date, in one transaction, every row kept: a person's
        labels from before several axes become the plain axis's ("label"), with the axis in the key;
        results from before drift was kept get the column, NULL (unknown). The check runs inside the
        transaction, so a second process opening the same old file waits for the first's change and then
        finds it done. An older version still reads and writes the new tables: its rows take the columns'
        defaults."""
        if done():
            return      # the usual case, read without taking the write lock
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if not done():
                for statement in statements:
                    self._db.execute(statement)
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise

    def _has(self, table: str, column: str) -> bool:
        return any(row[1] == column for row in self._db.execute(f"PRAGMA table_info({table})"))

    def _reported(self):
        return reported(self.path, self.timeout)

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
                    f"SELECT text_hash, labels, scores, truncated, fallback, drift FROM results WHERE prompt_hash=? "
                    f"AND model=? AND dtype=? AND text_hash IN ({','.join('?' * len(chunk))})",
                    (key.prompt_hash, key.model_column, key.dtype, *chunk))
                for h, labels, scores, truncated, fallback, drift in rows:
                    found[h] = StoredResult(json.loads(labels), json.loads(scores), bool(truncated), bool(fallback),
                                            _drift(drift, key.dtype))
        return found

    def save(self, key: RunKey, results: dict[str, StoredResult]) -> None:
        """One transaction per batch: all of it is on disk, or none of it."""
        self.save_many([(key, results)])

    def save_many(self, batches: list[tuple[RunKey, dict[str, StoredResult]]]) -> None:
        """Results under several keys (a batch's labels, each under its own) in one transaction: one
        sync to disk per batch, not one per label."""
        with self._reported(), self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO results (text_hash, prompt_hash, model, dtype, labels, scores, truncated, "
                "fallback, drift) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(h, key.prompt_hash, key.model_column, key.dtype, json.dumps(r.labels), json.dumps(r.scores),
                  int(r.truncated), int(r.fallback), r.drift) for key, results in batches for h, r in results.items()])

    def count(self, key: RunKey) -> int:
        with self._reported():
            return self._db.execute("SELECT COUNT(*) FROM results WHERE prompt_hash=? AND model=? AND dtype=?",
                                    (key.prompt_hash, key.model_column, key.dtype)).fetchone()[0]

    # a person's labels: on axis `axis`, row `row` of `file` (whose cells hash to row_hash) is `label`
    def set_person_labels(self, file: str, labels: dict[int, tuple[str, str | None]], axis: str = PLAIN,
                          from_file: frozenset[int] | set[int] = frozenset(),
                          known: frozenset[int] | None = None) -> tuple[str, dict[str, str]]:
        """{row: (row_hash, label or None)}, in one transaction; from_file: the rows whose label was taken
        from the file's own column (the rest were typed by a person). A label taken back is kept as a row
        the person cleared (TAKEN_BACK): a label of an identical ticket that lost its own row is then
        never moved onto it (place). known: the renames of the file's fields and labels the writer knows
        (field_renames; None: all); written under the field's name now and each label's, which are returned:
        (the field's name, {label given: its name now} for those another window renamed)."""
        with self._reported(), self._db:
            self._db.execute("BEGIN IMMEDIATE")   # the renames read and the write, one transaction
            axis = followed(self._db, file, axis, known)[0]
            now = labels_now(self._db, file, axis, {label for _, label in labels.values()}, known)
            self._db.executemany(
                "INSERT OR REPLACE INTO person_labels (file, axis, row, row_hash, label, origin, ticket) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(file, axis, row, str(h), TAKEN_BACK if label is None else now.get(label, label),
                  FILE if row in from_file else PERSON, getattr(h, "ticket", None))
                 for row, (h, label) in labels.items()])
        return axis, now

    def rename_labels(self, file: str, renames: dict[str, str], axis: str = PLAIN,
                      known: frozenset[int] | None = None) -> frozenset[int]:
        """{old name: new name}, labels renamed in the label set while this file is open: its labels
        follow them, all in one statement (so that a swap of two names is a swap), and the renames are
        remembered (field_renames.record_labels: their ids are returned, the caller knows them). Other files
        keep theirs: the same name there may have meant something else under another label set. known: as
        set_person_labels's (a field or label renamed in another window is the same). Refused (RenameRefused)
        where it would merge two labels' tickets (field_renames.label_refusal): nothing changes."""
        with self._reported(), self._db:
            self._db.execute("BEGIN IMMEDIATE")   # the rule's read and the write, one transaction
            axis = followed(self._db, file, axis, known)[0]
            now = labels_now(self._db, file, axis, renames, known)
            renames = {now.get(old, old): new for old, new in renames.items() if now.get(old, old) != new}
            if not renames:
                return frozenset()
            problem = label_refusal(renames, lambda name: self._held(file, axis, name))
            if problem:
                raise RenameRefused(problem)
            cases = " ".join("WHEN ? THEN ?" for _ in renames)
            self._db.execute(f"UPDATE person_labels SET label = CASE label {cases} END WHERE file=? AND axis=? "
                             f"AND label IN ({','.join('?' * len(renames))})",
                             (*sum(renames.items(), ()), file, axis, *renames))
            return field_renames.record_labels(self._db, file, axis, renames)

    def label_rename_problem(self, file: str, renames: dict[str, str], axis: str = PLAIN,
                             known: frozenset[int] | None = None) -> str | None:
        """Why rename_labels would refuse these renames now (field_renames.label_refusal), or None; reads only."""
        with self._reported():
            axis = followed(self._db, file, axis, known)[0]
            return label_refusal(renames, lambda name: self._held(file, axis, name))

    def axis_rename_problem(self, file: str, old: str, new: str, known: frozenset[int] | None = None) -> str | None:
        """Why this file's field may not be renamed so (field_renames.refusal), or None. A rename another
        window made already (old is new there) is no rename: it is allowed."""
        with self._reported():
            now = followed(self._db, file, old, known)[0]
            return None if new in (old, now) else refusal(new, self._held(file, new))

    def rename_axis(self, file: str, old: str, new: str, known: frozenset[int] | None = None) -> frozenset[int]:
        """An axis renamed while this file is open: its labels follow, as a label's do (rename_labels),
        and the rename is remembered (field_renames). Refused (RenameRefused) onto an axis that holds
        labels of this file: two axes' labels are never merged. Rows a person cleared on that name go:
        they were another field's, and would hide this one's twins. known: the renames the caller knows;
        returns the ones it knows now besides them."""
        with self._reported(), self._db:
            self._db.execute("BEGIN IMMEDIATE")   # the renames read and the write, one transaction
            now, taken = followed(self._db, file, old, known)
            if new in (old, now):
                return taken
            problem = refusal(new, self._held(file, new))
            if problem:
                raise RenameRefused(problem)
            self._db.execute("DELETE FROM person_labels WHERE file=? AND axis=?", (file, new))
            self._db.execute("UPDATE person_labels SET axis=? WHERE file=? AND axis=?", (new, file, now))
            return taken | {field_renames.record(self._db, file, now, new)}

    def field_now(self, file: str, axis: str, mine: frozenset[int] = frozenset(), others: tuple[str, ...] = ()) -> str:
        """The name a field's labels are under now: its own where the file holds labels under it, else the
        name renames recorded for the file gave it (a label-set file from before a window's rename); mine: the
        renames of the window that asks, which it shows already (never followed). others: the label set's other
        fields; the labels under this one's name are another's where renames took that one there (two fields'
        names swapped)."""
        with self._reported():
            claimed = {followed(self._db, file, other, mine)[0] for other in others if other != axis}
            held = self._held(file, axis) and axis not in claimed
            return axis if held else followed(self._db, file, axis, mine)[0]

    def follow_moved(self, file: str, row_hashes: list[str]) -> str | None:
        """A gone file's labels, where this file holds their tickets (files.moved_labels): its key, or None."""
        with self._reported(), self._db:
            if self._db.execute("SELECT 1 FROM person_labels WHERE file=? LIMIT 1", (file,)).fetchone():
                return None     # the usual case, read without taking the write lock
            self._db.execute("BEGIN IMMEDIATE")
            return moved_labels.follow(self._db, file, row_hashes)

    def axis_renames(self, file: str) -> frozenset[int]:
        """The renames recorded for this file's fields: what a window that reads it now knows."""
        with self._reported():
            return field_renames.recorded(self._db, file)

    def _held(self, file: str, axis: str, label: str | None = None) -> int:
        """The file's labels on a field (of one label's name only, given one); a row cleared holds none."""
        match, value = ("label!=?", TAKEN_BACK) if label is None else ("label=?", label)
        return self._db.execute(f"SELECT COUNT(*) FROM person_labels WHERE file=? AND axis=? AND {match}",
                                (file, axis, value)).fetchone()[0]

    def person_label_axes(self, file: str) -> list[str]:
        """The axes this file holds labels on (taken-back rows included), by name."""
        with self._reported():
            return [a for (a,) in self._db.execute("SELECT DISTINCT axis FROM person_labels WHERE file=? ORDER BY axis",
                                                   (file,))]

    def person_labels(self, file: str, row_hashes: list[str], texts: list[str] | None = None,
                      axis: str = PLAIN) -> FileLabels:
        """Every label a person gave the file's rows on this axis, under any name. A row whose cells changed place
        (rows added or removed above it) is found by its hash, and moved there for good; one whose
        ticket is no longer in the file stays stored, counted as not found. texts: the tickets as
        earlier versions hashed them, to adopt their labels (the plain axis's) the first time this file
        is opened."""
        with self._reported(), self._db:
            if texts is not None:
                self._adopt(file, row_hashes, texts)
            stored = self._db.execute("SELECT row, row_hash, label, ticket, origin FROM person_labels WHERE file=? "
                                      "AND axis=? ORDER BY row", (file, axis)).fetchall()
            found, moves, lost = place([r[:4] for r in stored], row_hashes)
            self._db.executemany("UPDATE person_labels SET row=?, row_hash=? WHERE file=? AND axis=? AND row=? "
                                 "AND row_hash=?", [(new, now, file, axis, old, h) for old, new, h, now in moves])
            self._db.executemany("UPDATE person_labels SET ticket=? WHERE file=? AND axis=? AND row=? AND row_hash=?",
                                 untold_tickets(stored, moves, row_hashes, file, axis))
            renamed = label_names(self._db, file, axis)
        labels = {row: label for row, label in found.items() if label != TAKEN_BACK}
        origins = {(row, h): origin for row, h, _, _, origin in stored}
        return FileLabels(labels, lost, placed_from_file(origins, labels, moves, row_hashes), renamed)

    def from_file_rows(self, file: str, axis: str = PLAIN) -> frozenset[tuple[int, str]]:
        """(row, row hash) as stored of the labels taken from the file's own column (label_places.placed_from_file
        finds their rows now, labels_as_read among them)."""
        with self._reported():
            return frozenset(self._db.execute("SELECT row, row_hash FROM person_labels WHERE file=? AND axis=? AND "
                                              "origin=?", (file, axis, FILE)).fetchall())

    def stored_person_labels(self, file: str, taken_back: bool = False, axis: str = PLAIN,
                             tickets: bool = False) -> list[tuple]:
        """(row, row hash, label) as stored, unchecked: for a reader that sees the file a block at a time.
        taken_back: with the rows the person cleared (label TAKEN_BACK); tickets: with each one's ticket (or None),
        for place()."""
        columns = "row, row_hash, label, ticket" if tickets else "row, row_hash, label"
        with self._reported():
            rows = self._db.execute(f"SELECT {columns} FROM person_labels WHERE file=? AND axis=? ORDER BY row",
                                    (file, axis)).fetchall()
        return rows if taken_back else [r for r in rows if r[2] != TAKEN_BACK]

    def _adopt(self, file: str, row_hashes: list[str], texts: list[str]) -> None:
        """Labels from before they were kept by file and row (keyed by the text and the label set's fingerprint)
        become this file's plain axis's, once: those of the label set the file was labelled under last, as the
        old window showed them then. An older set's copy of a label is not read: the old window copied labels
        to a new set when its names stayed, and a label taken back after that was gone from the new set only.
        Texts matching no old label (another text column) use nothing up: the first opening that matches adopts."""
        if self._db.execute("SELECT 1 FROM migrated_files WHERE file=?", (file,)).fetchone():
            return
        hashes = set(map(text_hash, texts))
        old = self._db.execute("SELECT text_hash, label_set, label, created FROM manual_labels").fetchall()
        rows = [r for r in old if r[0] in hashes]
        if rows or not old:    # adopted now, or nothing old to adopt, ever
            # another process opening the file at this moment may have adopted it first: the same labels
            self._db.execute("INSERT OR IGNORE INTO migrated_files (file) VALUES (?)", (file,))
        if not rows:
            return
        last = max(rows, key=lambda r: r[3])[1]
        legacy = {h: label for h, label_set, label, _ in rows if label_set == last}   # never empty: last is a row's
        self._db.executemany(
            "INSERT OR IGNORE INTO person_labels (file, axis, row, row_hash, label) VALUES (?, ?, ?, ?, ?)",
            [(file, PLAIN, row, row_hashes[row], legacy[h]) for row, h in enumerate(map(text_hash, texts)) if h in legacy])


def _drift(stored: float | None, dtype: str) -> float:
    """A stored answer's drift; unknown (written before drift was kept) is 0 for float32's own scores, and
    NaN for a checked low precision's: it was kept on the language model's own margin, its bound not known
    (what that allows: engine/prediction.py, stands)."""
    if stored is not None:
        return float(stored)
    return math.nan if is_checked(dtype) else 0.0

"""Results that survive anything: an embedded SQLite database, written after every batch.

A result is keyed by (ticket text hash, prompt hash, model, dtype): the same text under the
same prompt and model always gets the same answer, so a killed run resumes where it stopped,
identical texts are classified once, and nothing is classified twice.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
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


class StoreUnavailable(ValueError):
    """The results database cannot be opened or written; the message names it and the way out."""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RunKey:
    """Everything besides the text that decides a result."""

    prompt_hash: str
    model: str
    dtype: str


@dataclass(frozen=True, slots=True)
class StoredResult:
    labels: list[str]
    scores: list[float]
    truncated: bool
    fallback: bool


def default_path() -> Path:
    return user_data_dir() / "results.sqlite3"


class ResultStore:
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        # WAL: a batch is durable once its transaction commits, and readers never block the writer
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def lookup(self, key: RunKey, hashes: Iterable[str]) -> dict[str, StoredResult]:
        found = {}
        hashes = list(dict.fromkeys(hashes))
        for start in range(0, len(hashes), 500):  # SQLite caps the number of parameters
            chunk = hashes[start:start + 500]
            rows = self._db.execute(
                f"SELECT text_hash, labels, scores, truncated, fallback FROM results WHERE prompt_hash=? AND "
                f"model=? AND dtype=? AND text_hash IN ({','.join('?' * len(chunk))})",
                (key.prompt_hash, key.model, key.dtype, *chunk))
            for h, labels, scores, truncated, fallback in rows:
                found[h] = StoredResult(json.loads(labels), json.loads(scores), bool(truncated), bool(fallback))
        return found

    def save(self, key: RunKey, results: dict[str, StoredResult]) -> None:
        """One transaction per batch: all of it is on disk, or none of it."""
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO results (text_hash, prompt_hash, model, dtype, labels, scores, truncated, "
                "fallback) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(h, key.prompt_hash, key.model, key.dtype, json.dumps(r.labels), json.dumps(r.scores),
                  int(r.truncated), int(r.fallback)) for h, r in results.items()])

    def count(self, key: RunKey) -> int:
        return self._db.execute("SELECT COUNT(*) FROM results WHERE prompt_hash=? AND model=? AND dtype=?",
                                (key.prompt_hash, key.model, key.dtype)).fetchone()[0]

    # labels a person chose
    def set_manual(self, label_set: str, text: str, label: str | None) -> None:
        with self._db:
            if label is None:
                self._db.execute("DELETE FROM manual_labels WHERE text_hash=? AND label_set=?",
                                 (text_hash(text), label_set))
            else:
                self._db.execute("INSERT OR REPLACE INTO manual_labels (text_hash, label_set, label) "
                                 "VALUES (?, ?, ?)", (text_hash(text), label_set, label))

    def manual_labels(self, label_set: str, texts: list[str]) -> dict[int, str]:
        chosen = dict(self._db.execute("SELECT text_hash, label FROM manual_labels WHERE label_set=?",
                                       (label_set,)).fetchall())
        return {i: chosen[h] for i, h in enumerate(map(text_hash, texts)) if h in chosen}

"""Each ticket embedded once: sentence vectors kept in the results database, beside the answers.

A vector is keyed by the cleaned text's hash (files.store.text_hash, the same key as a result)
and the encoder's identity (its name and weights' sha256), so a retrain, a label edit, a restart
or a second run never embeds a ticket again, and another encoder never reads this one's vectors.
Stored as float16: 384 dimensions x 2 bytes = 768 bytes a ticket, about 77 MB at 100,000 tickets
(float32 would be twice that). Every vector handed out has been through float16, fresh or read
back, so the learned part sees the same features on the first run as on every later one.

Its own table, created here; ResultStore (files/store.py) owns the others in the same file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from triage_app.engine.encoder import BATCH, EmbeddingCancelled, SentenceEncoder
from triage_app.files.store import default_path, text_hash
from triage_app.files.store_errors import (LOCK_TIMEOUT_S, StoreUnavailable, check_kind, check_version, make_private,
                                           reported)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    text_hash TEXT NOT NULL, encoder TEXT NOT NULL, vector BLOB NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (text_hash, encoder)
);
"""
_CHUNK = 500    # hashes per lookup: under every SQLite build's limit on bound parameters


class EmbeddingCache:
    """Vectors by (text hash, encoder identity). Raises StoreUnavailable when the file fails it."""

    def __init__(self, path: str | Path | None = None, timeout: float = LOCK_TIMEOUT_S):
        self.path = Path(path) if path else default_path()
        self.timeout = timeout
        with self._reported():
            check_kind(self.path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            make_private(self.path)     # the results database: the user's alone, whichever class opens it
            self._db = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False)
            try:
                check_version(self._db, self.path)      # a newer Triage's database is not ours to write
            except StoreUnavailable:
                self._db.close()
                raise
            # a cache: what a crash loses is embedded again, so a commit need not wait for the disk
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    def _reported(self):
        return reported(self.path, self.timeout)

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def lookup(self, encoder: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored float32 vectors among hashes, for this encoder identity."""
        wanted, found = list(dict.fromkeys(hashes)), {}
        with self._reported():
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(
                        f"SELECT text_hash, vector FROM embeddings WHERE encoder = ? AND text_hash IN ({marks})",
                        [encoder, *chunk]):
                    found[key] = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
        return found

    def save(self, encoder: str, vectors: dict[str, np.ndarray]) -> None:
        with self._reported(), self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (text_hash, encoder, vector) VALUES (?, ?, ?)",
                [(key, encoder, np.asarray(v, dtype=np.float16).tobytes()) for key, v in vectors.items()])

    def count(self, encoder: str) -> int:
        with self._reported():
            return self._db.execute("SELECT COUNT(*) FROM embeddings WHERE encoder = ?", (encoder,)).fetchone()[0]


def embedded(texts: Sequence[str], encoder: SentenceEncoder, cache: EmbeddingCache, batch_size: int = BATCH,
             progress: Callable[[int, int], None] | None = None, stop: Callable[[], bool] | None = None) -> np.ndarray:
    """float32 [N, dimensions] for the (cleaned) texts: stored vectors read back, the others embedded
    once per distinct text and saved batch by batch, so a stop (EmbeddingCancelled) keeps every
    finished batch. progress(done, total) counts distinct texts, the stored ones first. A text with
    nothing to read gets no vector, a row of zeros: its ticket stays unanswered (learn.TicketFeatures.blank)."""
    hashes = [text_hash(text) for text in texts]
    blank = {h for h, text in zip(hashes, texts) if not text.strip()}
    stored = cache.lookup(encoder.identity, [h for h in hashes if h not in blank])
    missing = list(dict.fromkeys(h for h in hashes if h not in stored and h not in blank))
    text_of = dict(zip(hashes, texts))
    total, done = len(stored) + len(missing), len(stored)
    if progress is not None and stored:
        progress(done, total)
    for rows, batch in encoder.embed_batches([text_of[h] for h in missing], batch_size):
        fresh = {missing[k]: vector for k, vector in zip(rows, batch)}
        cache.save(encoder.identity, fresh)
        stored.update({key: vector.astype(np.float16).astype(np.float32) for key, vector in fresh.items()})
        done += len(rows)
        if progress is not None:
            progress(done, total)
        if stop is not None and done < total and stop():
            raise EmbeddingCancelled(f"embedding stopped after {done} of {total} texts")
    vectors = np.zeros((len(texts), encoder.dimensions), dtype=np.float32)
    for k, key in enumerate(hashes):
        if key not in blank:
            vectors[k] = stored[key]
    return vectors

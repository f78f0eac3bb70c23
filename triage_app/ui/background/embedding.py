"""The sentence encoder on the engine's thread: each ticket of the open file embedded once, in the gaps
between the language model's requests.

The embedder lives on the engine worker's QThread, so the two models never run at once and the queued
requests of both are served in one order. Embedding a file is a job of short steps (clean a chunk of
rows; then, a chunk of distinct texts at a time, read what the results database holds and embed the rest
8 shortest-first a batch, files/embeddings.embedded): before every step, and between two batches, it asks
whether a request of the engine (a run, verify, a model load, a prompt) or a label set's vectors waits.
If one does, the job posts itself behind it and returns: the request is served next, after at most one
batch of 8 (well under a second), and the job goes on from where it was once it is done. Every batch is
stored as it is embedded, so a cancel, a new file or closing loses nothing finished.

The encoder is loaded once per process, on this thread (its modules imported before, on the main thread),
shared by every window, and named to the window; one that is missing or refused is one line,
and learning goes on with words (TF-IDF).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal, Slot

# What the engine's thread runs here is imported on the main thread: with the window, or, for what needs
# torch (the window imports none), with the engine's modules before it (app._import_engine): an import on
# the engine's thread goes through PySide's import hook while the UI thread runs Python.
from triage_app.engine.config import BUNDLED_ENCODER
from triage_app.files.clean import model_texts
from triage_app.files.store import StoreUnavailable, text_hash
from triage_app.learn.similarity import label_texts, label_vectors
from triage_app.ui.background.failures import one_line
from triage_app.ui.background.results_db import store_file

CLEAN_ROWS = 2_000      # rows cleaned in one step
CHUNK = 512             # distinct texts looked up and token-counted in one step, then embedded batch by batch


@dataclass(frozen=True, slots=True)
class EncoderInfo:
    name: str           # all-MiniLM-L6-v2
    source: str         # where its files came from: "bundled, checked", or the folder
    spec: str           # the encoder asked for: bundled, or the folder


@dataclass(frozen=True, slots=True)
class EmbeddingProgress:
    request: int
    done: int           # distinct cleaned texts with a vector, stored ones included
    total: int          # distinct cleaned texts of the file
    per_s: float        # texts embedded a second so far (0 before a batch was timed)


@dataclass(frozen=True, slots=True)
class Embedded:
    request: int
    vectors: np.ndarray     # [N, D] float32, one row per ticket in the file's order (duplicates repeated)
    total: int              # distinct cleaned texts
    fresh: int              # of those, embedded now; the others came from the results database


@dataclass(frozen=True, slots=True)
class LabelVectors:
    axis: str
    names: list             # the label names the vectors are for, in order
    vectors: np.ndarray | None  # [L, D] each label's prototype (learn.label_vectors); None: a label has no text, or
                                # a later set of the field's was asked for


class TicketEmbedding:
    """One file's embedding as a job of short steps (its generator yields after each); no Qt."""

    def __init__(self, request: int, texts: list[str], cleaning):
        self.request, self.texts, self.cleaning = request, texts, cleaning
        self.done = self.total = self.fresh = 0     # fresh: texts embedded now, not read back
        self.timed, self.seconds = 0, 0.0           # texts embedded and the time they took, for per_s
        self._vectors: dict[str, np.ndarray] = {}
        self._hashes: list[str] = []
        self._dimensions = 0         # the encoder's, once started
        self._last = None           # (done, time) at the latest batch of the embedded() call in flight
        self.running = None         # the steps, once started (a generator: the job resumes where it was)
        self.cache = None

    @property
    def per_s(self) -> float:
        return self.timed / self.seconds if self.seconds else 0.0

    def start(self, encoder, cache, stop, report) -> None:
        """stop() is asked between batches (files.embeddings.embedded); report() after each batch."""
        self.cache, self.running = cache, self._steps(encoder, _Counted(cache, self), stop, report)
        self._dimensions = encoder.dimensions

    def _steps(self, encoder, cache, stop, report):
        from triage_app.engine.encoder import EmbeddingCancelled
        from triage_app.files.embeddings import embedded

        clean: list[str] = []
        for start in range(0, len(self.texts), CLEAN_ROWS):
            clean += model_texts(self.texts[start:start + CLEAN_ROWS], self.cleaning)
            yield
        self._hashes = [text_hash(text) for text in clean]
        # A step at a time, and sorted by numpy, which lets go of the GIL: dict(zip()) and sorted() of a
        # whole big file are each one call holding it, a stall of the window (docs/files.md)
        text_of: dict[str, str] = {}
        for start in range(0, len(clean), CLEAN_ROWS):
            text_of.update(zip(self._hashes[start:start + CLEAN_ROWS], clean[start:start + CLEAN_ROWS]))
        keys = [key for key, text in text_of.items() if text.strip()]    # a blank text gets no vector: zeros
        lengths = np.fromiter((len(text_of[key]) for key in keys), dtype=np.int64, count=len(keys))
        # shortest first over the whole file, so each chunk's batches pad little
        order = [keys[k] for k in np.argsort(lengths, kind="stable")]
        self.total = len(order)
        for start in range(0, len(order), CHUNK):
            chunk = order[start:start + CHUNK]
            while True:
                self._last = None
                try:
                    vectors = embedded([text_of[key] for key in chunk], encoder, cache,
                                       progress=lambda done, _total: report(self._timed(start + done)), stop=stop)
                    break
                except EmbeddingCancelled:      # a request waits, or a cancel: what was stored is read back
                    yield
            self._vectors.update(zip(chunk, vectors))
            self.done = start + len(chunk)
            yield

    def _timed(self, done: int) -> EmbeddingProgress:
        """Counts texts embedded against the time they took; the first report of each embedded() call
        (its stored texts, or a first batch after a wait) is left out of the rate."""
        now = time.perf_counter()
        if self._last is not None:
            self.timed += done - self._last[0]
            self.seconds += now - self._last[1]
        self._last, self.done = (done, now), done
        return self.progress

    @property
    def progress(self) -> EmbeddingProgress:
        return EmbeddingProgress(self.request, self.done, self.total, self.per_s)

    def vectors(self) -> np.ndarray:
        """[N, D] float32 in row order, copied a step at a time (np.stack of every row is one call holding the GIL)."""
        none = np.zeros(self._dimensions, dtype=np.float32)     # a blank ticket's (files.embeddings.embedded)
        rows = [self._vectors.get(key, none) for key in self._hashes]
        out = np.empty((len(rows), self._dimensions), dtype=np.float32)
        for start in range(0, len(rows), CLEAN_ROWS):
            out[start:start + CLEAN_ROWS] = rows[start:start + CLEAN_ROWS]
        return out


class EmbeddingWorker(QObject):
    """Moved to the engine worker's thread; the main thread only calls embed, embed_labels and cancel."""

    _embed_requested = Signal(object)               # a TicketEmbedding, new or resumed
    _labels_requested = Signal(str, object, int)    # field, its LabelSet, the request's number
    _labels_again = Signal(str, object, int)        # the same, posted behind a request that came first
    _encoder_requested = Signal(str)                # bundled, or a folder: the encoder of the requests after it

    encoder_loaded = Signal(object)     # EncoderInfo
    encoder_failed = Signal(str, str)   # the encoder asked for, why there is none (one line)
    progress = Signal(object)           # EmbeddingProgress, after every step
    embedded = Signal(object)           # Embedded: every ticket of the request has its vector
    stopped = Signal(int)               # request: cancelled, or another file came; what was stored stays
    failed = Signal(int, str)           # request, one line
    label_vectors = Signal(object)      # LabelVectors

    def __init__(self, engine, db):
        """engine: the EngineWorker whose requests come first (its waiting() and closing); db: the
        window's ResultsDb, whose file keeps the vectors."""
        super().__init__()
        self.engine, self.db = engine, db
        self._encoder = None
        self._spec = BUNDLED_ENCODER        # which encoder: the bundled one, or a folder
        self._refused = ""                  # the one line, once the encoder could not be had
        self._next = 0
        self._cancelled_up_to = 0
        self._labels_asked = self._labels_served = 0
        self._labels_latest: dict[str, int] = {}    # field -> the number of its latest label set asked for
        # queued even when emitted on this thread: a job that steps aside is posted behind the request
        self._embed_requested.connect(self._embed, Qt.ConnectionType.QueuedConnection)
        self._labels_requested.connect(self._labels)
        self._labels_again.connect(self._labels, Qt.ConnectionType.QueuedConnection)
        self._encoder_requested.connect(self._use)

    # requests (call from the main thread)
    def embed(self, texts: list[str], cleaning) -> int:
        """Embed these tickets (cleaned as cleaning, a files.clean TextCleaning, says: as the model reads
        them); every earlier request stops. Returns the id its signals carry."""
        self._next += 1
        self._cancelled_up_to = self._next - 1
        self._embed_requested.emit(TicketEmbedding(self._next, list(texts), cleaning))
        return self._next

    def embed_labels(self, axis: str, label_set) -> None:
        """A field's label prototypes: its names, descriptions and examples embedded (learn.label_texts)."""
        self._labels_asked += 1
        self._labels_latest[axis] = self._labels_asked
        self._labels_requested.emit(axis, label_set, self._labels_asked)

    def use_encoder(self, spec: str) -> None:
        """The requests after this one embed with this encoder (bundled, or a folder), loaded at the first."""
        self._encoder_requested.emit(spec)

    def cancel(self) -> None:
        """Stop every embedding asked for so far after the batch in flight; thread-safe."""
        self._cancelled_up_to = self._next

    # served on the engine's thread
    def _stopping(self, request: int) -> bool:
        return self.engine.closing or request <= self._cancelled_up_to

    def _waiting(self) -> bool:
        return self.engine.waiting() or self._labels_asked > self._labels_served

    @Slot(object)
    def _embed(self, job: TicketEmbedding) -> None:
        if self._stopping(job.request):
            if job.cache is not None:
                job.cache.close()
            self.stopped.emit(job.request)
            return
        if self._waiting():             # a request came first: it is served before the job starts
            self._embed_requested.emit(job)
            return
        encoder = self._encoder_here()
        if encoder is None:
            return
        try:
            self._work(job, encoder)
        except Exception as exc:        # a database or encoder failure: learning goes on with words
            if job.cache is not None:
                job.cache.close()
            self.failed.emit(job.request, one_line("embedding stopped", exc))

    def _work(self, job: TicketEmbedding, encoder) -> None:
        if job.running is None:
            job.start(encoder, self._cache(), lambda: self._stopping(job.request) or self._waiting(), self.progress.emit)
        for _ in job.running:
            if self._stopping(job.request):
                job.cache.close()
                self.stopped.emit(job.request)
                return
            if self._waiting():
                self._embed_requested.emit(job)      # behind the request that waits: resumed after it
                return
        job.cache.close()
        self.progress.emit(job.progress)
        self.embedded.emit(Embedded(job.request, job.vectors(), job.total, job.fresh))

    @Slot(str, object, int)
    def _labels(self, axis: str, label_set, number: int) -> None:
        """A field's prototypes through the results database's embedding cache, as the command line builds
        them (run/embedded.py): each text embedded once, and the same float16-kept vectors on both sides. A
        request of the engine that comes meanwhile goes first (a run waits one batch at most): the labels
        are asked again behind it."""
        from triage_app.engine.encoder import EmbeddingCancelled
        from triage_app.files.embeddings import embedded

        if number < self._labels_latest.get(axis, number):   # a later set of the field's is on its way: no vectors,
            self._labels_served += 1                          # answered (the window counts its requests)
            self.label_vectors.emit(LabelVectors(axis, list(label_set.names), None))
            return
        encoder = None if self.engine.closing else self._encoder_here()
        if encoder is None:
            self._labels_served += 1
            return
        texts, owners = label_texts(label_set)
        cache = self._cache()
        try:
            vectors = label_vectors(embedded(texts, encoder, cache, stop=self.engine.waiting), owners,
                                    len(label_set.names))
        except EmbeddingCancelled:
            self._labels_again.emit(axis, label_set, number)
            return
        except ValueError:              # a label with no text to embed: the similarity waits for one
            vectors = None
        finally:
            cache.close()
        self._labels_served += 1
        self.label_vectors.emit(LabelVectors(axis, list(label_set.names), vectors))

    @Slot(str)
    def _use(self, spec: str) -> None:
        if spec != self._spec:
            self._spec, self._encoder = spec, None
        self._refused = ""                  # asked again: a folder refused before may be there now

    def _encoder_here(self):
        """The encoder, loaded at the first request; None (said) when it is missing or refused."""
        if self._encoder is None and not self._refused:
            from triage_app.engine.encoder import EncoderRefused, SentenceEncoder

            try:
                self._encoder = SentenceEncoder.chosen(self._spec)
            except Exception as exc:    # EncoderRefused, or a folder that transformers cannot read
                known = isinstance(exc, EncoderRefused)
                self._refused = str(exc) if known else one_line("it could not be read", exc)
            else:
                if self._encoder is None:
                    self._refused = "none was chosen in Settings"
                else:
                    source = "bundled, checked" if self._spec == BUNDLED_ENCODER else self._spec
                    self.encoder_loaded.emit(EncoderInfo(self._encoder.name, source, self._spec))
        if self._encoder is None:       # said for every file: each one's learning goes on with words
            self.encoder_failed.emit(self._spec, self._refused)
        return self._encoder

    def _cache(self):
        """The results database's embedding table; while the database is unusable, vectors not kept."""
        from triage_app.files.embeddings import EmbeddingCache

        if self.db.problem is None:
            try:
                return EmbeddingCache(store_file(self.db.path))
            except StoreUnavailable as exc:
                self.db.give_up_on(exc)
        return _Unkept()


class _Counted:
    """The cache embedded() writes through, counting what it saves: the texts embedded now."""

    def __init__(self, cache, job: TicketEmbedding):
        self.cache, self.job = cache, job

    def lookup(self, encoder: str, hashes) -> dict:
        return self.cache.lookup(encoder, hashes)

    def save(self, encoder: str, vectors: dict) -> None:
        self.cache.save(encoder, vectors)
        self.job.fresh += len(vectors)


class _Unkept:
    """An embedding cache that keeps nothing: the results database cannot be used."""

    def lookup(self, encoder: str, hashes) -> dict:
        return {}

    def save(self, encoder: str, vectors: dict) -> None:
        pass

    def close(self) -> None:
        pass

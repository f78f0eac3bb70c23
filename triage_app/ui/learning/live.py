"""Live learning: the window retrains from a person's labels off the UI thread.

One retrain at a time, on the controller's own single-thread pool (as file_reader.py reads): a
label that comes while a retrain runs marks its result out of date, and one more retrain follows
when it ends, so labels given fast cost two retrains, never a queue of them. A file (or a new
label set) starts a new generation: a result learned for an earlier one is dropped. A file's
TicketFeatures are fitted once, in the background, as soon as it is set, so the first label's
retrain does not wait for them. A retrain cannot be interrupted (scikit-learn has no cancel);
close() waits for it, and nothing is emitted after close.

The language model's scores reach learning as numbers (the log-probabilities the table holds);
this module knows nothing of the engine.

With several fields (queue, priority), each field has a LiveLearning of its own, and they share one
LearningThread: one retrain at a time across fields (scikit-learn's warning filters, which a
retrain sets, are the whole process's, and a retrain takes a core), and the file's features fitted
once for all of them.

Once the window's tickets are embedded by the sentence encoder (minutes on a big file: until then
TF-IDF), the features are the embeddings, and a field whose label vectors have come (each label's
prototype, learn/similarity.py) weighs the encoder's similarity as a third part: with no label of
the person's yet, its answers are the zero-shot rule (learn.zero_shot), not the language model's alone.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, QThreadPool, Signal

from triage_app.learn import (LabelSimilarity, LearnConfig, Learned, TicketFeatures, learn, next_to_label,
                              similarity_scores)

SIMILARITY_SLICE = 10_000    # rows per similarity product: a float64 copy of every embedding at once is 300 MB at 100k


@dataclass(slots=True)
class Retrained:
    """One retrain's answers and what the window says about them."""

    learned: Learned
    queue: list[int]           # next to label, best first
    changed: int               # answers that differ from the previous retrain's (the model's, for the first)
    first: bool                # the first retrain on this file and label set
    seconds: float
    modelled: bool = True      # the model has answered some row: answers to change, or to combine
    zero_shot: bool = False    # the answers before a label were the zero-shot rule (language model + similarity)

    def status(self) -> str:
        """The window's line: learned from N labels (per label: …) — estimated accuracy, and what changed."""
        similar = self.learned.weights.similarity > 0
        if not self.learned.teaching.n and similar:
            return ("No labels of yours yet: the answers combine the language model and the encoder's "
                    "similarity of each ticket to each label" if self.modelled else "No labels of yours yet and "
                    "no model run: the answers are the encoder's similarity of each ticket to each label")
        if self.first and not self.modelled:
            return f"{self.learned.status()} — {self.changed:,} answer(s) from your labels alone; no model run yet"
        since = "the last retrain" if not self.first else \
            "the answers before your labels" if self.zero_shot else "the model's answers"
        parts = "; the encoder's similarity to each label counts too" if similar else ""
        return f"{self.learned.status()}{parts} — {self.changed:,} answer(s) changed since {since}"


@dataclass(frozen=True, slots=True)
class RetrainInputs:
    """What one retrain reads, taken on the UI thread as it starts."""

    generation: int
    texts: list[str]
    names: list[str]
    scores: np.ndarray                 # [N, L] the language model's log-probabilities (NaN: not scored)
    labels: dict[int, str]
    drift: np.ndarray                  # [N]
    last: Learned | None
    embeddings: np.ndarray | None      # [N, D] the texts' sentence embeddings; None: TF-IDF
    label_vectors: np.ndarray | None   # [L, D] the names' prototypes; None: no similarity


class LearningThread:
    """The one thread every field's retrains run on, and the features of the file they read."""

    def __init__(self):
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)
        # (texts, their embeddings or None, features): pool thread only
        self.fitted: tuple[list[str], np.ndarray | None, TicketFeatures] | None = None
        # (texts, [N, D] embeddings): the window's latest, UI thread only; a field's learning takes them
        # when its texts are these
        self.embedded: tuple[list[str], np.ndarray] | None = None


class LiveLearning(QObject):
    """Retrains from the table's labels and scores; call from the UI thread only."""

    retrained = Signal(object)      # Retrained, for the current file and label set only
    failed = Signal(str)            # one line: the retrain failed; the answers shown stay as they were
    _done = Signal(int, object)     # generation, Retrained, None (stale, skipped) or the exception: pool -> UI

    def __init__(self, table, config: LearnConfig = LearnConfig(), queue_size: int = 20,
                 thread: LearningThread | None = None):
        """table: what is learned from, read on the UI thread when a retrain starts: `lm_scores`
        ([N, L] log-probabilities, NaN where not scored), `lm_drift` ([N], review/answers.py) and
        `person_labels` ({row: label}), as TicketTableModel has them; thread: the one shared with the
        other fields' learning."""
        super().__init__()
        self.table = table
        self.config = config
        self.queue_size = queue_size
        self.thread = thread or LearningThread()
        self.pool = self.thread.pool
        self._generation = 0
        self._texts: list[str] = []
        self._names: list[str] = []
        self._embeddings: np.ndarray | None = None    # [N, D] for _texts, from thread.embedded
        self._label_vectors: tuple[list[str], np.ndarray] | None = None   # (names, [L, D]) the latest sent
        self._last: Learned | None = None      # the current generation's latest result
        # (embeddings, label vectors, their LabelSimilarity): the latest computed, pool thread only;
        # a retrain after each label would compute the same again
        self._similarity: tuple[np.ndarray, np.ndarray, LabelSimilarity] | None = None
        self._running = False
        self._dirty = False
        self._closed = False
        self._done.connect(self._finished)

    @property
    def busy(self) -> bool:
        return self._running

    def set_file(self, texts: list[str], names: list[str]) -> None:
        """A new file, text column or label set: earlier results no longer apply. Retrains at once
        when the table already holds a person's labels (from the store, or a column), or the encoder's
        similarity can answer."""
        if self._closed:
            return
        self._generation += 1
        self._last = None
        # the window's own list, kept: no one changes a file's texts in place (a new text column is a new
        # list). Copying and comparing half a million held the UI thread (docs/files.md); the pool thread
        # compares them with the features it fitted last, and keeps those for the same texts
        if texts is not self._texts:
            self._texts = texts if isinstance(texts, list) else list(texts)
            self._embeddings = self._embedded()
            texts, embeddings, generation = self._texts, self._embeddings, self._generation
            self.pool.start(lambda: self._features_for(texts, embeddings, generation))
        self._names = list(names)
        if self.table.person_labels or self._vectors() is not None:
            self.request()

    def embeddings_changed(self) -> None:
        """The thread's embeddings came (or changed): learning on them from now on, if they are this
        file's texts' (vectors of another file, changed meanwhile, are not); retrains at once where
        it has labels to learn or a similarity to answer with."""
        found = self._embedded()
        if self._closed or found is None or found is self._embeddings:
            return
        self._embeddings = found
        if self.table.person_labels or self._vectors() is not None:
            self.request()

    def forget_embeddings(self) -> None:
        """No encoder now: learning reads words, retrained at once where it has labels."""
        if self._closed or self._embeddings is None:
            return
        self._embeddings = None
        if self.table.person_labels or self._last is not None:     # answers the encoder's similarity moved
            self.request()

    def set_label_vectors(self, names: list[str], vectors: np.ndarray) -> None:
        """[L, D] the prototypes of these label names (learn.label_vectors): with embeddings, the
        encoder's similarity is weighed from now on. Vectors for names that are not the current ones
        are kept for when they are (a label edit sends new ones), never used for others."""
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or len(vectors) != len(names):
            raise ValueError(f"label vectors of shape {vectors.shape} for {len(names)} label names: one row per label")
        before = self._vectors()
        self._label_vectors = (list(names), vectors)
        if self._vectors() is not None or before is not None:      # weighed now, or weighed no more
            self.request()

    def request(self) -> None:
        """A label was given, changed or taken back (or a run ended): retrain, now or right after the one running."""
        if self._closed or not self._texts or not self._names:
            return
        if self._running:
            self._dirty = True
            return
        scores, labels, drift = self.table.lm_scores, self.table.person_labels, self.table.lm_drift
        if scores.shape != (len(self._texts), len(self._names)):
            return      # the table is not (yet) on this file and label set: set_file comes first
        self._running = True
        inputs = RetrainInputs(self._generation, self._texts, self._names, scores, labels, drift, self._last,
                               self._embeddings, self._vectors())
        self.pool.start(lambda: self._retrain(inputs))

    def close(self, timeout_ms: int) -> bool:
        """No more retrains and no more signals; wait for the one running. False: still running."""
        self._closed = True
        self.pool.clear()
        done = self.pool.waitForDone(timeout_ms)
        self._running = not done
        return done

    def encoded(self) -> tuple[np.ndarray, LabelSimilarity | None] | None:
        """([N, D] this file's embeddings, the encoder's similarity to the current names or None), once the
        embeddings have come; None before. What a labels-first run learns on (ui/labels_first.py): the
        similarity the retrains weigh, computed here only if no retrain has yet."""
        if self._embeddings is None:
            return None
        return self._embeddings, self._similarity_for(self._embeddings, self._vectors())

    def _embedded(self) -> np.ndarray | None:
        embedded = self.thread.embedded
        return embedded[1] if embedded is not None and embedded[0] == self._texts else None

    def _vectors(self) -> np.ndarray | None:
        """[L, D] the current names' label vectors, where they and the texts' embeddings have come."""
        held = self._label_vectors
        if self._embeddings is None or held is None or held[0] != self._names:
            return None
        return held[1]

    # on the pool's thread
    def _features_for(self, texts: list[str], embeddings: np.ndarray | None, generation: int) -> TicketFeatures | None:
        if generation != self._generation:
            return None                        # a newer file came before this one was fitted
        fitted = self.thread.fitted      # another field's learning may have fitted these texts
        if fitted is None or fitted[1] is not embeddings or (fitted[0] is not texts and fitted[0] != texts):
            self.thread.fitted = fitted = (texts, embeddings, TicketFeatures(texts, embeddings))
        return fitted[2]

    def _similarity_for(self, embeddings: np.ndarray | None, vectors: np.ndarray | None) -> LabelSimilarity | None:
        """The encoder's zero-shot log-probabilities [N, L] with the label vectors, where both have come."""
        if embeddings is None or vectors is None:
            return None
        held = self._similarity
        if held is None or held[0] is not embeddings or held[1] is not vectors:
            scores = np.concatenate([similarity_scores(embeddings[i:i + SIMILARITY_SLICE], vectors)
                                     for i in range(0, len(embeddings), SIMILARITY_SLICE)])
            self._similarity = held = (embeddings, vectors, LabelSimilarity(scores, vectors))
        return held[2]

    def _retrain(self, inputs: RetrainInputs) -> None:
        generation, scores, names, config = inputs.generation, inputs.scores, inputs.names, self.config
        try:
            started = time.perf_counter()
            features = self._features_for(inputs.texts, inputs.embeddings, generation)
            if features is None:
                self._emit(generation, None)
                return
            similarity = self._similarity_for(inputs.embeddings, inputs.label_vectors)
            learned = learn(features, scores, inputs.labels, names, config, inputs.drift, similarity=similarity)
            queue = next_to_label(learned, features, self.queue_size)
            # the answers before any label: the model's own, or the zero-shot rule with the similarity
            before = inputs.last or learn(features, scores, {}, names, config, similarity=similarity)
            result = Retrained(learned, queue, len(learned.changed_since(before)), inputs.last is None,
                               time.perf_counter() - started, bool(np.isfinite(scores).any()), similarity is not None)
        except Exception as exc:   # a failed retrain must not end the window; it says one line
            traceback.print_exception(exc)
            result = exc
        self._emit(generation, result)

    def _emit(self, generation: int, result) -> None:
        if not self._closed:       # the window is gone or going: nobody is left to show it
            self._done.emit(generation, result)

    # back on the UI thread
    def _finished(self, generation: int, result) -> None:
        self._running = False
        if self._closed:
            return
        if generation == self._generation and isinstance(result, Exception):
            self.failed.emit(f"Learning from your labels failed: {type(result).__name__}: {result}")
        elif generation == self._generation and result is not None:
            self._last = result.learned
            self.retrained.emit(result)
        if self._dirty:
            self._dirty = False
            self.request()

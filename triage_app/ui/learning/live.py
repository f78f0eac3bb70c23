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
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThreadPool, Signal

from triage_app.learn import LearnConfig, Learned, TicketFeatures, learn, next_to_label


@dataclass(slots=True)
class Retrained:
    """One retrain's answers and what the window says about them."""

    learned: Learned
    queue: list[int]           # next to label, best first
    changed: int               # answers that differ from the previous retrain's (the model's, for the first)
    first: bool                # the first retrain on this file and label set
    seconds: float
    modelled: bool = True      # the model had answered some row before it: there was something to change

    def status(self) -> str:
        """The window's line: learned from N labels (per label: …) — estimated accuracy, and what changed."""
        if self.first and not self.modelled:
            return f"{self.learned.status()} — {self.changed:,} answer(s) from your labels alone; no model run yet"
        since = "the model's answers" if self.first else "the last retrain"
        return f"{self.learned.status()} — {self.changed:,} answer(s) changed since {since}"


class LearningThread:
    """The one thread every field's retrains run on, and the features of the file they read."""

    def __init__(self):
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)
        self.fitted: tuple[list[str], TicketFeatures] | None = None   # pool thread only


class LiveLearning(QObject):
    """Retrains from the table's labels and scores; call from the UI thread only."""

    retrained = Signal(object)      # Retrained, for the current file and label set only
    failed = Signal(str)            # one line: the retrain failed; the answers shown stay as they were
    _done = Signal(int, object)     # generation, Retrained, None (stale, skipped) or the exception: pool -> UI

    def __init__(self, table, config: LearnConfig = LearnConfig(), queue_size: int = 20,
                 thread: LearningThread | None = None):
        """table: what is learned from, read on the UI thread when a retrain starts: `lm_scores`
        ([N, L] log-probabilities, NaN where not scored), `lm_drift` ([N], review/answers.py) and
        `manual_labels` ({row: label}), as TicketTableModel has them; thread: the one shared with the
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
        self._last: Learned | None = None      # the current generation's latest result
        self._running = False
        self._dirty = False
        self._closed = False
        self._done.connect(self._finished)

    @property
    def busy(self) -> bool:
        return self._running

    def set_file(self, texts: list[str], names: list[str]) -> None:
        """A new file, text column or label set: earlier results no longer apply. Retrains at once
        when the table already holds a person's labels (from the store, or a column)."""
        if self._closed:
            return
        self._generation += 1
        self._last = None
        if list(texts) != self._texts:
            self._texts = list(texts)
            texts, generation = self._texts, self._generation
            self.pool.start(lambda: self._features_for(texts, generation))
        self._names = list(names)
        if self.table.manual_labels:
            self.request()

    def request(self) -> None:
        """A label was given, changed or taken back (or a run ended): retrain, now or right after the one running."""
        if self._closed or not self._texts or not self._names:
            return
        if self._running:
            self._dirty = True
            return
        scores, labels, drift = self.table.lm_scores, self.table.manual_labels, self.table.lm_drift
        if scores.shape != (len(self._texts), len(self._names)):
            return      # the table is not (yet) on this file and label set: set_file comes first
        self._running = True
        generation, texts, names, last = self._generation, self._texts, self._names, self._last
        self.pool.start(lambda: self._retrain(generation, texts, names, scores, labels, drift, last))

    def close(self, timeout_ms: int) -> bool:
        """No more retrains and no more signals; wait for the one running. False: still running."""
        self._closed = True
        self.pool.clear()
        done = self.pool.waitForDone(timeout_ms)
        self._running = not done
        return done

    # on the pool's thread
    def _features_for(self, texts: list[str], generation: int) -> TicketFeatures | None:
        if generation != self._generation:
            return None                        # a newer file came before this one was fitted
        fitted = self.thread.fitted      # another field's learning may have fitted these texts
        if fitted is None or (fitted[0] is not texts and fitted[0] != texts):
            self.thread.fitted = fitted = (texts, TicketFeatures(texts))
        return fitted[1]

    def _retrain(self, generation, texts, names, scores, labels, drift, last) -> None:
        try:
            started = time.perf_counter()
            features = self._features_for(texts, generation)
            if features is None:
                self._emit(generation, None)
                return
            learned = learn(features, scores, labels, names, self.config, drift)
            queue = next_to_label(learned, features, self.queue_size)
            before = last or learn(features, scores, {}, names, self.config)      # the model's own answers
            result = Retrained(learned, queue, len(learned.changed_since(before)), last is None,
                               time.perf_counter() - started, bool((before.labels >= 0).any()))
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

"""What the window does with live learning: retrain when a person labels or a run ends, show the
answers and the status line, keep the Next-to-label queue, and take labels from a column.

LiveLearning (ui/learning/live.py) retrains off the UI thread; this object is its window side, so the
main window only tells it what happened. Each field (queue, priority) learns from its own labels: a
LiveLearning per field, reading that field's scores and labels; the status line and Next to label
are the current field's. The sentence encoder's embeddings of the tickets, once the worker has them,
replace TF-IDF for every field, and each field's label vectors add the encoder's similarity to its labels.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from triage_app.engine.labels import LabelSet
from triage_app.learn import NONE_OF_THESE, fit_none_of_these, label_named_so
from triage_app.ui.learning.column_offer import LabelOfferDialog, best_column, label_like
from triage_app.ui.learning.live import LearningThread, LiveLearning
from triage_app.ui.plain_text import tooltip as plain_tooltip
from triage_app.ui.words import duration


class LearningSession(QObject):
    changed = Signal()          # answers in the table changed: counts and accuracy follow
    message = Signal(str)       # one line for the status bar
    failed = Signal(str)        # one line for the message bar
    skip = Signal()             # the person chose to stop the model: their labels answer the rest
    unsettled = Signal(str, object)   # field, rows: their learned answers need float32's own scores (Learned.unsettled)

    def __init__(self, model, proxy, parent=None):
        """model, proxy: the ticket table's TicketTableModel and its TicketFilterProxy."""
        super().__init__(parent)
        self.model, self.proxy = model, proxy
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)      # it names labels, which may come from a file
        self.status.setWordWrap(True)
        self.skip_button = QPushButton("Stop the model: my labels answer the rest")
        self.skip_button.clicked.connect(self._skip)
        self.skip_button.hide()
        self.offer_none = QCheckBox(f"Offer “{NONE_OF_THESE}”")
        self._offer_none_tip = (f"Tickets your labels and the model are too unsure of for any label are answered "
                                f"“{NONE_OF_THESE}”: under a threshold fitted on your labels, cross-validated. "
                                f"Your own label always wins. This field only.")
        self.offer_none.setToolTip(self._offer_none_tip)
        self.offer_none.toggled.connect(self._offer_none_toggled)
        self.none_fields: set[str] = set()            # fields that offer "none of these"
        self.bar = QWidget()              # under the table: the status line, and the offer to skip
        layout = QHBoxLayout(self.bar)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status, 1)
        layout.addWidget(self.offer_none)
        layout.addWidget(self.skip_button)
        self._run = None                  # the running run's latest progress (a worker RunProgress); None: no run
        self._scored = self._scored_at_retrain = 0    # labelled tickets this run scored: all, and at the last retrain
        self.lives: dict[str, LiveLearning] = {}      # field -> its learning, kept while the window lives
        self.thread = LearningThread()                # one retrain at a time, whichever field's
        self.queues: dict[str, list[int] | None] = {}   # field -> its Next to label queue (None: not yet)
        self._status: dict[str, str] = {}             # field -> its latest status line
        self.queue_shown = False

    @property
    def learning(self) -> LiveLearning:
        """The current field's learning."""
        return self._live(self.model.current_axis)

    @property
    def queue(self) -> list[int] | None:
        return self.queues.get(self.model.current_axis)

    def _live(self, axis: str) -> LiveLearning:
        if axis not in self.lives:
            live = self.lives[axis] = LiveLearning(_FieldTable(self.model, axis), thread=self.thread)
            live.retrained.connect(lambda result, live=live: self._retrained(live, result))
            live.failed.connect(self.failed)
        return self.lives[axis]

    def file_changed(self, texts: list[str], names: dict[str, list[str]]) -> None:
        """A new file, text column or label set ({field: label names}): learning starts again from
        each field's labels, and Next to label, if shown, waits for a queue of these rows (the
        proxy's was the old rows')."""
        self.queues, self._status = {}, {}
        self.status.clear()
        for axis, label_names in names.items():
            if texts and len(label_names) >= 2:
                self._live(axis).set_file(texts, label_names)
        if self.queue_shown:
            self.show_queue(True)
        self._offer_none_state(self.model.current_axis)

    def set_embeddings(self, texts: list[str], embeddings: np.ndarray) -> None:
        """[N, D] the sentence embeddings of these texts, in row order: every field learns on them from now
        on instead of TF-IDF, and retrains at once where it has labels (or label vectors). Ignored by a
        field whose file is no longer these texts."""
        embeddings = np.asarray(embeddings, dtype=np.float32)
        if embeddings.ndim != 2 or len(embeddings) != len(texts):
            raise ValueError(f"embeddings of shape {embeddings.shape} for {len(texts)} tickets: one row per ticket")
        self.thread.embedded = (list(texts), embeddings)
        for live in self.lives.values():
            live.embeddings_changed()

    def forget_embeddings(self) -> None:
        """No encoder chosen: every field learns on words (TF-IDF) from now on, and retrains where it has labels."""
        self.thread.embedded = None
        for live in self.lives.values():
            live.forget_embeddings()

    def set_label_vectors(self, axis: str, vectors: np.ndarray, names: list[str] | None = None) -> None:
        """[L, D] a field's label prototypes (learn.label_vectors) for `names` (None: the field's label names
        now): with embeddings, its answers weigh the encoder's similarity to each label; with no label of
        the person's, they are the zero-shot rule. Vectors for names the field no longer has are ignored."""
        self._live(axis).set_label_vectors(self.model.names_of(axis) if names is None else names, vectors)

    def forget_label_vectors(self) -> None:
        """Another encoder: the label vectors of the old one say nothing of its tickets' vectors."""
        for live in self.lives.values():
            live.set_label_vectors([], np.zeros((0, 0)))     # vectors of no label: none of the current ones

    def axis_chosen(self, axis: str) -> None:
        """The current field is another: its status line, and its Next to label queue if shown."""
        self.status.setText(self._status_line(axis))
        self.skip_button.hide()
        self.offer_none.blockSignals(True)
        self.offer_none.setChecked(axis in self.none_fields)
        self.offer_none.blockSignals(False)
        self._offer_none_state(axis)
        if self.queue_shown:
            self.show_queue(True)

    def rename_axis(self, old: str, new: str) -> None:
        """A field renamed: its learning, queue and status go with it."""
        for held in (self.lives, self.queues, self._status):
            if old in held:
                held[new] = held.pop(old)
        if old in self.none_fields:
            self.none_fields = (self.none_fields - {old}) | {new}
        if new in self.lives:
            self.lives[new].table.axis = new

    def person_labelled(self, axis: str) -> None:
        self._live(axis).request()

    def run_progress(self, progress) -> None:
        """A run is going: how far, and how fast (the offer to skip it says both)."""
        self._run = progress

    def batch_scored(self, axis: str, rows: list[int]) -> None:
        """The model scored these rows of a field: tickets the person labelled change the weights, so
        retrain during the run (that retrain is what may offer to skip the rest). A retrain on a big file
        takes a core for seconds from the run: one each time the scored labels grow by a quarter, not
        one per batch."""
        labelled = self.model.answers_of(axis).person_labels
        self._scored += sum(1 for r in rows if r in labelled)
        if self._scored >= max(self._scored_at_retrain + 1, 1.25 * self._scored_at_retrain):
            self._scored_at_retrain = self._scored
            self._live(axis).request()

    def run_done(self, axis: str) -> None:
        """A field's scores changed (its run ended, finished or not): its weights are fitted again on them."""
        self._run = None
        self._scored = self._scored_at_retrain = 0
        self.skip_button.hide()
        if axis in self.model.axes:
            self._live(axis).request()

    def show_queue(self, on: bool) -> None:
        """Next to label: the tickets a label would teach most, best first."""
        self.queue_shown = on
        if on and self.queue is None:
            self.learning.request()      # with no labels yet, the queue is the model's least sure
        self.proxy.set_next_to_label(self.queue if on else None)

    def offer_column(self, column: str | None, parent) -> tuple[list[str], dict[int, str]] | None:
        """Ask whether a column's values become the label set and its filled rows the person's labels;
        (names, {row: label}) when the person says yes. column: the one suggested (the gold column),
        or None; the dialog offers every label-like column of the table and starts on the best."""
        frame = self.model.frame
        cells = {str(name): frame.iloc[:, k].tolist() for k, name in enumerate(frame.columns)}
        choices = {name: v for name, v in cells.items() if name == column or label_like(v)}
        first = best_column(choices, column)
        if first is None:
            self.failed.emit("No column of this file holds labels (a few values, repeated): nothing was changed.")
            return None
        dialog = LabelOfferDialog(choices, first, parent)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        offer, chosen = dialog.offer(), dialog.chosen_column
        if len(offer.names) < 2:
            self.failed.emit(f"“{chosen}” gives fewer than two labels: nothing was changed.")
            return None
        try:
            LabelSet.from_names(offer.names)      # what the caller makes of them: said here, not raised there
        except ValueError as exc:
            self.failed.emit(f"“{chosen}” cannot be the label set ({exc}): nothing was changed.")
            return None
        self.message.emit(offer.line())
        return offer.names, offer.labels

    def close(self, timeout_ms: int) -> bool:
        return all([live.close(timeout_ms) for live in self.lives.values()])

    def _retrained(self, live: LiveLearning, result) -> None:
        axis = live.table.axis
        if axis in self.model.axes and self.model.apply_learned(result.learned, axis):
            self._status[axis], self.queues[axis] = result.status(), result.queue
            self._fit_none_of_these(axis)
            if axis == self.model.current_axis:
                self.status.setText(self._status_line(axis))
                if self.queue_shown:
                    self.proxy.set_next_to_label(result.queue)
                self._offer_skip(live, result)
            self.changed.emit()
            if len(result.learned.unsettled):
                self.unsettled.emit(axis, result.learned.unsettled.tolist())

    def _offer_skip(self, live: LiveLearning, result) -> None:
        """While a run goes, and cross-validation says the person's labels alone do as well: offer to
        stop the model, with what each would cost for the rest of the file, as measured right now."""
        advice, run = result.learned.skip_advice(live.config), self._run
        left = run.rows_total - run.rows_done if run else 0
        self.skip_button.setVisible(advice.offer and left > 0)
        if not self.skip_button.isVisible():
            return
        eta = run.stats.eta_seconds
        model_cost = f"about {duration(eta)}" if eta else "its time"
        self.skip_button.setToolTip(plain_tooltip(      # the reason may name labels from a file
            f"Your labels alone do as well as with the model ({advice.reason}). The model has {left:,} "
            f"tickets left, {model_cost} at its pace; your labels answered all {self.model.rowCount():,} "
            f"tickets in {result.seconds:.1f} s. The run stops after its current batch, and every ticket "
            f"it did not reach is answered from your labels (source: learned)."))
        self.message.emit("Your labels alone now do as well as with the model: you may stop it "
                          "(the button under the table says what each would cost).")

    def _offer_none_toggled(self, on: bool) -> None:
        """The current field offers "none of these" (or no longer): its answers follow at once."""
        axis = self.model.current_axis
        self.none_fields = self.none_fields | {axis} if on else self.none_fields - {axis}
        if self.model.answers_of(axis).learned is not None:
            self._fit_none_of_these(axis)
            self.status.setText(self._status_line(axis))
            self.changed.emit()

    def _offer_none_state(self, axis: str) -> None:
        """Not offered beside a label of that name (learn.label_named_so): the box says why."""
        taken = label_named_so(self.model.names_of(axis))
        self.offer_none.setEnabled(taken is None)
        self.offer_none.setToolTip(self._offer_none_tip if taken is None else
                                   f"Not offered: the label “{taken}” has that name; rename it to offer it.")

    def _fit_none_of_these(self, axis: str) -> None:
        """The field's "none of these" threshold, fitted on its latest cross-validated answers where it
        offers one (learn/none_of_these.py), and shown in the table (FileAnswers.fits_none)."""
        learned = self.model.answers_of(axis).learned
        offered = axis in self.none_fields and learned is not None and label_named_so(self.model.names_of(axis)) is None
        self.model.set_none_of_these(fit_none_of_these(learned.cross_validated) if offered else None, axis)

    def _status_line(self, axis: str) -> str:
        """The field's learning status, and what "none of these" did where it is offered."""
        line = self._status.get(axis, "")
        if axis not in self.none_fields or not line:
            return line
        taken = label_named_so(self.model.names_of(axis))
        if taken is not None:
            return f"{line} · “{NONE_OF_THESE}” not offered: the label “{taken}” has that name"
        answers = self.model.answers_of(axis)
        if answers.none_of_these is None:
            return f"{line} · “{NONE_OF_THESE}”: too few labels to cross-validate a threshold"
        fitted = answers.none_of_these
        self.offer_none.setToolTip(f"{self._offer_none_tip}\n\n{fitted.line()}.")
        misfits = int(answers.misfit_mask().sum())
        return f"{line} · {misfits:,} “{NONE_OF_THESE}” (under {100 * fitted.threshold:.0f}% sure)"

    def _skip(self) -> None:
        self.skip_button.hide()
        self.skip.emit()


class _FieldTable:
    """What one field's learning reads (LiveLearning's table): that field's scores and the person's
    labels on it, as the ticket table holds them when a retrain starts. A field removed from the table
    (its learning is kept for when it is back) has none: what comes for it meanwhile (the encoder's
    vectors, a retrain asked for during one) finds nothing to learn, and its scores fit no file."""

    def __init__(self, model, axis: str):
        self.model, self.axis = model, axis

    @property
    def lm_scores(self):
        return self._answers.lm_scores if self._shown else np.zeros((0, 0), dtype=np.float32)

    @property
    def lm_drift(self):
        return self._answers.lm_drift if self._shown else np.zeros(0)

    @property
    def person_labels(self) -> dict[int, str]:
        return self._answers.person_labels if self._shown else {}

    @property
    def _shown(self) -> bool:
        return self.axis in self.model.axes

    @property
    def _answers(self):
        return self.model.answers_of(self.axis)

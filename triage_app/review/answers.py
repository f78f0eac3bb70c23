"""The answers of one open file, as the review loop holds them: the language model's scores as its
runs gave them, the learned answers once a person has taught the window, the person's own labels,
and who gave each row's answer. Plain numpy, no Qt: the table (ui/table/model.py) only presents it.

The person's labels are not kept here: FileAnswers reads the one PersonLabels of its field
(review/person_labels.py), those of its label names, and writes a key press into it.

Row r is always row r of the file (and ticket index r of a run). A run's answers are kept as
columns, not as its Prediction objects: a hundred thousand objects made each of Python's full
garbage collections stall the window (docs/learning/README.md).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from triage_app.engine.prediction import Answers, Prediction, answered
from triage_app.learn.model import MODEL, PERSON
from triage_app.learn.none_of_these import NONE_OF_THESE
from triage_app.review.person_labels import PersonLabels


class Answer(NamedTuple):
    """A row's answer as shown, in the shape files.export.results_frame reads."""

    index: int
    label: str | None
    confidence: float | None
    margin: float | None
    probabilities: list[float]
    truncated: bool


class FileAnswers:
    """Every method that changes answers returns the rows whose shown answer may have changed."""

    def __init__(self, rows: int = 0, label_names: list[str] | None = None):
        self.label_names: list[str] = list(label_names or [])
        self.clear(rows)

    def clear(self, n: int) -> None:
        """n rows, no answers, no person's labels. The columns a first answer fills with more than zeros are
        read-only "nothing yet" views, written out at the first answer (_writable): filling them row by row
        held the UI thread as a big file appeared (docs/files.md). np.zeros' pages cost nothing until written."""
        labels = len(self.label_names)
        self.rows = n
        self._ran = np.zeros(n, dtype=bool)                     # [N] a run answered the row (blank included)
        self._truncated = np.zeros(n, dtype=bool)               # [N] cut by a limit set or the context (not a method's own)
        self._fallback = np.zeros(n, dtype=bool)                # [N] it ran on the full prompt
        self._drift = np.zeros(n)                               # [N] a checked low precision's bound (Prediction.drift)
        self._blank = np.zeros(n, dtype=bool)                   # [N] a run found the ticket blank
        self._lm = _nothing_yet(np.nan, (n, labels))            # [N, L] the language model's log-probs
        self._answer = _nothing_yet(np.nan, (n, labels))        # [N, L] log-probs of the answer shown
        self._label = _nothing_yet(None, n)                     # [N] label name shown (None: no answer)
        self._label_index = _nothing_yet(-1, n)                 # [N] its index in label_names (-1: none)
        self._confidence = _nothing_yet(np.nan, n)              # [N]
        self._margin = _nothing_yet(np.nan, n)                  # [N]
        self._source = _nothing_yet(MODEL, n)                   # [N] MODEL, LEARNED, ZERO_SHOT (PERSON: theirs)
        self.person = PersonLabels()                            # the field's one PersonLabels, read, never copied
        self._learned = None
        self._learned_source = MODEL
        self.none_of_these = None     # a fitted learn.NoneOfThese: answers under its threshold fit no label
        self.labels_first = False     # the latest run read only some rows (run/labels_first.py): _ran says which

    def _writable(self) -> None:
        """The "nothing yet" columns written out, once, before the first answer goes in."""
        if self._lm.flags.writeable:
            return
        self._lm, self._answer, self._label, self._label_index, self._confidence, self._margin, self._source = (
            column.copy() for column in (self._lm, self._answer, self._label, self._label_index, self._confidence,
                                         self._margin, self._source))

    def set_label_names(self, names: list[str]) -> bool:
        """New label names: the answers of other names no longer apply. False: the same names."""
        if list(names) == self.label_names:
            return False
        self.label_names = list(names)
        self.clear_predictions()          # the person's labels of the new names show, the others wait
        return True

    def clear_predictions(self) -> None:
        """Another text: every answer goes, the person's labels stay."""
        person = self.person
        self.clear(self.rows)
        self.person = person

    # the model's answers
    def apply_predictions(self, predictions) -> list[int]:
        """One batch's answers (engine Predictions: index, labels, scores).

        While a Learned is applied, a row the model scores shows the learned answer for its new
        scores (Learned.combine), not the raw one: a person who taught the window does not see a
        run undo it. The model's own answer stays available (prediction(row)).
        """
        self._writable()
        scored = [p for p in predictions if p.scores]
        for p in predictions:
            self._ran[p.index] = True
            self._truncated[p.index], self._fallback[p.index] = p.truncated, p.fallback
            self._drift[p.index] = p.drift
            self._blank[p.index] = not p.scores
            if not p.scores:
                self._lm[p.index] = np.nan
                self._show(np.array([p.index]), np.full((1, self._lm.shape[1]), np.nan), MODEL)
        if scored:
            rows = np.array([p.index for p in scored])
            self._lm[rows] = [p.scores for p in scored]                                 # [B, L]
            # a row a person labelled keeps the model's own answer under the label, as apply_learned leaves it:
            # learned from that label, the answer would only echo it (and the accuracy tab count it as the model's)
            learned = ~self.person_mask()[rows] if self._learned is not None else np.zeros(len(rows), dtype=bool)
            if learned.any():
                self._show(rows[learned], self._learned.combine(rows[learned], self._lm[rows[learned]]),
                           self._learned_source)
            if not learned.all():
                self._show(rows[~learned], self._lm[rows[~learned]], MODEL)
        return [p.index for p in predictions]

    # the learned answers
    def apply_learned(self, learned) -> np.ndarray | None:
        """A retrain's answers (triage_app.learn.Learned) on every row a person has not labelled and
        the model has not found blank; returns the rows whose answer changed, None (and nothing
        changes) when it was learned for other label names or another file.

        Combined with the model's scores as they are now, not as the retrain read them: rows a run
        scored while it trained get the answer a retrain would give them. The rest show the answers
        the retrain read on its own thread: reading a whole file's here held the UI thread too long
        (docs/learning/README.md).
        """
        if learned.names != self.label_names or len(learned.labels) != self.rows:
            return None
        self._writable()
        self._learned = learned
        self._learned_source = learned.source
        open_rows = np.flatnonzero(~self._blank & ~self.person_mask())
        as_read = _same_rows(self._lm, learned.lm)[open_rows]
        fresh, stale = open_rows[as_read], open_rows[~as_read]
        before = self._label_index[open_rows], self._confidence[open_rows], self._margin[open_rows]
        self._show(fresh, learned.scores[fresh], self._learned_source, learned.answers.take(fresh))
        self._show(stale, learned.combine(stale, self._lm[stale]), self._learned_source)
        after = self._label_index[open_rows], self._confidence[open_rows], self._margin[open_rows]
        moved = (before[0] != after[0]) | ~_same(before[1], after[1]) | ~_same(before[2], after[2])
        return open_rows[moved]

    @property
    def learned(self):
        """The Learned whose answers are shown, or None (the model's own answers)."""
        return self._learned

    def _show(self, rows: np.ndarray, scores: np.ndarray, source: str, answers: Answers | None = None) -> None:
        """rows: [R]; scores: [R, L] log-probabilities of the answer shown (a row of NaN: none);
        answers: what they answer, when already read (Answers.of(scores))."""
        answers = answers or Answers.of(scores)
        names = np.array([*self.label_names, None], dtype=object)
        self._answer[rows] = scores
        self._label_index[rows] = answers.index
        self._label[rows] = names[answers.index]
        self._confidence[rows] = answers.confidence
        self._margin[rows] = answers.margin
        self._source[rows] = source

    # the person's labels (those of the current label names; the rest are set aside, kept by PersonLabels)
    def show_person_labels(self, person: PersonLabels | dict[int, str]) -> set[int]:
        """The person's labels to show: the field's PersonLabels itself (the window's, never a copy), or
        {row: label} for answers read on their own. Returns the rows that may show another label."""
        changed = set(self.person_labels)
        self.person = person if isinstance(person, PersonLabels) else PersonLabels(labels=dict(person))
        return changed | set(self.person.labels)

    def set_person_label(self, row: int, label: str | None) -> bool:
        """A person's label for a row, written into PersonLabels; None goes back to the shown answer.
        False: nothing changed."""
        if label is not None and label not in self.label_names:
            return False
        if self._person_label(row) == label:
            return False
        self.person.set(row, label)
        return True

    @property
    def person_labels(self) -> dict[int, str]:
        """{row: label} the person gave, of the label names (worked out at each call, from PersonLabels)."""
        return self.person.shown(self.label_names)

    def is_person_label(self, row: int) -> bool:
        return self._person_label(row) is not None

    def _person_label(self, row: int) -> str | None:
        """The person's label of the row, None where it has none or it is set aside (asked per cell painted)."""
        label = self.person.labels.get(row)
        return label if label in self.label_names else None

    # reading one row
    def prediction(self, row: int) -> Prediction | None:
        """The model's own answer for the row as its run gave it; None: no run has reached it."""
        if not self._ran[row]:
            return None
        scores = None if self._blank[row] else self._lm[row].tolist()
        return Prediction(row, list(self.label_names), scores, bool(self._truncated[row]), bool(self._fallback[row]))

    def label_of(self, row: int) -> str | None:
        """What the row is labeled: a person's choice wins over the answer shown."""
        return self._person_label(row) or self.predicted_label(row)

    def predicted_label(self, row: int) -> str | None:
        """The answer shown under a person's label: learned or the model's, or "none of these"."""
        return NONE_OF_THESE if self.fits_none(row) else self._label[row]

    def fits_none(self, row: int) -> bool:
        """The answer is under the fitted "none of these" threshold (a person's label is never)."""
        fitted = self.none_of_these
        return (fitted is not None and bool(self._confidence[row] < fitted.threshold)
                and not self.is_person_label(row))

    def misfit_mask(self) -> np.ndarray:
        """[N] rows whose answer is "none of these" (fits_none, a whole column at once)."""
        if self.none_of_these is None:
            return np.zeros(self.rows, dtype=bool)
        return self.none_of_these.fits_none(self._confidence) & ~self.person_mask()

    def was_read(self, row: int) -> bool:
        """A run of the model reached the row (asked per cell painted)."""
        return bool(self._ran[row])

    def ran_through(self) -> bool:
        """A run of the model ended: where runs have now read every row, the answers are a run's of every
        row, and no longer a labels-first run's (its read marks and settling's wait go). True: they were."""
        if self.labels_first and self._ran.all():
            self.labels_first = False
            return True
        return False

    def read_by_model(self) -> np.ndarray | None:
        """[N] after a labels-first run, the rows the language model read; None after a run of every row."""
        return self._ran.copy() if self.labels_first else None

    def source(self, row: int) -> str | None:
        """PERSON, LEARNED, ZERO_SHOT or MODEL; None where there is no answer yet."""
        if self.is_person_label(row):
            return PERSON
        return self._source[row] if self._label[row] is not None else None

    def confidence(self, row: int) -> float | None:
        value = self._confidence[row]
        return None if math.isnan(value) else float(value)

    def margin(self, row: int) -> float | None:
        value = self._margin[row]
        return None if math.isnan(value) else float(value)

    def shown_probabilities(self, row: int) -> np.ndarray:
        """[L] probabilities of the answer shown (NaN: none)."""
        return np.exp(self._answer[row])

    # whole columns
    @property
    def sources(self) -> list[str]:
        """Every row's source for the export: as the command line writes it, model where there is no answer."""
        out = self._source.copy()
        out[list(self.person_labels)] = PERSON
        return out.tolist()

    @property
    def lm_scores(self) -> np.ndarray:
        """[N, L] the language model's log-probabilities as its runs gave them (NaN: not scored): what learning reads."""
        return self._lm.copy()

    @property
    def lm_drift(self) -> np.ndarray:
        """[N] per row, the drift bound its scores beat where a checked low precision gave them (0: float32's
        own): what learning checks its answers against (learn/model.py, settle)."""
        return self._drift.copy()

    @property
    def answers(self) -> list[Answer]:
        """Every row a run or a retrain has answered, as shown (the export's rows)."""
        out = []
        has, labels = answered(self._answer), self.label_column
        for row in np.flatnonzero(has | self._ran):
            out.append(Answer(int(row), labels[row], self.confidence(row), self.margin(row),
                              np.exp(self._answer[row]).tolist() if has[row] else [], bool(self._truncated[row])))
        return out

    @property
    def confidences(self) -> list[float | None]:
        """Every row's confidence, None where there is no answer yet (vectorised: 100k rows per refresh)."""
        values = self._confidence.astype(object)
        values[np.isnan(self._confidence)] = None
        return values.tolist()

    @property
    def confidence_column(self) -> np.ndarray:
        """[N] confidences, NaN where there is no answer (a view: read, never write)."""
        return self._confidence

    @property
    def label_column(self) -> np.ndarray:
        """[N] label names shown, None where there is no answer, "none of these" under its threshold (read,
        never write: a view where no answer is "none of these")."""
        misfits = self.misfit_mask()
        if not misfits.any():
            return self._label
        out = self._label.copy()
        out[misfits] = NONE_OF_THESE
        return out

    def answered_rows(self) -> np.ndarray:
        """[R] rows with an answer shown (a run's or a retrain's), in file order."""
        return np.flatnonzero(self._label_index >= 0)

    @property
    def margin_column(self) -> np.ndarray:
        """[N] margins, NaN where there is no answer or one label only (a view: read, never write)."""
        return self._margin

    @property
    def predicted_labels(self) -> list[str | None]:
        return self.label_column.tolist()

    @property
    def rows_answered(self) -> int:
        """Rows a run has finished, blank tickets (which get no label) included."""
        return int(self._ran.sum())

    def label_indexes(self) -> np.ndarray:
        """[N] index in label_names of each row's label_of; -1: no answer."""
        shown = self._label_index.copy()
        if person := self.person_labels:
            index = {name: k for k, name in enumerate(self.label_names)}
            shown[list(person)] = [index[label] for label in person.values()]
        return shown

    def labelled_as(self, label: str) -> np.ndarray:
        """[N] rows whose label_of is this label."""
        if label not in self.label_names:
            return np.zeros(self.rows, dtype=bool)
        return (self.label_indexes() == self.label_names.index(label)) & ~self.misfit_mask()

    def person_mask(self) -> np.ndarray:
        """[N] rows a person labelled."""
        mask = np.zeros(self.rows, dtype=bool)
        mask[list(self.person_labels)] = True
        return mask

    def margin_mask(self) -> np.ndarray:
        """[N] rows with a margin: answered, with two labels or more."""
        return ~np.isnan(self._margin)


def _nothing_yet(value, shape) -> np.ndarray:
    """A read-only column of one value in every cell, allocating one cell: written out by _writable."""
    return np.broadcast_to(np.array(value, dtype=object if value is None or isinstance(value, str) else None), shape)


def _same_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[N, L] float64 twice -> [N] rows equal bit for bit (NaN, not scored, equals the same NaN). One
    comparison of the bits: float comparisons on whole copies took most of apply_learned's time."""
    return (a.view(np.int64) == b.view(np.int64)).all(axis=1)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise equal, NaN equal to NaN (no answer before and after is no change)."""
    return (a == b) | (np.isnan(a) & np.isnan(b))

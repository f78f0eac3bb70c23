"""Labels first: the person's labels answer every ticket they are sure of; the language model reads
only the rest (issue 34, item 6).

A way of answering a file, chosen beside the run of every ticket and measured against it
(docs/learning/labels_first.md); its answers are not that run's answers:
1. the language model scores the person's labelled tickets alone: learn() fits the weights of its
   parts (a, b, c: learn/model.py) on those rows, cross-validated, as it does on any run;
2. learn() answers every other ticket from the learned part and the similarity alone (a ticket the
   model has not scored is answered by softmax(b P + c S));
3. the tickets whose learned answer is less sure than `threshold`, or that have none (too few
   labels to learn from), go to the language model, and learn() answers them as it answers every
   scored ticket: softmax(a z + b P + c S). Where cross-validation left the model's scores out of the
   weighing (a = 0), none is sent: its reading would change no answer (model_counts).
The weights rest on the labelled rows' scores alone, which step 3 leaves as they were: a ticket the
model did not read keeps its answer of step 2, and one it read gets the answer learn() gives it from
the whole file's scores. The threshold is a rule, not a fit: SURE by default, said with its numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from triage_app.engine.classifier import Prediction
from triage_app.engine.config import LABELS_FIRST_SURE
from triage_app.learn import PERSON, LabelSimilarity, Learned, TicketFeatures, learn
from triage_app.run.taught import scores_at, settled

SURE = LABELS_FIRST_SURE    # the learned answer's probability from which it stands without the language model


@dataclass(frozen=True, slots=True)
class LabelsFirst:
    predictions: list[Prediction]   # every row's answer, in row order (a blank ticket's scores: None)
    learned: Learned
    read: np.ndarray                # [N] bool: the language model read the ticket
    unsure: int                     # of those, the tickets sent because the learned answer was unsure
    not_sent: int = 0               # unsure, not sent: the weighing leaves the model's scores out (model_counts)


def unsure_rows(learned: Learned, threshold: float, blank: Collection[int] = (),
                given: Collection[int] = ()) -> np.ndarray:
    """[U] the rows the language model reads: not the person's (given: also those they answered with no label,
    "none of these"), not blank, and answered less surely than threshold (or not at all)."""
    out = ~(learned.answers.confidence >= threshold) & (learned.sources != PERSON)       # [N] NaN: unsure
    out[[*blank, *given]] = False
    return np.flatnonzero(out)


def labels_first(features: TicketFeatures, names: list[str], labels: dict[int, str],
                 score: Callable[[list[int]], list[Prediction]], similarity: LabelSimilarity | None = None,
                 threshold: float = SURE, blank: Collection[int] = (),
                 settle: Callable[[list[int]], list[Prediction]] | None = None,
                 log: Callable[[str], None] = lambda line: None) -> LabelsFirst:
    """score(rows): the language model's predictions of those rows (each index: its row); settle: the same
    in float32 (a checked low precision: run/taught.py settled). blank: rows with no text to answer."""
    if not 0 <= threshold <= 1:
        raise ValueError(f"--labels-first: {threshold} is not a probability from 0 to 1")
    blank = set(blank)
    given = [r for r in sorted(labels) if r not in blank]     # a label's, or the person's "none of these"
    n, taught = features.n, [r for r in given if labels[r] in names]
    # the labelled rows settled first: the weights rest on them alone, so these are the run's final weights
    read, first = settled(features, score(taught), names, labels, settle, log, similarity)
    unsure = unsure_rows(first, threshold, blank, given)
    sent = unsure if model_counts(first) else unsure[:0]
    log(_line(n - len(unsure) - len(given) - len(blank), len(unsure), len(sent), threshold, first))
    learned = first
    if len(sent):
        read, learned = settled(features, read + score(sent.tolist()), names, labels, settle, log, similarity)
    by_row = {p.index: p for p in read}
    predictions = [_answer(by_row.get(row), row, names, learned, row in blank, row in labels) for row in range(n)]
    was_read = np.zeros(n, dtype=bool)
    was_read[list(by_row)] = True
    return LabelsFirst(predictions, learned, was_read, len(sent), len(unsure) - len(sent))


def model_counts(learned: Learned) -> bool:
    """Whether the language model's scores can move an answer: not when cross-validation on the labelled rows
    left them out of the weighing (a = 0), for then an unsure ticket's answer is softmax(b P + c S) whether
    the model reads it or not, and reading it would change nothing."""
    return learned.weights.lm > 0 or not learned.weights.is_learning


def _line(answered: int, unsure: int, sent: int, threshold: float, first: Learned) -> str:
    estimate = f" ({first.estimate.line()})" if first.estimate else ""
    if sent == unsure:
        return (f"labels first: {answered} tickets answered from your labels, {sent} under {100 * threshold:g}% sure "
                f"sent to the language model{estimate}")
    return (f"labels first: every ticket answered from your labels{estimate}; the {unsure} under "
            f"{100 * threshold:g}% sure are not sent: cross-validated on your labels, the language model's scores "
            "add nothing to them on this file, so reading them would change no answer")


def _answer(read: Prediction | None, row: int, names: list[str], learned: Learned, blank: bool,
            person: bool) -> Prediction:
    """The row's answer as learn() gave it; a ticket the model could not score (blank) stays unanswered, and a
    person's row read by the model keeps the model's scores (the label is theirs), as the window shows it."""
    if blank or (read is not None and (not read.scores or person)):
        return read or Prediction(row, names, None)
    scores = learned.scores[row].tolist()
    if read is None:
        return Prediction(row, names, scores)
    return Prediction(row, names, scores, read.truncated, read.fallback, read.drift)

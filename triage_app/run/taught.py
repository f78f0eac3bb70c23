"""A run whose answers are learned from a person's labels, on a checked low precision: the law kept.

A checked low precision (engine/checked.py) keeps a bfloat16 answer only where its margin beats the drift
the run measured. Once a person teaches, the answer is learned: softmax(a z + b P), with a and b fitted on
the person's rows. Two things follow, and both are here, for the command line and the bench alike:

- taught_part: the labelled rows are scored in float32 first, a and b are fitted on them, and the run
  reads every other answer with that learned part (Weighed), so an answer stands on its own margin, which
  the learned part widens: fewer answers go back to float32 than zero-shot.
- settled: after the run, the rows whose learned answer low-precision scores could still decide
  (Learned.unsettled) are scored again in float32 and learned again, until none could.

Which rows each settling round takes is run/settling.py's rule; the window follows the same rule with
its own runs (ui/running.py: _taught, settle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from triage_app.engine.checked import CheckedClassifier, Weighed
from triage_app.engine.classifier import Classifier, Prediction
from triage_app.engine.config import RunConfig
from triage_app.files.clean import TextCleaning, model_texts
from triage_app.files.store import ResultStore
from triage_app.learn import LabelSimilarity, Learned, TicketFeatures, learn
from triage_app.run.job import run_job
from triage_app.run.settling import Settling

FIELD = "label"   # settled one field at a time: the caller's


@dataclass(frozen=True, slots=True)
class ScoredFirst:
    """What scoring the labelled rows first gave: the learned part, and the tickets it scored now (the run
    after finds them stored, so it counts them as resumed: they are not from earlier runs)."""

    weighed: Weighed | None
    texts: frozenset[str] = frozenset()   # as the model read them (cleaned)

    def rows(self, texts: list[str], cleaning: TextCleaning) -> int:
        """The rows of texts that hold a ticket scored first."""
        return sum(t in self.texts for t in model_texts(texts, cleaning)) if self.texts else 0


def taught_part(classifier: Classifier, store: ResultStore | None, texts: list[str], config: RunConfig,
                cleaning: TextCleaning, features: TicketFeatures, labels: dict[int, str],
                log: Callable[[str], None] = lambda line: None, similarity: LabelSimilarity | None = None) -> Weighed | None:
    """The learned part a checked run reads its answers with (scored_first)."""
    return scored_first(classifier, store, texts, config, cleaning, features, labels, log, similarity).weighed


def scored_first(classifier: Classifier, store: ResultStore | None, texts: list[str], config: RunConfig,
                 cleaning: TextCleaning, features: TicketFeatures, labels: dict[int, str],
                 log: Callable[[str], None] = lambda line: None, similarity: LabelSimilarity | None = None) -> ScoredFirst:
    """The learned part a checked run reads its answers with, from the labelled rows scored in float32
    first (stored, so the run finds them); its weighed None where the run is not checked or nothing is
    learned. similarity: the encoder's (run/embedded.py), weighed as learn() weighs it."""
    if not isinstance(classifier, CheckedClassifier) or not labels:
        return ScoredFirst(None)
    rows = sorted(labels)
    steps = list(run_job(classifier, store, [texts[r] for r in rows], config, cleaning=cleaning,
                         exact=range(len(rows))))
    lm = scores_at([p for step in steps for p in step.predictions], len(texts), len(classifier.label_set.names), rows)
    now = model_texts([texts[rows[p.index]] for step in steps[1:] for p in step.predictions], cleaning)
    part = learn(features, lm, labels, classifier.label_set.names, similarity=similarity).part
    if part is None:
        return ScoredFirst(None, frozenset(now))
    log(f"the {len(rows)} labelled tickets scored in float32 first: the rest are read with what they teach")
    return ScoredFirst(Weighed(*part), frozenset(now))


def settled(features: TicketFeatures, predictions: list[Prediction], names: list[str], labels: dict[int, str],
            settle: Callable[[list[int]], list[Prediction]] | None,
            log: Callable[[str], None] = lambda line: None,
            similarity: LabelSimilarity | None = None) -> tuple[list[Prediction], Learned]:
    """predictions (the run's, in their order) with the rows learning could not trust to low-precision
    scores scored again in float32 by settle (rows -> their predictions), and what is learned from them.
    Each round settles rows for good (their drift is 0 from then on), the person's own first, so it ends.
    similarity: the encoder's similarity to each label (run/embedded.py), a part learn() weighs."""
    by_row, settling = {p.index: p for p in predictions}, Settling()
    while True:
        lm = scores_at(list(by_row.values()), features.n, len(names))
        drift = np.zeros(features.n)                                                # [N]
        for p in by_row.values():
            drift[p.index] = p.drift
        learned = learn(features, lm, labels, names, drift=drift, similarity=similarity)
        if settle is not None:
            settling.ask(FIELD, learned.unsettled.tolist())
        found = settling.next([FIELD])
        if found is None:
            return [by_row[p.index] for p in predictions], learned
        rows = found[1]
        log(f"{len(learned.unsettled)} learned answer(s) rest on low-precision scores closer than their drift: "
            f"scored again in float32")
        by_row |= {p.index: p for p in settle(rows) if p.index in set(rows)}
        settling.ran({FIELD: rows})
        if any(by_row[r].drift > 0 for r in rows):   # never expected: it would loop
            raise RuntimeError("scoring again in float32 left a low-precision answer in place")


def scores_at(predictions: list[Prediction], n: int, labels: int, rows: list[int] | None = None) -> np.ndarray:
    """[n, labels] the predictions' scores at their rows (rows: the row of each prediction's index), NaN elsewhere."""
    out = np.full((n, labels), np.nan)
    for p in predictions:
        if p.scores:
            out[p.index if rows is None else rows[p.index]] = p.scores
    return out

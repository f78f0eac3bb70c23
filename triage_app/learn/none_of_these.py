"""None of these: a ticket that fits no label, told by how unsure the combined answer is of it.

A threshold on the combined probability of the answer, fitted on the person's labelled tickets as
each was answered by a model that never saw it (Learned.cross_validated): the answers below it are
"none of these". Without an example of a ticket that fits no label, the threshold gives up at most
`cost` of the cross-validated answers that were right (the rest of that share is the price of
catching tickets no label fits). Tickets the person marked as fitting no label (their combined
probabilities: Learned.confidence on those rows, from a model that never trained on them, as they are
no label's) say how many of their kind it catches; they do not move the threshold: fitted on ten of
them, it either gave up far more right answers or caught none (docs/learning/similarity.md, "None of these").
How many it catches and what it costs on BANKING77: the same section.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NONE_OF_THESE = "none of these"
COST = 0.05          # share of right cross-validated answers the threshold may give up, with no misfit to fit on


@dataclass(frozen=True, slots=True)
class NoneOfThese:
    threshold: float             # combined probability under which an answer is "none of these"
    kept: float                  # share of the right cross-validated answers kept at or above it
    caught: float | None         # share of the person's misfits caught under it (None: none given)

    def __post_init__(self):
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"none of these: the threshold is a probability, not {self.threshold}")

    def fits_none(self, confidence: np.ndarray) -> np.ndarray:
        """[N] whether each answer's probability [N] is under the threshold (NaN, no answer: False)."""
        return np.nan_to_num(np.asarray(confidence, dtype=np.float64), nan=np.inf) < self.threshold

    def line(self) -> str:
        caught = "" if self.caught is None else f", {100 * self.caught:.0f}% of your misfits caught"
        return (f"'{NONE_OF_THESE}' under {100 * self.threshold:.0f}% sure: keeps {100 * self.kept:.0f}% of the "
                f"right answers{caught}, cross-validated")


def label_named_so(names) -> str | None:
    """A label of the set called "none of these" (any case): its answers and too unsure ones would be one
    value in the table, the export and the updates, so the answer is not offered beside it."""
    return next((name for name in names if name.casefold() == NONE_OF_THESE.casefold()), None)


def fit_none_of_these(cross_validated: tuple[np.ndarray, np.ndarray] | None,
                      misfits: np.ndarray | None = None, cost: float = COST) -> NoneOfThese | None:
    """The threshold from Learned.cross_validated ([E, L] log-probabilities, [E] labels) and, where the
    person marked tickets as fitting no label, [M] their top probabilities (Learned.confidence). None: too
    few labels to cross-validate, or no right answer to keep."""
    if cross_validated is None:
        return None
    scores, targets = cross_validated
    confidence = np.exp(scores.max(axis=1))                                          # [E]
    right = confidence[scores.argmax(axis=1) == targets]                             # [R]
    if len(right) == 0:
        return None
    threshold = float(np.quantile(right, cost, method="lower"))
    caught = None if misfits is None or len(misfits) == 0 else float(np.mean(np.asarray(misfits) < threshold))
    return NoneOfThese(threshold, float(np.mean(right >= threshold)), caught)

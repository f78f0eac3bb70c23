"""What rows of log-probabilities answer: the label, how sure, and by how much over the next.

One reading for learning and the table alike: a retrain reads its answers on its own thread, and
the window shows them as read (a whole file's reading held the UI thread too long to redo there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def answered(scores: np.ndarray) -> np.ndarray:
    """[R, L] log-probabilities -> [R] rows that hold an answer (no NaN, and a label to answer with)."""
    return np.isfinite(scores).all(axis=1) & (scores.shape[1] > 0)


@dataclass(frozen=True, slots=True)
class Answers:
    index: np.ndarray          # [R] the most probable label; -1: no answer
    confidence: np.ndarray     # [R] its probability; NaN: no answer
    margin: np.ndarray         # [R] top-1 minus top-2 probability; NaN: no answer, or one label only

    @classmethod
    def of(cls, scores: np.ndarray) -> Answers:
        scores = np.asarray(scores, dtype=np.float64)                                # [R, L]
        rows, labels = scores.shape
        has = answered(scores)                                                       # [R]
        probs = np.exp(np.where(has[:, None], scores, -np.inf))                      # [R, L]
        top = -np.sort(-probs, axis=1)                                               # [R, L] descending
        # the label of the largest log-probability, as Prediction.label picks it: two a hair apart
        # can have the same probability, and then the probabilities' argmax would take the first
        index = np.where(has, np.argmax(np.where(has[:, None], scores, 0.0), axis=1), -1) if labels \
            else np.full(rows, -1)
        confidence = np.where(has, top[:, 0], np.nan) if labels else np.full(rows, np.nan)
        margin = np.where(has, top[:, 0] - top[:, 1], np.nan) if labels > 1 else np.full(rows, np.nan)
        return cls(index.astype(np.int64), confidence, margin)

    def take(self, rows: np.ndarray) -> Answers:
        return Answers(self.index[rows], self.confidence[rows], self.margin[rows])

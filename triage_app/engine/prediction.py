"""One ticket's answer from a run, and the one rule that reads answers from log-probabilities: the
label, how sure, and by how much over the next. Plain data and numpy, no torch, so the window's
table, learning and the export read answers the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def answered(scores: np.ndarray) -> np.ndarray:
    """[R, L] log-probabilities -> [R] rows that hold an answer (no NaN, and a label to answer with)."""
    return np.isfinite(scores).all(axis=1) & (scores.shape[1] > 0)


def stands(scores: np.ndarray, drift: np.ndarray, lm: float = 1.0, extra: np.ndarray | None = None) -> np.ndarray:
    """[R] whether the answer argmax(lm x scores + extra) is the one float32's scores would give, where
    scores [R, L] are a checked low precision's and drift [R] the bound it measured (engine/checked.py):
    a difference of a row's scores against its low top-1 t drifts by at most d. Where the answer is t,
    each of its differences moves by at most lm x d; where extra moved it to another label, by 2 lm x d
    (its own drift and the other's, both against t). An answer stands only where its margin is wider.
    extra None: the language model's own answer. One label: nothing to flip to. A drift of 0: float32's
    own scores. A NaN drift: kept on the language model's own margin, its bound not known (stored before
    bounds were, files/store.py): it stands as the language model's answer, never with a learned part."""
    scores, drift = np.asarray(scores, dtype=np.float64), np.asarray(drift, dtype=np.float64)
    if scores.shape[1] < 2:
        return np.ones(len(scores), dtype=bool)
    answer = lm * scores + (0.0 if extra is None else extra)                        # [R, L]
    top = -np.sort(-answer, axis=1)                                                  # [R, L]
    same = answer.argmax(axis=1) == scores.argmax(axis=1)                            # [R]
    reach = np.full(len(scores), -np.inf)                                             # [R] nothing moves it
    if lm:   # lm 0 weighs the scores not at all (and 0 x inf would be NaN)
        drift = np.where(np.isnan(drift), -np.inf if extra is None else np.inf, drift)
        moves = drift > 0
        reach[moves] = lm * np.where(same, 1.0, 2.0)[moves] * drift[moves]
    return (top[:, 0] - top[:, 1]) > reach                                          # [R]


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
        # the label of the largest log-probability: two a hair apart can have the same probability,
        # and then the probabilities' argmax would take the first
        index = np.where(has, np.argmax(np.where(has[:, None], scores, 0.0), axis=1), -1) if labels \
            else np.full(rows, -1)
        confidence = np.where(has, top[:, 0], np.nan) if labels else np.full(rows, np.nan)
        margin = np.where(has, top[:, 0] - top[:, 1], np.nan) if labels > 1 else np.full(rows, np.nan)
        return cls(index.astype(np.int64), confidence, margin)

    def take(self, rows: np.ndarray) -> Answers:
        return Answers(self.index[rows], self.confidence[rows], self.margin[rows])


@dataclass(slots=True)
class Prediction:
    index: int
    labels: list[str]
    scores: list[float] | None   # log-probability of each label, normalised over the labels (after scoring)
    truncated: bool = False
    fallback: bool = False       # the prefix cut was not token-clean: ran on the full prompt
    drift: float = 0.0           # a checked low precision's answer: the margin it had to beat (engine/checked.py);
                                 # 0: float32's own scores
    _read: Answers | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def is_blank(self) -> bool:
        return self.scores is None

    @property
    def probabilities(self) -> list[float]:
        return [math.exp(s) for s in self.scores] if self.scores else []

    def _answers(self) -> Answers:
        if self._read is None:      # read once, by the one rule, when first asked
            self._read = Answers.of(np.array([self.scores], dtype=np.float64))
        return self._read

    @property
    def label(self) -> str | None:
        return self.labels[int(self._answers().index[0])] if self.scores else None

    @property
    def confidence(self) -> float | None:
        return float(self._answers().confidence[0]) if self.scores else None

    @property
    def margin(self) -> float | None:
        """Top-1 minus top-2 probability."""
        if not self.scores or len(self.scores) < 2:
            return None
        return float(self._answers().margin[0])

    @property
    def log_margin(self) -> float | None:
        """Top-1 minus top-2 log-probability: how far the decision is from a tie."""
        if not self.scores:
            return None
        top = sorted(self.scores, reverse=True)
        return top[0] - top[1]

"""How much each part of the answer counts: the language model's scores z, the learned part's p,
the similarity's s, weighed as softmax(a z + b p + c s), the weights fitted on the person's labels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize
from scipy.special import log_softmax, logsumexp

from triage_app.learn.similarity import ZERO_SHOT_WEIGHT


@dataclass(frozen=True, slots=True)
class Weights:
    lm: float = 1.0
    learned: float = 0.0
    similarity: float = 0.0

    @property
    def is_learning(self) -> bool:
        return self.learned > 0


def fit_weights(z: np.ndarray, p: np.ndarray, targets: np.ndarray, max_weight: float,
                s: np.ndarray | None = None) -> Weights:
    """a, b (and c) >= 0 minimising the mean log-loss of softmax(a z + b p + c s) on the labelled rows.

    The loss is convex in the weights (a linear map into a softmax), so the bounded optimum is found
    from any start; the start is the zero-shot answer, a = 1, b = 0 (c = the zero-shot rule's).
    """
    parts = [z, p] if s is None else [z, p, s]                                     # each [T, L]
    picked = np.arange(len(targets)), targets

    def loss(w):
        logits = sum(weight * part for weight, part in zip(w, parts))               # [T, L]
        probs = np.exp(log_softmax(logits, axis=1))
        value = np.mean(logsumexp(logits, axis=1) - logits[picked])
        return value, np.array([np.mean((probs * part).sum(axis=1) - part[picked]) for part in parts])

    start = [1.0, 0.0] + ([] if s is None else [ZERO_SHOT_WEIGHT])
    best = optimize.minimize(loss, np.array(start), jac=True, method="L-BFGS-B",
                             bounds=[(0.0, max_weight)] * len(parts))
    a, b, c = (float(v) for v in np.append(best.x, 0.0)[:3])
    b, c = (b if b > 1e-6 else 0.0), (c if c > 1e-6 else 0.0)
    return Weights(a, b, c) if b or c else Weights()

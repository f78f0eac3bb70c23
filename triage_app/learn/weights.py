"""How much each part of the answer counts: the language model's scores z, the learned part's p,
the similarity's s, weighed as softmax(a z + b p + c s), the weights fitted on the person's labels.

Which parts take part is chosen first, by cross-validation over the labelled rows: a weighing of
three parts fitted on a few dozen rows fits their noise too, and was measured below the learned part
alone (docs/learning/embeddings.md, "The parts' weighing"). Each candidate (the learned part alone,
with the similarity, with the language model, all three) is fitted on some rows and judged on the
others; the simplest within one standard error of the best is taken, then fitted on every row.

The weights are fitted to Platt's targets, not to 0 and 1: a row's label is aimed at (T+1)/(T+2) for T
rows fitted on (Laplace's rule of succession), the rest spread over the other labels. A handful of rows
that the parts all answer right would otherwise push the weights to their bound and every answer, wrong
ones too, to a certainty of 0.9999 that skips review and labels first's language model
(docs/learning/calibration.md); with hundreds of rows the targets are within a fraction of a percent of 1.
The candidates are judged on the held-out rows' true labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize
from scipy.special import log_softmax, logsumexp
from sklearn.model_selection import KFold

from triage_app.learn.similarity import ZERO_SHOT_WEIGHT

Z, P, S = 0, 1, 2                  # the parts, as indices into a candidate
CANDIDATES = ((P,), (P, S), (Z, P), (Z, P, S))   # simplest first
WEIGHING_FOLDS = 5


@dataclass(frozen=True, slots=True)
class Weights:
    lm: float = 1.0
    learned: float = 0.0
    similarity: float = 0.0

    @property
    def is_learning(self) -> bool:
        return self.learned > 0


def fit_weights(z: np.ndarray, p: np.ndarray, targets: np.ndarray, max_weight: float,
                s: np.ndarray | None = None, seed: int = 0, every_label: bool = True) -> Weights:
    """a, b (and c) >= 0 of the candidate set of parts that cross-validation over the labelled rows
    prefers (one standard error buys the simpler), fitted on every row; p: cross-validated already.
    every_label False (a label the person has not taught): every part is kept, as the labelled rows
    cannot show what the language model and the similarity say of that label, and nothing else can."""
    parts = (z, p, s)
    candidates = [c for c in CANDIDATES if s is not None or S not in c]
    # a label not taught, or a row too few to hold one out (the model has scored one labelled row so far):
    # every part given, fitted on the rows there are
    if not every_label or len(targets) < 2:
        return fitted(parts, candidates[-1], targets, max_weight)
    losses = np.array([held_out_losses(parts, c, targets, max_weight, seed) for c in candidates])   # [C, T]
    best = int(np.argmin(losses.mean(axis=1)))
    spread = (losses - losses[best]).std(axis=1) / np.sqrt(len(targets))          # [C] paired standard error
    chosen = next(c for c, loss, se in zip(candidates, losses.mean(axis=1), spread)
                  if loss <= losses[best].mean() + se)
    return fitted(parts, chosen, targets, max_weight)


def fitted(parts: tuple, chosen: tuple[int, ...], targets: np.ndarray, max_weight: float) -> Weights:
    """The weights of the chosen parts minimising the mean log-loss of their softmax on the labelled rows;
    the others 0. b = c = 0: the language model's answer (Weights())."""
    w = _minimised([parts[i] for i in chosen], targets, max_weight, [_START[i] for i in chosen])
    a, b, c = (float(w[chosen.index(i)]) if i in chosen else 0.0 for i in (Z, P, S))
    b, c = (b if b > 1e-6 else 0.0), (c if c > 1e-6 else 0.0)
    return Weights(a, b, c) if b or c else Weights()


_START = {Z: 1.0, P: 0.0, S: ZERO_SHOT_WEIGHT}   # the zero-shot answer: a = 1, b = 0 (c = the zero-shot rule's)


def held_out_losses(parts, chosen, targets, max_weight, seed) -> np.ndarray:
    """[T] each labelled row's log-loss under weights fitted on the other folds' rows."""
    out = np.zeros(len(targets))
    folds = KFold(n_splits=min(WEIGHING_FOLDS, len(targets)), shuffle=True, random_state=seed)
    for train, test in folds.split(targets):
        picked = [parts[i] for i in chosen]
        w = _minimised([x[train] for x in picked], targets[train], max_weight, [_START[i] for i in chosen])
        logits = sum(weight * x[test] for weight, x in zip(w, picked))                  # [R, L]
        out[test] = logsumexp(logits, axis=1) - logits[np.arange(len(test)), targets[test]]
    return out


def platt_targets(targets: np.ndarray, n_labels: int) -> np.ndarray:
    """[T, L] each row's label at (T+1)/(T+2), the other labels sharing the rest (Platt, 1999)."""
    rows = len(targets)
    out = np.full((rows, n_labels), 1.0 / ((rows + 2) * max(n_labels - 1, 1)))
    out[np.arange(rows), targets] = (rows + 1) / (rows + 2)
    return out


def _minimised(parts: list[np.ndarray], targets: np.ndarray, max_weight: float, start: list[float]) -> np.ndarray:
    """The weights >= 0 minimising the mean cross-entropy of softmax(sum w_i part_i) against the rows' Platt
    targets. The loss is convex in the weights (a linear map into a softmax), so the bounded optimum is
    found from any start."""
    aimed = platt_targets(targets, parts[0].shape[1])                                # [T, L]

    def loss(w):
        logits = sum(weight * part for weight, part in zip(w, parts))               # [T, L]
        probs = np.exp(log_softmax(logits, axis=1))
        value = np.mean(logsumexp(logits, axis=1) - (aimed * logits).sum(axis=1))
        return value, np.array([np.mean(((probs - aimed) * part).sum(axis=1)) for part in parts])

    return optimize.minimize(loss, np.array(start), jac=True, method="L-BFGS-B",
                             bounds=[(0.0, max_weight)] * len(parts)).x

"""The learned part: a logistic regression on the person's labelled tickets, and its cross-validation.

Given each label's prototype (the normalised mean of its name, description and examples, embedded:
similarity.label_vectors), the regression may take it as one more example of its label, a row beside
the person's: with a handful of labels per label it says what a label is where few tickets do
(docs/learning/embeddings.md). Whether it does is learn()'s choice, by cross-validation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.multiclass import OneVsRestClassifier

from triage_app.learn.features import TicketFeatures
from triage_app.learn.neighbours import smoothed
from triage_app.learn.teaching import Teaching
from triage_app.quiet import silenced

PREDICT_SLICE = 5000         # rows per prediction call


@dataclass(frozen=True, slots=True)
class LearnConfig:
    seed: int = 0
    folds: int = 10                # most cross-validation folds; fewer when a label has fewer examples
    repeats: int = 5               # cross-validation on this many reshufflings, up to `repeat_until` labels
    repeat_until: int = 200
    c: float = 10.0                # the regression's inverse L2 strength
    one_vs_rest: bool = True       # liblinear, one regression per label; False: one multinomial (lbfgs)
    max_weight: float = 50.0       # bound on a and b: perfectly separable labels would push them to infinity
    skip_min_per_label: int = 5    # fewer examples of any label and the language model is never offered to skip
    skip_tolerance: float = 0.01   # learned alone may be this much below combined and still count as "as good"

    def __post_init__(self):
        if self.folds < 2:
            raise ValueError(f"cross-validation needs at least 2 folds, not {self.folds}")
        if self.repeats < 1:
            raise ValueError(f"cross-validation needs at least 1 drawing of its folds, not {self.repeats}")
        if not self.c > 0:
            raise ValueError(f"the regression's C must be positive, not {self.c}")


@dataclass(slots=True)
class TextModel:
    """A logistic regression on the features its training rows use (the TF-IDF columns present in them,
    or every dimension of their embeddings), for the labels it has seen."""

    regression: LogisticRegression | OneVsRestClassifier
    columns: np.ndarray        # [U] feature columns present in the training rows
    seen: np.ndarray           # [S] label indices it was trained on
    n_labels: int

    @classmethod
    def fit(cls, x: sparse.csr_matrix | np.ndarray, targets: np.ndarray, n_labels: int,
            config: LearnConfig, prototypes: np.ndarray | None = None) -> TextModel | None:
        """None when the rows hold fewer than two labels: there is nothing to tell apart. prototypes:
        [L, D] one more row of each label (embeddings only), so every label is seen."""
        if prototypes is not None:
            x, targets = np.vstack([x, prototypes]), np.concatenate([targets, np.arange(len(prototypes))])
        seen = np.unique(targets)
        if len(seen) < 2:
            return None
        # an L2 regression gives columns absent from every training row a weight of 0: leaving them
        # out is exact, and keeps a retrain's cost in the labelled rows, not the file's vocabulary;
        # dense features (sentence embeddings) use every column
        columns = np.unique(x.indices) if sparse.issparse(x) else np.arange(x.shape[1])
        if len(columns) == 0:
            return None
        regression = (OneVsRestClassifier(LogisticRegression(C=config.c, solver="liblinear", random_state=config.seed)) if config.one_vs_rest
                      else LogisticRegression(C=config.c, max_iter=1000))
        with silenced(ConvergenceWarning):
            regression.fit(x[:, columns], targets)
        return cls(regression, columns, seen, n_labels)

    def log_probs(self, x) -> np.ndarray:
        """[N, V] features -> [N, L] log-probabilities; a label it never saw gets the row's mean: no opinion."""
        # a slice of rows at a time: on a whole 100k-ticket file each product is one call that holds
        # the GIL long enough to stall the window (docs/learning/README.md, "The window while it learns")
        seen = np.log(np.maximum(np.concatenate(
            [self.regression.predict_proba(x[i:i + PREDICT_SLICE][:, self.columns])
             for i in range(0, x.shape[0], PREDICT_SLICE)] or [np.zeros((0, len(self.seen)))]), 1e-300))  # [N, S]
        out = np.repeat(seen.mean(axis=1, keepdims=True), self.n_labels, axis=1)     # [N, L]
        out[:, self.seen] = seen
        return out



def cross_validated(features: TicketFeatures, teaching: Teaching, config: LearnConfig,
                    prototypes: np.ndarray | None = None) -> np.ndarray | None:
    """[T, L] the learned part's log-probabilities of each labelled row, from folds that left it out
    (held_out's first answer)."""
    out = held_out(features, teaching, config, prototypes)
    return None if out is None else out[0]


def held_out(features: TicketFeatures, teaching: Teaching, config: LearnConfig, prototypes: np.ndarray | None = None,
             near: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None] | None:
    """([T, L], [T, L] or None): the learned part's log-probabilities of each labelled row, from folds that
    left it out; and, given the file's neighbours (learn/neighbours.py), the same folds' answers smoothed
    over them, each fold's labelled rows held at their labels (the held-out row's own never is; its exact
    copies taught in the fold are, as the file's copies of a labelled ticket are: learn/neighbours.smoothed).

    With few labels, which rows share a fold moves the fitted weights as much as the labels do:
    the folds are drawn `repeats` times and each row's held-out log-probabilities averaged. More
    folds train each held-out model on nearly every label, as the final one is. Past a few hundred
    labels one drawing and fewer folds estimate as well, at a fraction of the cost (the retrain's
    time: docs/learning/README.md). None when no split can hold a label out and still train on it
    (no label has two examples). A row no fold could answer (every fold that held it out trained on one
    label) is NaN. prototypes: [L, D] rows every fold trains on (TextModel.fit).
    """
    counts = np.bincount(teaching.targets, minlength=len(teaching.names)) if teaching.n else np.zeros(1, int)
    most = config.folds if teaching.n <= config.repeat_until else min(config.folds, 5 if teaching.n <= 500 else 3)
    splits, repeats = min(most, int(counts.max())), config.repeats if teaching.n <= config.repeat_until else 1
    if splits < 2 or teaching.taught_labels < 2:
        return None
    x = features.rows(teaching.rows)
    out = np.zeros((teaching.n, len(teaching.names)))
    smooth = None if near is None else np.zeros_like(out)
    folds = RepeatedStratifiedKFold(n_splits=splits, n_repeats=repeats, random_state=config.seed)
    # a label with fewer examples than folds is held out in some folds only: expected here
    with silenced(UserWarning, "The least populated class"):
        split = list(folds.split(np.zeros(teaching.n), teaching.targets))
    answered = np.zeros(teaching.n)
    for train, test in split:
        model = TextModel.fit(x[train], teaching.targets[train], len(teaching.names), config, prototypes)
        if model is None:     # the fold's other rows hold one label: no model answers its held-out rows
            continue
        answered[test] += 1
        out[test] += model.log_probs(x[test])
        if smooth is not None:
            smooth[test] += smoothed(lambda rows: np.exp(model.log_probs(features.rows(rows))),  # noqa: B023
                                     teaching.rows[test], near, teaching.rows[train], teaching.targets[train],
                                     len(teaching.names), features.copies())
    if not answered.any():
        return None
    # a row's mean over the repeats that answered it; NaN where none did (a label's only example, held out
    # with the other labels' but one): nothing tells how a model would answer it
    divide = np.where(answered > 0, answered, np.nan)[:, None]
    return out / divide, None if smooth is None else smooth / divide

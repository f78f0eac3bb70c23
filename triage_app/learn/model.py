"""The person's labels, learned: logistic regression on TF-IDF or sentence embeddings, weighed
against the language model (and the encoder's similarity to each label, where given).

Up to three parts score every ticket: the language model's log-probabilities Z (stored, never
recomputed here), a logistic regression on the ticket's features (its words, or its sentence
embedding where TicketFeatures was given them), trained on the person's labels, giving
log-probabilities P (smoothed over the file's neighbours where cross-validation says so:
learn/neighbours.py), and the similarity scorer's S (learn/similarity.py), which needs no labels.
The answer is softmax(a * Z + b * P + c * S). The weights are fitted to the cross-validated P of
the labelled rows (each row scored by a regression that never saw it), minimising their log-loss,
over the parts cross-validation over those rows chose (learn/weights.py: the simplest set within a
standard error of the best; three weights fitted on a few dozen rows fit their noise): with few or
inconsistent labels b stays small and the language model (or the similarity) decides; as the labels
teach more, b grows and the weaker parts drop out; a language model the labels find right more often
gets a larger a. No labels: Z alone, or with S the fixed rule similarity.zero_shot. No labels and no S,
or weights b = c = 0, returns the language model's answer itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import log_softmax
from threadpoolctl import threadpool_limits

from triage_app.engine.prediction import Answers, answered, stands
from triage_app.learn.features import TicketFeatures
from triage_app.learn.neighbours import smoothed
from triage_app.learn.regression import PREDICT_SLICE, LearnConfig, TextModel, held_out  # noqa: F401 (imported from here)
from triage_app.learn.similarity import ZERO_SHOT_WEIGHT, LabelSimilarity
from triage_app.learn.teaching import Teaching
from triage_app.learn.weights import Weights, fit_weights

# who gave an answer: a person; their labels, learned; the language model with the encoder's similarity to each
# label and nothing learned (the zero-shot rule, or weights that leave the learned part out); the model alone
PERSON, LEARNED, ZERO_SHOT, MODEL = "person", "learned", "zero-shot", "model"


@dataclass(slots=True)
class Estimate:
    """Cross-validated accuracy on the person's labels (each row judged by a model that never saw it)."""

    n: int
    combined: float
    spread: float                  # one standard error (Agresti-Coull, so never 0 on a handful of rows)
    learned_only: float | None
    zero_shot: float | None
    fewest: int = 0                # the fewest rows of any label that the estimate rests on

    def line(self) -> str:
        return f"estimated accuracy {100 * self.combined:.0f}% ± {100 * self.spread:.0f}, cross-validated"


@dataclass(slots=True)
class SkipAdvice:
    offer: bool
    reason: str


@dataclass(slots=True)
class Learned:
    """Every ticket's answer after learning, and what the window says about it."""

    names: list[str]
    scores: np.ndarray             # [N, L] log-probabilities of the combined model (person rows too)
    labels: np.ndarray             # [N] label index; the person's own where they gave one; -1: no answer
    sources: np.ndarray            # [N] PERSON, LEARNED, ZERO_SHOT or MODEL
    weights: Weights
    teaching: Teaching
    estimate: Estimate | None      # None: too few labels to cross-validate
    text_model: TextModel | None   # the learned part alone (None: fewer than two labels taught)
    answers: Answers                # what `scores` answer, row by row (read here, off the UI thread)
    lm: np.ndarray                 # [N, L] the language model's scores it learned from (NaN: not scored)
    notes: list[str] = field(default_factory=list)
    text_scores: np.ndarray | None = None   # [N, L] b * P + c * S, all but the language model as weighed
                                            # (None: the language model alone)
    unsettled: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))   # [U] see settle()
    # ([E, L] log-probabilities, [E] the person's labels): the labelled rows the estimate rests on, each
    # answered by a model that never saw it (None: too few labels); what none_of_these is fitted on
    cross_validated: tuple[np.ndarray, np.ndarray] | None = None
    took_prototypes: bool = False   # the learned part trained on each label's prototype as one more example
    smoothed: bool = False          # the learned part's answers smoothed over the file's neighbours

    @property
    def source(self) -> str:
        """Who answers the rows no person labelled (a blank ticket aside: MODEL, unanswered)."""
        return _source(self.weights, self.text_model, self.text_scores)

    @property
    def confidence(self) -> np.ndarray:
        """[N] probability of the answer; 1 for the person's own labels, NaN where there is no answer."""
        out = self.answers.confidence.copy()
        out[self.sources == PERSON] = 1.0
        return out

    @property
    def margin(self) -> np.ndarray:
        """[N] top-1 minus top-2 probability of the combined model (what the review queue sorts by);
        NaN where there is no answer, or one label only."""
        return self.answers.margin.copy()

    @property
    def part(self) -> tuple[float, np.ndarray] | None:
        """(a, [N, L] b x P + c x S): what the answer combines the language model's scores with, where its
        weights were fitted on those scores or are the fixed zero-shot rule (a checked run reads its answers
        with it: engine/checked.py, Weighed); None with the language model alone, or before any labelled
        row has scores (then the weights are a guess)."""
        guessed = self.estimate is not None and self.estimate.zero_shot is None
        return (self.weights.lm, self.text_scores) if not guessed and self.text_scores is not None else None

    def combine(self, rows: np.ndarray, lm_scores: np.ndarray) -> np.ndarray:
        """[R, L] the answer for rows the language model scored after this was learned: what learn()
        gives them with the same labels, as long as no labelled row's score changed (those fit a and b)."""
        z = np.asarray(lm_scores, dtype=np.float64)                                  # [R, L]
        if self.text_scores is None:
            return z.copy()
        return _combined(self.weights, z, self.text_scores[rows])

    def changed_since(self, before: Learned) -> np.ndarray:
        """[C] rows whose answer differs from an earlier result on the same file (the window's "N changed")."""
        return np.flatnonzero(self.labels != before.labels)

    def label_names(self) -> list[str | None]:
        return [self.names[k] if k >= 0 else None for k in self.labels]

    def status(self) -> str:
        """The window's line: learned from N labels (per label: ...) — estimated accuracy X% ± Y."""
        line = f"learned from {self.teaching.summary()}"
        if self.estimate:
            line += f" — {self.estimate.line()}"
        return line + "".join(f"; {note}" for note in self.notes)

    def skip_advice(self, config: LearnConfig = LearnConfig()) -> SkipAdvice:
        """Whether the rest of a file could skip the language model: learned alone as good as combined."""
        e, fewest = self.estimate, min(self.teaching.per_label.values(), default=0)
        if e is None or e.learned_only is None:
            return SkipAdvice(False, "too few labels to tell")
        if e.zero_shot is None:
            return SkipAdvice(False, "the model has not scored the labelled tickets yet")
        if fewest < config.skip_min_per_label:
            return SkipAdvice(False, f"every label needs {config.skip_min_per_label} examples first "
                                     f"(the fewest has {fewest})")
        if e.fewest < config.skip_min_per_label:   # the comparison rests on the labelled rows the model scored
            return SkipAdvice(False, f"the model has scored too few of your labelled tickets to compare "
                                     f"(the fewest of a label: {e.fewest} of {config.skip_min_per_label})")
        if e.learned_only + config.skip_tolerance < e.combined:
            return SkipAdvice(False, f"the language model still helps: {100 * e.learned_only:.0f}% alone "
                                     f"against {100 * e.combined:.0f}% combined, cross-validated")
        return SkipAdvice(True, f"learned alone {100 * e.learned_only:.0f}% against {100 * e.combined:.0f}% "
                                f"combined, cross-validated on {e.n} labels")


def learn(features: TicketFeatures, lm_scores: np.ndarray, labels: Mapping[int, str] | Teaching,
          names: list[str], config: LearnConfig = LearnConfig(), drift: np.ndarray | None = None,
          similarity: np.ndarray | LabelSimilarity | None = None, prototypes: np.ndarray | None = None) -> Learned:
    """Every ticket's label after learning from the person's labels.

    lm_scores: [N, L] the language model's log-probabilities over `names` (Prediction.scores);
    a row of NaN is a ticket the model has not scored (blank, or skipped): the learned part alone
    answers it once it counts. labels: ticket row -> label name the person gave. drift: [N] per row,
    the bound a checked low precision's scores beat (Prediction.drift; None or 0: float32's own
    scores): the rows where it could decide the answer are Learned.unsettled. similarity: [N, L] the
    encoder's zero-shot log-probabilities (similarity.similarity_scores), a third part to weigh; or a
    LabelSimilarity, those scores with the prototypes they were measured against.
    prototypes: [L, D] each label's prototype (similarity.label_vectors, with embedding features): the
    learned part takes each as one more example of its label where the labelled rows' cross-validated
    answers say it helps (lower log-loss), and learns without them otherwise.
    """
    # numpy's and scipy's BLAS threads, woken for every small product, made a retrain far slower
    # on a busy CPU (measured: docs/learning/README.md)
    with threadpool_limits(limits=1, user_api="blas"):
        if isinstance(similarity, LabelSimilarity):   # the scores and the prototypes they were measured against
            similarity, prototypes = similarity.scores, similarity.prototypes if prototypes is None else prototypes
        learned = _learn(features, lm_scores, labels, names, config, similarity, prototypes)
    if drift is not None:
        learned.unsettled = settle(learned, np.asarray(drift, dtype=np.float64))
    return learned


def settle(learned: Learned, drift: np.ndarray) -> np.ndarray:
    """[U] rows whose scores must be float32's own before the answers can be: a checked low precision
    kept a score only where the language model's margin beat its drift bound d (engine/checked.py), but
    learning answers from softmax(a z + b P), and weighs the person's rows to fit a and b.

    - A labelled row with d > 0: its scores fit a and b (and the estimate); with float32's, the learned
      part is float32's, exactly.
    - A row the combination answers: its low scores differ from float32's by δ, and the check bounds
      |δ_j - δ_t| <= d against the low top-1 t, so a combined difference moves by at most a d where
      the combined answer is t, and 2 a d (the triangle) where it is another label. A combined margin
      wider than that is float32's answer; one inside it is unsettled.
    Zero-shot (b = 0) the answer is the language model's own, held to its own margin as a zero-shot run
    holds it (a run that read its answers with a learned part kept some on the combined margin alone).
    The rule, for both: engine/prediction.py, stands.
    """
    z, rows = learned.lm, learned.teaching.rows
    out = np.zeros(len(drift), dtype=bool)                                               # [N]
    out[rows] = answered(z[rows]) & (drift[rows] != 0)                                   # NaN: a bound not known
    # rows whose answer reads the scores: the person's own are theirs
    read = np.flatnonzero(answered(z) & (drift != 0) & (learned.sources != PERSON))     # [R]
    if learned.text_scores is not None:   # the answer is the combination (learning, with a text model)
        out[read] = ~stands(z[read], drift[read], learned.weights.lm, learned.text_scores[read])
    else:   # zero-shot: the run checked these on this very margin, unless it read them with a learned part
        out[read] = ~stands(z[read], drift[read])
    return np.flatnonzero(out)


def _learn(features, lm_scores, labels, names, config, similarity, prototypes) -> Learned:
    teaching = labels if isinstance(labels, Teaching) else Teaching.from_labels(labels, names)
    z = np.array(lm_scores, dtype=np.float64)           # [N, L] a copy: Learned.lm must stay what it read
    if z.shape != (features.n, len(names)):
        raise ValueError(f"the language model's scores are {z.shape}, not {(features.n, len(names))}")
    s = None if similarity is None else np.asarray(similarity, dtype=np.float64)    # [N, L]
    if s is not None and s.shape != z.shape:
        raise ValueError(f"the similarity's scores are {s.shape}, not {z.shape}")
    notes = [f"{teaching.taught_labels} label(s) taught: the learned part needs two"] \
        if 0 < teaching.n and teaching.taught_labels < 2 else []
    prototypes = _prototypes(features, prototypes, len(names))                         # [L, D] or None
    prototypes, smooth, (weights, estimate, checked) = _taken(features, teaching, config, prototypes, z, s)
    model = TextModel.fit(features.rows(teaching.rows), teaching.targets, len(names), config, prototypes) \
        if teaching.n else None
    text = _not_the_model(weights, model, features, s, teaching if smooth else None)
    if text is None:
        scores = z.copy()
    else:
        text[features.blank] = np.nan       # nothing to read: no answer learned (text: _not_the_model's own array)
        scores = _combined(weights, z, text)
    sources = np.full(features.n, _source(weights, model, text), dtype=object)
    sources[features.blank] = MODEL
    answers = Answers.of(scores)
    out = answers.index.copy()
    out[teaching.rows] = teaching.targets
    sources[teaching.rows] = PERSON
    return Learned(list(names), scores, out, sources, weights, teaching, estimate, model, answers, z, notes, text,
                   cross_validated=checked, took_prototypes=prototypes is not None, smoothed=smooth)


def _prototypes(features: TicketFeatures, prototypes: np.ndarray | None, n_labels: int) -> np.ndarray | None:
    """[L, D] as the features' rows, or None: a prototype is an embedding, no row of TF-IDF."""
    if prototypes is None or not features.are_embeddings:
        return None
    out = np.asarray(prototypes, dtype=features.matrix.dtype)
    if out.shape != (n_labels, features.matrix.shape[1]):
        raise ValueError(f"the labels' prototypes are {out.shape}, not {(n_labels, features.matrix.shape[1])}")
    return out


def _taken(features, teaching, config, prototypes, z, s) -> tuple[np.ndarray | None, bool, tuple]:
    """(the prototypes, or None where the learned part goes without them; whether its answers are smoothed
    over the file's neighbours; _weighed's answer for that choice): each taken only where the labelled
    rows' cross-validated answers have a lower log-loss."""
    near = features.neighbours() if teaching.taught_labels >= 2 else None
    candidates = []
    for given in (None,) if prototypes is None else (None, prototypes):
        folds = held_out(features, teaching, config, given, near)
        if folds is None:
            return None, False, _weighed(z, s, None, teaching, config)
        candidates.append((given, folds))
    # judged on the rows every choice answered: without the prototypes a label's only example has no answer
    common = np.logical_and.reduce([np.isfinite(folds[0]).all(axis=1) for _, folds in candidates])[:, None]
    best = None
    for given, folds in candidates:
        for smooth, p in ((False, folds[0]), (True, folds[1])):
            weighed = None if p is None else _weighed(z, s, np.where(common, p, np.nan), teaching, config)
            if weighed is not None and (best is None or _log_loss(*weighed[2]) < _log_loss(*best[2][2])):
                best = given, smooth, weighed
    return best


def _log_loss(scores: np.ndarray, targets: np.ndarray) -> float:
    return float(-np.mean(scores[np.arange(len(targets)), targets]))


def _weighed(z, s, held_out, teaching, config) -> tuple[Weights, Estimate | None, tuple | None]:
    """The parts' weights, the estimate and the cross-validated answers it rests on ([E, L] log-probabilities,
    [E] the person's labels): fitted on the labelled rows' held-out scores where there are any; with too few
    labels to cross-validate, the zero-shot rule."""
    if held_out is None:
        return (Weights() if s is None else Weights(similarity=ZERO_SHOT_WEIGHT)), None, None
    rows, targets = teaching.rows, teaching.targets
    answered = np.isfinite(held_out).all(axis=1)       # NaN: no fold could answer the row (regression.held_out)
    scored = np.isfinite(z[rows]).all(axis=1) & answered
    has_lm = bool(scored.any())   # else the labels (and the similarity) are all there is, for now
    lm, scored = (z[rows], scored) if has_lm else (np.zeros_like(held_out), answered)
    parts = lm[scored], held_out[scored], targets[scored], None if s is None else s[rows][scored]
    every_label = teaching.taught_labels == len(teaching.names)
    weights = fit_weights(*parts[:3], config.max_weight, parts[3], config.seed, every_label) \
        if has_lm or s is not None else Weights(lm=0.0, learned=1.0)
    estimate = _estimate(*parts[:3], weights, len(teaching.names), parts[3])
    if not has_lm:   # answered from the labels, even where the similarity alone was fitted the stronger
        weights = replace(weights, lm=0.0, learned=weights.learned or 1.0)
        estimate = replace(estimate, zero_shot=None)
    checked = log_softmax(weights.lm * parts[0] + weights.learned * parts[1]
                          + (0.0 if parts[3] is None else weights.similarity * parts[3]), axis=1)
    return weights, estimate, (checked, parts[2])


def _source(weights: Weights, model: TextModel | None, text: np.ndarray | None) -> str:
    if text is None:
        return MODEL
    return LEARNED if model is not None and weights.is_learning else ZERO_SHOT


def _not_the_model(weights: Weights, model: TextModel | None, features: TicketFeatures,
                   s: np.ndarray | None, smooth: Teaching | None = None) -> np.ndarray | None:
    """[N, L] b x P + c x S, what the answer adds to a x Z; None: the language model's answer alone.
    smooth: P smoothed over the file's neighbours, these labelled rows held at their labels."""
    learning = model is not None and weights.is_learning
    if not learning and not weights.similarity:
        return None
    text = weights.learned * _learned_part(model, features, smooth) if learning else 0.0   # [N, L]
    return text + weights.similarity * s if weights.similarity else text


def _learned_part(model: TextModel, features: TicketFeatures, smooth: Teaching | None) -> np.ndarray:
    """[N, L] the learned part's log-probabilities of every ticket, smoothed where learn() chose it."""
    if smooth is None:
        return model.log_probs(features.matrix)
    return smoothed(lambda every: np.exp(model.log_probs(features.matrix)), np.arange(features.n),
                    features.neighbours(), smooth.rows, smooth.targets, model.n_labels, features.copies())


def _combined(weights: Weights, z: np.ndarray, text: np.ndarray) -> np.ndarray:
    """[N, L] softmax(a z + text) as log-probabilities; a row of NaN in z (not scored) is the rest alone
    once the person's labels count, and stays unanswered under the zero-shot rule (the model leads there)."""
    if not weights.is_learning:
        return log_softmax(weights.lm * z + text, axis=1)
    blank = ~np.isfinite(z).all(axis=1)                                              # [N]
    return log_softmax(weights.lm * np.where(blank[:, None], 0.0, z) + text, axis=1)


def _estimate(z: np.ndarray, p: np.ndarray, targets: np.ndarray, weights: Weights, n_labels: int,
              s: np.ndarray | None = None) -> Estimate:
    """learned_only: the answer without the language model (b p + c s), what skipping it would give."""
    rest = weights.learned * p + (weights.similarity * s if s is not None and weights.similarity else 0.0)
    combined = np.argmax(weights.lm * z + rest, axis=1) == targets
    n, right = len(targets), int(combined.sum())
    shrunk = (right + 2) / (n + 4)
    without_lm = rest if weights.is_learning else p
    learned_only = float(np.mean(np.argmax(without_lm, axis=1) == targets))
    return Estimate(n, right / n, float(np.sqrt(shrunk * (1 - shrunk) / (n + 4))), learned_only,
                    float(np.mean(np.argmax(z, axis=1) == targets)),
                    int(np.bincount(targets, minlength=n_labels).min()))

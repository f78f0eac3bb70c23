"""Label quality against a gold column: one run's token log-probs, every scoring choice compared.

Scoring choices (length normalisation, calibration, temperature) only change how token
log-probs become probabilities, so they are compared on one run. Prompt choices (few-shot
examples, aliases) change what the model reads and need a run each.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from triage_app.engine.classifier import Classifier
from triage_app.engine.config import LENGTHS, METHODS, RunConfig, Scoring
from triage_app.engine.labels import Example, LabelSet
from triage_app.engine.scoring import combine, decide, normalise, prior
from triage_app.files.clean import TextCleaning, clean_texts
from triage_app.learn.similarity import LabelSimilarity
from triage_app.quality.curve import Curve, learning_curve
from triage_app.quality.metrics import Report, evaluate, fit_temperature

Progress = Callable[[int, int], None]    # (tickets scored, tickets in this pass)


@dataclass(slots=True)
class GoldSet:
    """Tickets with the labels a person gave them, as the model reads them (cleaned as `cleaning` says)."""

    texts: list[str]
    gold: list[str]
    cleaning: TextCleaning = TextCleaning.off()

    def subset(self, rows: list[int]) -> GoldSet:
        return GoldSet([self.texts[r] for r in rows], [self.gold[r] for r in rows], self.cleaning)

    def cleaned(self, cleaning: TextCleaning) -> GoldSet:
        """The same tickets cleaned as a run would clean them; from texts as exported only (see clean.py)."""
        if self.cleaning.steps:
            raise ValueError("these texts are cleaned already; clean the texts as exported")
        return GoldSet(clean_texts(self.texts, cleaning), list(self.gold), cleaning)


@dataclass(slots=True)
class Scored:
    """One run's raw material: token log-probs of every ticket and of the content-free ones."""

    token_logprobs: torch.Tensor     # [N, L, D]
    content_free: torch.Tensor       # [M, L, D]
    seconds: float
    prefix_tokens: int               # with channel scoring, every label's prefix together
    first_tokens_distinct: bool      # scoring by the first token alone can tell the labels apart

    def scores(self, scoring: Scoring) -> torch.Tensor:
        log_prior = prior(scoring, self.content_free) if scoring.calibrate else None
        return decide(scoring, self.token_logprobs, log_prior)                      # [N, L]


def score(classifier: Classifier, texts: list[str], config: RunConfig = RunConfig(),
          progress: Progress | None = None) -> Scored:
    """progress(done, total) after every batch: a model pass over a gold set takes minutes."""
    start = time.perf_counter()
    parts = {}
    for batch in classifier.run(texts, config):
        if batch.token_logprobs is None:
            raise ValueError("the gold set has blank tickets; drop them first")
        parts.update({p.index: lp for p, lp in zip(batch.predictions, batch.token_logprobs)})
        if progress is not None:
            progress(len(parts), len(texts))
    seconds = time.perf_counter() - start
    firsts = [ids[0] for ids in classifier.prompt.label_ids]
    prefix = sum(map(len, classifier.method.prefix_ids))      # every static prompt the method encodes once
    return Scored(torch.stack([parts[i] for i in range(len(texts))]), classifier.content_free(config),
                  seconds, prefix, len(set(firsts)) == len(firsts))


def report(scores: torch.Tensor, gold: list[str], names: list[str]) -> Report:
    probs = scores.exp()
    top = probs.argmax(dim=1).tolist()
    return evaluate(gold, [names[k] for k in top], names, probs.max(dim=1).values.tolist())


def cross_fitted_temperature(scores: torch.Tensor, gold: list[str], names: list[str]) -> tuple[float, torch.Tensor]:
    """Temperature fitted on all rows, and each half's scores tempered by the other half's fit.

    The second is what the ECE after temperature is measured on: a temperature judged on the
    rows it was fitted to would flatter itself.
    """
    target = {i: names.index(g) for i, g in enumerate(gold) if g in names}   # a value that is no label fits none
    fitted = list(target)
    rows = scores.tolist()
    halves = [fitted[0::2], fitted[1::2]]
    tempered = scores.clone()
    for fit, apply in (halves, halves[::-1]):
        t = fit_temperature([rows[i] for i in fit], [target[i] for i in fit])
        tempered[apply] = (scores[apply] / t).log_softmax(dim=1)
    t = fit_temperature([rows[i] for i in fitted], [target[i] for i in fitted])
    others = [i for i in range(len(rows)) if i not in target]
    tempered[others] = (scores[others] / t).log_softmax(dim=1)
    return t, tempered


def examples_from(gold: GoldSet, names: list[str], per_label: int, pool: int, seed: int = 0
                  ) -> tuple[list[Example], list[int]]:
    """per_label examples of each label from the gold set, and the rows left to evaluate on.

    The first `pool` rows of each label (in a seeded shuffle) are held out of every evaluation,
    so that runs with 0, 1, 2 ... examples are scored on the same rows.
    """
    order = list(range(len(gold.texts)))
    random.Random(seed).shuffle(order)
    held: dict[str, list[int]] = {name: [] for name in names}
    for row in order:
        label = gold.gold[row]
        if label in held and len(held[label]) < pool:
            held[label].append(row)
    examples = [Example(gold.texts[r], name) for name in names for r in held[name][:per_label]]
    out = {r for rows in held.values() for r in rows}
    return examples, [r for r in range(len(gold.texts)) if r not in out and gold.gold[r]]


def scoring_grid(scored: Scored, gold: list[str], names: list[str]) -> dict[str, Report]:
    """Every length normalisation, with and without calibration, on one run; and batch calibration."""
    lengths = [length for length in LENGTHS if length != "first" or scored.first_tokens_distinct]
    if scored.token_logprobs.shape[2] == 1:
        lengths = ["sum"]     # one log-prob per label (channel scoring, one-token labels): the lengths agree
    grid = {f"{length}{' +calibrated' if calibrate else ''}":
            report(scored.scores(Scoring(length, calibrate)), gold, names)
            for length in lengths for calibrate in (False, True)}
    grid.update({f"{length} +batch-calibrated": report(batch_calibrated(scored, length), gold, names)
                 for length in lengths})
    return grid


def batch_calibrated(scored: Scored, length: str) -> torch.Tensor:
    """Batch calibration (Zhou et al., 2024): the prior is the run's own mean answer, not a content-free one.

    Measured here only: it needs every ticket of a run before the first label is final, which a
    window that streams labels batch by batch cannot offer as it stands.
    """
    scores = normalise(combine(Scoring(length, calibrate=False), scored.token_logprobs))   # [N, L]
    return normalise(scores - scores.exp().mean(dim=0).log())


def promote_corrections(label_set: LabelSet, gold: GoldSet, scores: torch.Tensor, per_label: int
                        ) -> tuple[LabelSet, list[int]]:
    """What a user's review would teach: the least certain wrong answers, corrected, become examples.

    Walks the review queue (smallest margin first) and promotes up to per_label corrected tickets
    of each gold label. Returns the new label set and the rows promoted.
    """
    names = label_set.names
    probs = scores.exp()
    top2 = probs.topk(2, dim=1).values
    queue = sorted(range(len(gold.texts)), key=lambda r: float(top2[r, 0] - top2[r, 1]))
    taken: dict[str, list[int]] = {name: [] for name in names}
    for r in queue:
        label = gold.gold[r]
        if label in taken and names[int(probs[r].argmax())] != label and len(taken[label]) < per_label:
            taken[label].append(r)
    rows = [r for rs in taken.values() for r in rs]
    promoted = [Example(gold.texts[r], gold.gold[r]) for r in rows]
    return label_set.with_examples(tuple(label_set.examples) + tuple(promoted)), rows


def without_examples(label_set: LabelSet) -> LabelSet:
    return replace(label_set, examples=())


FEW_SHOT_COUNTS = (0, 1, 2, 4)


def run_eval(make_classifier, gold: GoldSet, label_set: LabelSet, scoring: Scoring, config: RunConfig,
             examples_per_label: int | None = None, compare: bool = False, log=print,
             progress: Progress | None = None) -> dict:
    """The eval command's work. make_classifier(label_set, scoring) -> Classifier.

    With examples drawn from the file (or compare), the first max(FEW_SHOT_COUNTS) tickets of
    each label are held out, so every variant is scored on the same rows. progress: every model
    pass's, as score() reports it.
    """
    names = label_set.names
    pool = max(FEW_SHOT_COUNTS) if compare or examples_per_label else 0
    examples, rows = examples_from(gold, names, examples_per_label or 0, max(pool, examples_per_label or 0))
    chosen = label_set.with_examples(examples) if examples_per_label is not None else label_set
    held = gold.subset(rows)
    log(f"evaluating on {len(rows)} tickets ({len(gold.texts) - len(rows)} held out as examples or unlabeled)")
    scored = score(make_classifier(chosen, scoring), held.texts, config, progress)
    scores = scored.scores(scoring)
    main = report(scores, held.gold, names)
    temperature, tempered = cross_fitted_temperature(scored.scores(replace(scoring, temperature=1.0)), held.gold, names)
    after = report(tempered, held.gold, names)
    out = {"n": len(rows), "scoring": {"method": scoring.method, "length": scoring.length,
                                       "calibrate": scoring.calibrate, "temperature": scoring.temperature},
           "examples": len(chosen.examples), "prefix_tokens": scored.prefix_tokens, "seconds": scored.seconds,
           "report": main.to_dict(), "fitted_temperature": temperature, "ece_after_temperature": after.ece,
           "reliability_after_temperature": after.reliability}
    if not compare:
        return out
    out["scoring_grid"] = {k: _brief(r) for k, r in scoring_grid(scored, held.gold, names).items()}
    out["few_shot"] = {}
    for k in FEW_SHOT_COUNTS:
        shots, _ = examples_from(gold, names, k, pool)
        few = label_set.with_examples(shots)
        run = scored if few == chosen else score(make_classifier(few, scoring), held.texts, config, progress)
        out["few_shot"][k] = dict(_brief(report(run.scores(scoring), held.gold, names)),
                                  prefix_tokens=run.prefix_tokens, seconds=run.seconds)
        log(f"  {k} example(s) per label: accuracy {out['few_shot'][k]['accuracy']:.3f}")
    out["other_methods"] = {}
    for method in (m for m in METHODS if m != scoring.method):
        other = replace(scoring, method=method)
        run = score(make_classifier(chosen, other), held.texts, config, progress)
        out["other_methods"][method] = dict(_brief(report(run.scores(other), held.gold, names)), seconds=run.seconds)
        log(f"  {method} scoring: accuracy {out['other_methods'][method]['accuracy']:.3f}")
    if any(label.alias for label in label_set.labels):
        plain = LabelSet(tuple(replace(label, alias="") for label in label_set.labels), chosen.examples)
        run = score(make_classifier(plain, scoring), held.texts, config, progress)
        out["without_aliases"] = _brief(report(run.scores(scoring), held.gold, names))
    out["corrections"] = corrections_experiment(make_classifier, chosen, held, scores, scoring, config,
                                                progress=progress)
    return out


def learning_curve_eval(classifier: Classifier, gold: GoldSet, scoring: Scoring, config: RunConfig, draws: int,
                        log=print, progress: Progress | None = None, embeddings: np.ndarray | None = None,
                        similarity: LabelSimilarity | None = None, encoder: str | None = None) -> tuple[Curve, Scored]:
    """eval --learning-curve: the language model runs once; every k and draw reuses its scores.
    embeddings: [N, D] the tickets' sentence vectors, and similarity the labels' (scores and prototypes),
    as a run that learns from a person's labels builds them (run/embedded.py; quality does not import
    run): the curve learns on TF-IDF, embeddings and both side by side, and its combined part is what
    learn() answers in the product. encoder: the sentence encoder's name, said with the curve."""
    scored = score(classifier, gold.texts, config, progress)
    lm = scored.scores(scoring).double().numpy()                                      # [N, L]
    curve = learning_curve(gold.texts, gold.gold, lm, classifier.label_set.names, draws=draws, log=log,
                           embeddings=embeddings, similarity=similarity, encoder=encoder)
    return curve, scored


def corrections_experiment(make_classifier, label_set: LabelSet, held: GoldSet, scores: torch.Tensor,
                           scoring: Scoring, config: RunConfig, per_label: int = 1,
                           progress: Progress | None = None) -> dict:
    """Accuracy on the other tickets before and after the user's corrections become examples."""
    promoted_set, promoted = promote_corrections(label_set, held, scores, per_label)
    rest = [r for r in range(len(held.texts)) if r not in set(promoted)]
    names = label_set.names
    before = report(scores[rest], [held.gold[r] for r in rest], names)
    others = held.subset(rest)
    after = report(score(make_classifier(promoted_set, scoring), others.texts, config, progress).scores(scoring),
                   others.gold, names)
    return {"promoted": len(promoted), "n": len(rest), "before": _brief(before), "after": _brief(after)}


def _brief(r: Report) -> dict:
    return {"accuracy": r.accuracy, "macro_f1": r.macro_f1, "ece": r.ece,
            "recall": {k: m.recall for k, m in r.per_label.items()}}

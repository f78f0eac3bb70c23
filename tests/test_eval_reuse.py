"""eval's passes run what they must and no more: a classifier's content-free tickets once per run config, and
--compare's example count that is the main run's label set reuses the main run."""

from __future__ import annotations

import torch

from triage_app.engine.build import classifier_for
from triage_app.engine.config import METHODS, RunConfig, RunSettings, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.quality.evaluate import FEW_SHOT_COUNTS, GoldSet, run_eval, score

NAMES = ["billing", "technical", "account"]
TEXTS = {"billing": "Refund my last payment please", "technical": "The app crashes on start",
         "account": "I cannot log in to my profile"}


def counting(monkeypatch, classifier_class):
    runs = []
    real = classifier_class._run_content_free
    monkeypatch.setattr(classifier_class, "_run_content_free", lambda self, config: runs.append(config) or real(self, config))
    return runs


def test_content_free_tickets_run_once_per_run_config_and_equal_a_fresh_run(tiny_qwen, monkeypatch):
    from triage_app.engine.classifier import Classifier

    runs = counting(monkeypatch, Classifier)
    classifier = classifier_for(tiny_qwen, LabelSet.from_names(NAMES), RunSettings())
    texts = [f"{TEXTS[name]} (order {r})" for r, name in enumerate(NAMES * 2)]
    first = score(classifier, texts, RunConfig(batch_size=4))
    again = score(classifier, texts, RunConfig(batch_size=4))
    assert len(runs) == 1                                  # run() and score() twice: one content-free pass
    assert torch.equal(first.content_free, again.content_free)
    reference = score(classifier, texts, RunConfig(reference=True))
    assert len(runs) == 2                                  # another config runs them its own way
    fresh = classifier_for(tiny_qwen, LabelSet.from_names(NAMES), RunSettings()).content_free(RunConfig(batch_size=4))
    assert torch.equal(first.content_free, fresh)
    assert torch.allclose(reference.content_free, fresh, atol=1e-4)


def test_compare_reuses_the_main_run_for_the_example_count_it_is(tiny_qwen):
    made = []

    def make(labels, scoring):
        made.append((labels, scoring.method))
        return classifier_for(tiny_qwen, labels, RunSettings(scoring=scoring))

    rows = [(f"{TEXTS[name]} (order {r})", name) for r in range(6) for name in NAMES]
    gold = GoldSet([t for t, _ in rows], [g for _, g in rows])
    out = run_eval(make, gold, LabelSet.from_names(NAMES), Scoring(method="direct"), RunConfig(batch_size=4),
                   compare=True, log=lambda line: None)
    assert out["few_shot"][0]["accuracy"] == out["report"]["accuracy"]
    examples = [len(labels.examples) for labels, method in made if method == "direct"]
    # the main run (no examples), 1, 2 and 4 per label, the corrections' rerun; 0 examples is the main run's
    assert examples[:4] == [0] + [k * len(NAMES) for k in FEW_SHOT_COUNTS if k]
    assert len(made) == 1 + (len(FEW_SHOT_COUNTS) - 1) + (len(METHODS) - 1) + 1

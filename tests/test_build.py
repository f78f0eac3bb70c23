"""The one builder: settings to a loaded model, and a loaded model plus a label set to a Classifier."""

from __future__ import annotations

from dataclasses import replace

from triage_app.engine import build, models
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import ModelChoice, RunSettings, Scoring
from triage_app.engine.labels import LabelSet


def test_a_classifier_from_settings_is_the_one_built_by_hand(smollm2):
    settings = RunSettings(scoring=Scoring("mean", False, 2.0, "direct"), max_ticket_tokens=200)
    built = build.classifier_for(smollm2, LabelSet.default(), settings)
    by_hand = Classifier(smollm2, LabelSet.default(), max_ticket_tokens=200, scoring=settings.scoring)
    assert built.fingerprint == by_hand.fingerprint and built.scoring == settings.scoring
    channel = build.classifier_for(smollm2, LabelSet.default(), replace(settings, scoring=Scoring()))
    assert channel.method.channel is not None and channel.fingerprint != built.fingerprint


def test_build_loads_the_chosen_model_and_says_where(smollm2, monkeypatch):
    seen, lines = [], []
    monkeypatch.setattr(models, "load", lambda spec, placement, allow_download: seen.append(
        (spec, placement.device, placement.dtype_name, allow_download)) or smollm2)
    choice = ModelChoice(models.SMOLLM2, "cpu", "float32", download=True)
    classifier = build.build_classifier(RunSettings(model=choice), LabelSet.default(), log=lines.append)
    assert seen == [(models.SMOLLM2, "cpu", "float32", True)]
    assert classifier.loaded is smollm2 and classifier.method.channel is not None
    assert lines[0].startswith("placement: device cpu") and lines[1] == f"model: {smollm2.name}"

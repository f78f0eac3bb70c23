"""The one way a run's settings become a ready Classifier: load the model, then build per label set.

The two steps stay apart because the window's worker loads a model once and builds a classifier
for each label set it is asked about; build_classifier does both for everyone else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from triage_app.engine import checked, device, models
from triage_app.engine.classifier import Classifier
from triage_app.engine.axes import Axes
from triage_app.engine.config import METHOD_FACTS, ModelChoice, RunSettings
from triage_app.engine.labels import LabelSet
from triage_app.engine.prompt import PromptStyle


def load_model(choice: ModelChoice, log: Callable[[str], None] | None = None) -> models.LoadedModel:
    """The model on the device and in the dtype chosen ('auto' resolved here, on this machine).

    log: told the placement and its reason before the weights load, and the model's name after."""
    placement = device.choose(choice.device, choice.dtype)
    if log:
        log(f"placement: {placement.reason}")
    loaded = models.load(choice.spec, placement, allow_download=choice.download)
    if log:
        log(f"model: {loaded.name}")
    return loaded


def classifier_for(loaded: models.LoadedModel, label_set: LabelSet, settings: RunSettings,
                   style: PromptStyle = PromptStyle(), log: Callable[[str], None] | None = None) -> Classifier:
    """A classifier on a model already loaded; settings.model is not read (the model is here).

    On a checked placement (loaded in float32, engine/checked.py) a method that scores the set as a
    whole gets a CheckedClassifier, on a low-precision copy made the first time one is asked for;
    log: told its decision, low precision or float32, and why, at every run. A per-label method
    (channel) runs float32: its results are kept per label, so an edit re-scores only what it changed,
    and a checked answer is decided on the whole set's margin (its drift was also wider than most
    margins: docs/bench/checked_precision.txt)."""
    if loaded.placement.checked is not None and not METHOD_FACTS[settings.scoring.method].per_label:
        if loaded.low is None:
            loaded.low = checked.low_copy(loaded)
        return checked.CheckedClassifier(loaded, label_set, style, settings.max_ticket_tokens, settings.scoring,
                                         log=log)
    return Classifier(loaded, label_set, style, settings.max_ticket_tokens, settings.scoring)


def axes_classifiers(loaded: models.LoadedModel, axes: Axes, settings: RunSettings,
                     style: PromptStyle = PromptStyle(), log: Callable[[str], None] | None = None) -> list[Classifier]:
    """One classifier per axis, in the axes' order, each with its axis's own method where it names one,
    and told the axes scored with that method (axis_style)."""
    return [classifier_for(loaded, axis.label_set, axis.settings(settings), axis_style(axes, axis.name, settings, style),
                           log)
            for axis in axes]


def axis_style(axes: Axes, name: str, settings: RunSettings, style: PromptStyle = PromptStyle()) -> PromptStyle:
    """The style of axis name's prompt in a run of these axes with these settings: it names the axes
    scored with the same method as this one (PromptStyle.fields), in order. A method whose prompt names
    its fields (direct-fields) reads them; the others' prompts are their own axis's alone, as ever, so
    their fingerprints do not change. An axis of another method is never named: its edit leaves this
    one's prompt, and stored answers, as they were."""
    method = axes.named(name).method_or(settings.scoring.method)
    same = [axis for axis in axes if axis.method_or(settings.scoring.method) == method]
    return replace(style, fields=tuple((axis.name, axis.label_set) for axis in same), field=name)


def build_classifier(settings: RunSettings, label_set: LabelSet,
                     log: Callable[[str], None] | None = None) -> Classifier:
    """Load settings.model and build the classifier for label_set: the whole way from settings to a run."""
    return classifier_for(load_model(settings.model, log), label_set, settings)

"""What a Ray worker builds its Classifier from: small, picklable, nothing loaded."""

from __future__ import annotations

from dataclasses import dataclass

from triage_app.engine.config import RunSettings
from triage_app.engine.labels import LabelSet


@dataclass(frozen=True)
class ClassifierRecipe:
    """Shipped to every Ray actor, which builds its own Classifier from it once, the one way every
    caller does (engine/build.py), so every setting the command line grows reaches the cluster.

    The placement is chosen on the worker, not the driver: "auto" on a GPU node means CUDA even
    when the driver runs on a laptop. Pin device and dtype when labels must match another run.
    The label set is resolved on the driver: a labels file need not exist on the workers.
    """

    settings: RunSettings
    labels: dict  # LabelSet.to_dict(), the label files' format: survives a worker on newer code

    def __post_init__(self):
        if not isinstance(self.settings, RunSettings):
            raise TypeError("settings: engine.config.RunSettings")
        if not isinstance(self.labels, dict):
            raise TypeError("labels: a LabelSet's to_dict(); ClassifierRecipe.of takes a LabelSet")
        self.label_set  # a bad label set fails here, on the driver, not in every actor

    @classmethod
    def of(cls, label_set: LabelSet, settings: RunSettings = RunSettings()) -> ClassifierRecipe:
        return cls(settings, label_set.to_dict())

    @property
    def label_set(self) -> LabelSet:
        return LabelSet.from_dict(self.labels)

    @property
    def device(self) -> str:
        return self.settings.model.device

    def build(self):
        from triage_app.engine.build import build_classifier

        return build_classifier(self.settings, self.label_set)

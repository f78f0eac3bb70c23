"""How a worker builds the Classifier the local command builds: small, picklable, nothing loaded."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from triage_app.engine.labels import LabelSet


@dataclass(frozen=True)
class ClassifierRecipe:
    """Shipped to every Ray actor, which builds its own Classifier from it once.

    The placement is chosen on the worker, not the driver: "auto" on a GPU node means CUDA even
    when the driver runs on a laptop. Pin device and dtype when labels must match another run.
    """

    model: str
    labels: dict  # LabelSet.to_dict(), the label files' format: survives a worker on newer code
    device: str = "auto"
    dtype: str = "auto"
    download: bool = False
    max_ticket_tokens: int | None = 1024
    options: dict = field(default_factory=dict)  # further Classifier keywords, passed through as given

    def __post_init__(self):
        if not isinstance(self.labels, dict):
            raise TypeError("labels: a LabelSet's to_dict(); ClassifierRecipe.of takes a LabelSet")
        self.label_set  # a bad label set fails here, on the driver, not in every actor

    @classmethod
    def of(cls, model: str, label_set: LabelSet, **settings) -> ClassifierRecipe:
        return cls(model, label_set.to_dict(), **settings)

    @property
    def label_set(self) -> LabelSet:
        return LabelSet.from_dict(self.labels)

    def build(self):
        from triage_app.engine import device, models
        from triage_app.engine.classifier import Classifier

        from triage_app.engine.scoring import Scoring

        method = self.options.get("scoring", Scoring()).method
        placement = device.choose(self.device, self.dtype, method)
        loaded = models.load(self.model, placement, allow_download=self.download)
        return Classifier(loaded, self.label_set, max_ticket_tokens=self.max_ticket_tokens, **self.options)


@dataclass(frozen=True)
class CommandRecipe:
    """The classify command's own arguments: each actor builds its Classifier with the command's
    helper (cli._classifier), so every option the command grows reaches the cluster unchanged.

    The label set is resolved on the driver: a --labels-file need not exist on the workers.
    """

    args: argparse.Namespace
    labels: dict

    @classmethod
    def of(cls, args: argparse.Namespace, label_set: LabelSet) -> CommandRecipe:
        return cls(args, label_set.to_dict())

    @property
    def device(self) -> str:
        return self.args.device

    @property
    def label_set(self) -> LabelSet:
        return LabelSet.from_dict(self.labels)

    def build(self):
        from triage_app import cli

        return cli._classifier(self.args, self.label_set)

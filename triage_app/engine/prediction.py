"""One ticket's answer from a run: plain data, no torch, so the window's table can hold and rebuild it."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(slots=True)
class Prediction:
    index: int
    labels: list[str]
    scores: list[float] | None   # log-probability of each label, normalised over the labels (after scoring)
    truncated: bool = False
    fallback: bool = False       # the prefix cut was not token-clean: ran on the full prompt

    @property
    def is_blank(self) -> bool:
        return self.scores is None

    @property
    def probabilities(self) -> list[float]:
        return [math.exp(s) for s in self.scores] if self.scores else []

    @property
    def label(self) -> str | None:
        return self.labels[max(range(len(self.labels)), key=self.scores.__getitem__)] if self.scores else None

    @property
    def confidence(self) -> float | None:
        return max(self.probabilities) if self.scores else None

    @property
    def margin(self) -> float | None:
        """Top-1 minus top-2 probability."""
        if not self.scores:
            return None
        top = sorted(self.probabilities, reverse=True)
        return top[0] - top[1]

    @property
    def log_margin(self) -> float | None:
        """Top-1 minus top-2 log-probability: how far the decision is from a tie."""
        if not self.scores:
            return None
        top = sorted(self.scores, reverse=True)
        return top[0] - top[1]

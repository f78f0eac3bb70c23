"""A run's statistics, streamed after every batch."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(slots=True)
class RunStats:
    total: int
    device: str = ""
    dtype: str = ""
    model: str = ""
    done: int = 0
    seconds: float = 0.0
    tokens_processed: int = 0
    real_tokens: int = 0
    padding_tokens: int = 0
    global_padding_inflation: float = 1.0
    prefix_tokens: int = 0
    prefix_tokens_saved: int = 0
    fallbacks: int = 0
    truncated: int = 0
    batches: int = 0

    @property
    def items_per_s(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_processed / self.seconds if self.seconds else 0.0

    @property
    def padding_fraction(self) -> float:
        return self.padding_tokens / self.tokens_processed if self.tokens_processed else 0.0

    @property
    def eta_seconds(self) -> float | None:
        return (self.total - self.done) / self.items_per_s if self.items_per_s else None

    def to_dict(self) -> dict:
        """The keys --stats-json promises, plus a few more."""
        out = asdict(self)
        out.update(items=self.done, items_per_s=self.items_per_s, tokens_per_s=self.tokens_per_s,
                   padding_fraction=self.padding_fraction)
        return out

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
    rows_planned: int = 0      # behind global_padding_inflation: a run plans its rows chunk by chunk
    row_tokens_planned: int = 0
    longest_row: int = 0

    def count_planned(self, lengths: list[int]) -> None:
        """Rows about to run, at these widths: global_padding_inflation then covers every row so far."""
        self.rows_planned += len(lengths)
        self.row_tokens_planned += sum(lengths)
        self.longest_row = max([self.longest_row, *lengths])
        if self.row_tokens_planned:
            self.global_padding_inflation = self.rows_planned * self.longest_row / self.row_tokens_planned

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


@dataclass(slots=True)
class LabelNodes:
    """Label-trie nodes a direct classifier has put through the model, against what the whole trie
    for every row would have been: what pruning (engine/methods/prune.py) saves."""

    fed: int = 0
    full: int = 0

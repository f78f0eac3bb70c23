"""Length-bucketed batches, planned from token counts alone (no tensors here)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bucket:
    """One batch: the tickets in it and the width every row is padded to."""

    items: tuple[int, ...]
    lengths: tuple[int, ...]
    uses_prefix: bool
    width_step: int = 1

    @property
    def width(self) -> int:
        return padded_width(max(self.lengths), self.width_step)

    @property
    def real_tokens(self) -> int:
        return sum(self.lengths)

    @property
    def padding_tokens(self) -> int:
        return len(self.items) * self.width - self.real_tokens


def padded_width(longest: int, step: int) -> int:
    """A batch's width: its longest row, rounded up to a multiple of step.

    A step above 1 draws every batch's shape from a small fixed set: MPS builds and keeps a
    graph per input shape, so free widths grow its cache without bound.
    """
    return -(-longest // step) * step


def plan_buckets(items: list[int], lengths: list[int], *, uses_prefix: bool, sort: bool,
                 max_rows: int, token_budget: int | None, width_step: int = 1,
                 first_budget: int | None = None) -> list[Bucket]:
    """Group items into batches of at most max_rows rows and rows x width <= token_budget.

    sort=True orders by length first, so each batch pads only to its own, similar, maximum
    (rounded up to a multiple of width_step). A ticket longer than the budget still runs, alone.
    first_budget: a smaller budget for the first batch, whose labels a user waits for.
    """
    order = sorted(range(len(items)), key=lambda k: lengths[k]) if sort else range(len(items))
    buckets, rows, width = [], [], 0
    for k in order:
        new_width = max(width, lengths[k])
        budget = first_budget if first_budget is not None and not buckets else token_budget
        too_wide = budget is not None and (len(rows) + 1) * padded_width(new_width, width_step) > budget
        if rows and (len(rows) == max_rows or too_wide):
            buckets.append(_bucket(rows, items, lengths, uses_prefix, width_step))
            rows, new_width = [], lengths[k]
        rows.append(k)
        width = new_width
    if rows:
        buckets.append(_bucket(rows, items, lengths, uses_prefix, width_step))
    return buckets


def _bucket(rows: list[int], items: list[int], lengths: list[int], uses_prefix: bool, width_step: int) -> Bucket:
    return Bucket(tuple(items[k] for k in rows), tuple(lengths[k] for k in rows), uses_prefix, width_step)


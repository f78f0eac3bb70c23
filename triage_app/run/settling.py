"""Which rows go back to float32 next: the one rule for settling, for the command line and the window.

A checked low precision keeps a bfloat16 answer only where its margin beats the drift it measured. Once a
person teaches, learning names the rows whose learned answer those scores could still decide
(Learned.unsettled); a settling run scores them again in float32 (run/job.py, exact) and learning follows.
Rows settled stay settled until the field is scored again in low precision. Each settling run also takes
every row settled before it (without the database they would come back in low precision), so the rows
settled only grow, and rows all settled already are not run again: the loop ends.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(slots=True)
class Settling:
    waiting: dict[str, list[int]] = field(default_factory=dict)   # field -> rows learning asked for, not yet run
    settled: dict[str, set[int]] = field(default_factory=dict)    # field -> rows settling runs scored

    def ask(self, name: str, rows: Iterable[int]) -> None:
        """Learning asks for these rows of a field (its latest word replaces an earlier one)."""
        rows = list(rows)
        if not set(rows) <= self.settled.get(name, set()):
            self.waiting[name] = rows

    def next(self, fields: Collection[str]) -> tuple[str, list[int]] | None:
        """The field and rows of the next settling run, among the fields there still are; None: nothing waits."""
        while self.waiting:   # a field removed meanwhile is passed over
            name = next(iter(self.waiting))
            rows = sorted(set(self.waiting.pop(name)) | self.settled.get(name, set()))
            if name in fields:
                return name, rows
        return None

    def ran(self, exact: Mapping[str, Iterable[int]]) -> None:
        """A settling run finished: its rows are float32's own."""
        for name, rows in exact.items():
            self.settled.setdefault(name, set()).update(rows)

    def scored_again(self, fields: Iterable[str]) -> None:
        """A run may have scored these fields again in low precision: settled no more."""
        for name in fields:
            self.settled.pop(name, None)

    def forget(self, fields: Iterable[str]) -> None:
        """What was asked on these fields' scores so far: the retrain after their run asks again."""
        for name in fields:
            self.waiting.pop(name, None)

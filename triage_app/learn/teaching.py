"""The labels a person has given, checked against the current label set."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from triage_app.engine.labels import folded


SHOWN = 10      # labels a summary names one by one


@dataclass(slots=True)
class Teaching:
    """Rows a person labelled, as label indices into `names`; labels no longer in the set are set aside.

    A label renamed or removed after it was taught keeps its rows out of training (they are
    counted in `ignored`, by the old name) rather than failing the retrain.
    """

    names: list[str]
    rows: np.ndarray                      # [T] ticket rows, ascending
    targets: np.ndarray                   # [T] index into names of each row's label
    ignored: dict[str, int] = field(default_factory=dict)   # label no longer in the set -> rows

    @classmethod
    def from_labels(cls, labels: Mapping[int, str], names: Iterable[str]) -> Teaching:
        """labels: ticket row -> the label the person gave it."""
        names = list(names)
        if len(set(names)) != len(names):
            raise ValueError("the label set names a label twice")
        index = {name: k for k, name in enumerate(names)}
        kept = sorted((row, index[label]) for row, label in labels.items() if label in index)
        ignored = Counter(label for label in labels.values() if label not in index)
        rows = np.array([r for r, _ in kept], dtype=np.int64)
        targets = np.array([t for _, t in kept], dtype=np.int64)
        return cls(names, rows, targets, dict(sorted(ignored.items())))

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def per_label(self) -> dict[str, int]:
        counts = np.bincount(self.targets, minlength=len(self.names))
        return {name: int(c) for name, c in zip(self.names, counts)}

    @property
    def taught_labels(self) -> int:
        """How many labels have at least one example."""
        return int(np.count_nonzero(np.bincount(self.targets, minlength=len(self.names))))

    def summary(self, shown: int = SHOWN) -> str:
        """'N labels (per label: a 3, b 0, ...)' plus what was set aside, for the window's line; past `shown`
        labels, those taught (the most first, `shown` of them) and how many are not: one line, not a page."""
        counts = self.per_label
        if len(counts) > shown:
            taught = sorted((item for item in counts.items() if item[1]), key=lambda item: -item[1])
            listed = ", ".join([f"{name} {c}" for name, c in taught[:shown]] +
                               [f"{len(taught) - shown:,} more"] * (len(taught) > shown))
            line = f"{self.n} labels (on {len(taught):,} of {len(counts):,} labels{': ' * bool(listed)}{listed})"
        else:
            line = f"{self.n} labels (per label: {', '.join(f'{name} {c}' for name, c in counts.items())})"
        if self.ignored:
            line += "; not in the label set, ignored: " + ", ".join(f"{k!r} {v}" for k, v in self.ignored.items())
        return line


@dataclass(slots=True)
class ColumnLabels:
    """A column of known labels read against the label set: what trains, and what does not match."""

    labels: dict[int, str]                # row -> label name, as spelled in the label set
    unknown: dict[str, int]               # value not in the label set -> rows, commonest first
    blank: int                            # rows with nothing in the column: these are predicted

    @property
    def message(self) -> str | None:
        """One line naming the values that are not labels, or None when every value is one."""
        if not self.unknown:
            return None
        shown = ", ".join(f"{value!r} ({n})" for value, n in list(self.unknown.items())[:10])
        more = f" and {len(self.unknown) - 10} more" if len(self.unknown) > 10 else ""
        rows = sum(self.unknown.values())
        return f"{rows} rows have a value that is not a label, not learned from: {shown}{more}"


def labels_from_column(values: Iterable[object], names: Iterable[str]) -> ColumnLabels:
    """A column's values as labels. Case, Unicode's two spellings of an accent and surrounding spaces are
    ignored (engine/labels.folded), as eval's gold column does."""
    canon = {folded(name.strip()): name for name in names}
    labels, unknown, blank = {}, Counter(), 0
    for row, value in enumerate(values):
        text = cell_text(value)
        if not text:
            blank += 1
        elif folded(text) in canon:
            labels[row] = canon[folded(text)]
        else:
            unknown[text] += 1
    return ColumnLabels(labels, dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))), blank)


def cell_text(value: object) -> str:
    """A column's cell as a label is read from it: stripped; blank for None and NaN."""
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value).strip()

"""Results out for several axes: every input column and row in order, plus each axis's columns.

Each axis's columns are what results_frame writes for one label set, named after the axis:
`<axis>` (the label), `<axis>_confidence`, `<axis>_margin`, `p_<axis>_<label>`, `<axis>_needs_review`
and `<axis>_source`; then one `truncated` for the ticket: some axis read only its head, cut by a limit a
person set or by the model's context (results_frame says why a method's own head is not a cut). A plain
label set (one axis named "label") is written by results_frame itself, with today's columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from triage_app.engine.axes import Axes, Axis
from triage_app.files.export import READ_COLUMN, REVIEW_BELOW, renamed_columns, renamed_input_columns, results_frame


@dataclass(slots=True)
class AxisAnswers:
    """One axis's answers over a file's rows, as classify built them."""

    axis: Axis
    predictions: list                                    # index, label, confidence, margin, probabilities, truncated
    person_labels: dict[int, str] = field(default_factory=dict)  # row -> a person's label; it wins over the model's
    sources: list[str] | None = None                     # person, learned or model per row; None: person where a person labelled
    review_below: float = REVIEW_BELOW
    from_file: frozenset[int] = frozenset()              # person rows whose label is the file's own (--person-labels)

    @property
    def names(self) -> list[str]:
        return self.axis.names


def axes_columns(axes: Axes) -> list[str]:
    """The columns a run over these axes may add (each axis's READ_COLUMN after a labels-first run only);
    refused where two axes would write the same column."""
    columns = [c for axis in axes for c in (*_renames(axis).values(), f"{axis.name}_{READ_COLUMN}")] + ["truncated"]
    doubled = sorted({c for c in columns if columns.count(c) > 1})
    if doubled:
        raise ValueError(f"the axes would write column(s) {', '.join(doubled)} twice; rename an axis or a label")
    return columns


def axes_renamed_input_columns(columns: Sequence, axes: Axes) -> dict[str, str]:
    """Input columns named like one the axes add (a helpdesk's own queue column) and the names they keep."""
    return renamed_columns(columns, axes_columns(axes))


def renamed_note(columns: Sequence, axes: Axes | None, label_names: list[str] | None = None) -> str | None:
    """The line that says which input columns an output keeps under another name (a field named id moves the
    ids to id_input), the command line's and the window's; None when none. axes None: a plain label set of
    label_names."""
    renames = (renamed_input_columns(columns, label_names or axes.first.names) if axes is None or axes.is_plain
               else axes_renamed_input_columns(columns, axes))
    return (f"the output keeps input column(s) {', '.join(renames)} as {', '.join(renames.values())}; Triage "
            "writes its own under those names") if renames else None


def axes_frame(frame: pd.DataFrame, answers: list[AxisAnswers]) -> pd.DataFrame:
    """The input frame plus every axis's columns, in the axes' order, and truncated (any axis's was)."""
    axes = Axes(tuple(a.axis for a in answers))
    out = frame.rename(columns=axes_renamed_input_columns(frame.columns, axes))
    rows = pd.DataFrame(index=range(len(frame)))
    truncated = np.zeros(len(frame), dtype=bool)
    for a in answers:
        one = results_frame(rows, a.predictions, a.names, a.person_labels, a.review_below, a.sources)
        for ours, theirs in _renames(a.axis).items():
            out[theirs] = one[ours].tolist()
        truncated |= one["truncated"].to_numpy(dtype=bool)
    out["truncated"] = truncated.tolist()
    return out


def _renames(axis: Axis) -> dict[str, str]:
    """results_frame's column -> this axis's."""
    name = axis.name
    return {"label": name, "confidence": f"{name}_confidence", "margin": f"{name}_margin",
            **{f"p_{label}": f"p_{name}_{label}" for label in axis.names},
            "needs_review": f"{name}_needs_review", "source": f"{name}_source"}

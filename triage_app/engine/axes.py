"""Axes: the fields a ticket is triaged on at once (queue, priority, type), each a label set of its own.

A label-set file of today ({"labels": [...], "examples": [...]}) is one axis named "label": it is
the very LabelSet it always was (same fingerprint, same stored results), and its output keeps
today's columns. A file of several axes is {"axes": [{"name": "queue", "labels": [...],
"examples": [...]}, ...]}; each axis's name prefixes its output columns (queue, queue_confidence,
p_queue_<label>, ...), so names are kept to what a column prefix and a command-line spec
(`queue=0.8,priority=0.6`) can hold.

An axis may name its scoring method ({"name": "priority", "method": "direct-after", ...}); one that
does not is scored with the run's method. Axes of method direct-after share one pass over each ticket
(engine/axes_pass.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from triage_app.engine.config import METHODS, RunSettings
from triage_app.engine.labels import (SET_KEYS, BadLabelSet, LabelSet, checked_entries, checked_list, parse_json,
                                      read_json, within)

PLAIN = "label"   # the one axis of a plain label set: today's output columns
AXIS_KEYS = ("name", "method", *SET_KEYS)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Axis:
    name: str
    label_set: LabelSet
    method: str | None = None   # its scoring method; None: the run's

    def __post_init__(self):
        self.check_name(self.name)
        if self.method is not None and self.method not in METHODS:
            raise ValueError(f"axis {self.name!r}: the method must be one of {', '.join(METHODS)}, not {self.method!r}")

    @staticmethod
    def check_name(name) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"axis name {name!r:.40}: use a letter, then letters, digits or _ "
                             "(it prefixes the output's columns)")

    def method_or(self, run_method: str) -> str:
        """The method this axis is scored with in a run whose method is run_method."""
        return self.method or run_method

    def settings(self, run_settings: RunSettings) -> RunSettings:
        """The run's settings with this axis's own scoring method, where its label-set file names one."""
        method = self.method_or(run_settings.scoring.method)
        return replace(run_settings, scoring=replace(run_settings.scoring, method=method))

    @property
    def names(self) -> list[str]:
        return self.label_set.names


@dataclass(frozen=True, slots=True)
class Axes:
    axes: tuple[Axis, ...]

    def __post_init__(self):
        if not self.axes:
            raise ValueError("a label-set file needs at least one axis")
        names = [axis.name.lower() for axis in self.axes]
        if len(set(names)) != len(names):
            raise ValueError(f"axis names must be distinct: {[axis.name for axis in self.axes]}")

    @property
    def names(self) -> list[str]:
        return [axis.name for axis in self.axes]

    @property
    def first(self) -> Axis:
        return self.axes[0]

    def named(self, name: str) -> Axis:
        """The axis of this name; the first where there is none (a window between two sets of axes)."""
        return next((axis for axis in self.axes if axis.name == name), self.first)

    @property
    def is_plain(self) -> bool:
        """One axis named "label": today's label set, written with today's columns."""
        return len(self.axes) == 1 and self.first.name == PLAIN

    def __iter__(self):
        return iter(self.axes)

    def __len__(self) -> int:
        return len(self.axes)

    @classmethod
    def of(cls, label_set: LabelSet) -> Axes:
        return cls((Axis(PLAIN, label_set),))

    @classmethod
    def from_dict(cls, data) -> Axes:
        """A label-set file's contents, every field checked (engine/labels.py): raises BadLabelSet."""
        if not isinstance(data, dict) or "axes" not in data:
            return cls.of(LabelSet.from_dict(data))
        if "labels" in data:
            raise BadLabelSet("a label-set file holds labels or axes, not both")
        checked_entries(data, ("axes",))
        axes = []
        for k, item in enumerate(checked_list(data, "axes")):
            with within(f"axis {k + 1}"):
                entries = checked_entries(item, AXIS_KEYS, "name")
                Axis.check_name(entries["name"])
            with within(f"axis {entries['name']!r:.40}"):
                axes.append(Axis(entries["name"], LabelSet.from_dict({key: entries[key] for key in SET_KEYS
                                                                      if key in entries}), entries.get("method")))
        return cls(tuple(axes))

    @classmethod
    def from_json(cls, text: str) -> Axes:
        return cls.from_dict(parse_json(text))

    @classmethod
    def load(cls, path: str | Path) -> Axes:
        data = read_json(path)
        with within(str(path)):
            return cls.from_dict(data)

    def to_dict(self) -> dict:
        """A plain set is written as today's file, so older versions still read it."""
        if self.is_plain and self.first.method is None:
            return self.first.label_set.to_dict()
        return {"axes": [{"name": axis.name, **({"method": axis.method} if axis.method else {}),
                          **axis.label_set.to_dict()} for axis in self.axes]}

    def file_text(self) -> str:
        """The label-set file's text; the window writes it whole or not at all (files/export.write_text)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.file_text(), encoding="utf-8")


"""The window's fields (engine.axes): the label sets a run classifies at once (queue, priority, ...),
which one is current, and what follows an edit of them.

The current field is the one the keys 1–9, the filters, the review queue, the accuracy tab, the
label editor and labels from a column work on. It follows the decision column selected in the
table, and the field picked in the label editor; each part keeps its state per field, so moving
from one field to another swaps what is shown and never mixes one field's labels with another's.
A plain label set is one field, named "label", and the window works as it always did.

After an edit of one field's labels, that field alone runs again by itself where its own method keeps
what the edit left alone (METHOD_FACTS per_label: channel); the others' answers do not depend on it.
Under any other method the window says so and waits for Run. A field whose prompt names every field of
its method (direct-fields) counts as edited with any of them (prompt_reads).
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from triage_app.engine.axes import Axes
from triage_app.engine.config import METHOD_FACTS
from triage_app.engine.labels import LabelSet

# methods whose prompt names every field scored with them, with its labels (engine/build.py's axis_style)
NAMING_EVERY_FIELD = ("direct-fields",)


def prompt_reads(axes: Axes, run_method: str) -> dict:
    """Per field, the labels its prompt reads: its own, or under a method naming every field, each such
    field's name and labels. Where an edit changes it, the field's answers so far are stale."""
    methods = {axis.name: axis.method_or(run_method) for axis in axes}
    named = {method: tuple((axis.name, axis.label_set) for axis in axes if methods[axis.name] == method)
             for method in NAMING_EVERY_FIELD}
    return {axis.name: named.get(methods[axis.name], axis.label_set) for axis in axes}


class Fields(QObject):
    def __init__(self, window):
        """window: the MainWindow, whose parts follow the fields."""
        super().__init__(window)
        self.window = window
        panel = window.labels_panel
        panel.changed.connect(self.labels_changed)
        panel.axis_chosen.connect(self.choose)
        panel.axis_renamed.connect(self.rename)
        panel.axis_rename_problem = window.labelling.axis_rename_problem
        window.tickets.axis_changed.connect(self.choose)

    @property
    def current(self) -> str:
        return self.window.model.current_axis

    def label_set(self, axes: Axes) -> LabelSet:
        """The current field's label set (the first field's while the table is between two sets)."""
        return axes.named(self.current).label_set

    def show(self, axes: Axes) -> None:
        """The table takes these fields and names (a decision column each); the pickers follow."""
        w = self.window
        w.tickets.set_axes({axis.name: axis.names for axis in axes})
        w.columns.set_axes(axes.names, self.current)

    def choose(self, axis: str) -> None:
        """Work on this field now (its decision column was selected, or the label editor picked it)."""
        w = self.window
        if axis not in w.model.axes:
            return
        w.tickets.set_current_axis(axis)
        w.labels_panel.choose_axis(axis)
        w.columns.set_axes(w.model.axes, axis)
        w.learning.axis_chosen(axis)
        w.say_what_an_edit_costs()        # this field's method may be another
        w.summary.schedule()

    def rename(self, old: str, new: str) -> None:
        """A field renamed, before the fields change: its answers, labels and learning keep to it."""
        w = self.window
        w.runs.cancel()
        w.tickets.rename_axis(old, new)
        w.columns.rename_axis(old, new)
        w.labelling.rename_axis(old, new)
        w.learning.rename_axis(old, new)

    def labels_changed(self, axes: Axes) -> None:
        """The label editor's fields changed: remembered at once, shown, and run again where worth it."""
        w = self.window
        renamed = [(a.name, a.names) for a in axes] != [(a.name, a.names) for a in w.axes]
        answered = w.running or w.model.rows_answered > 0
        before, now = prompt_reads(w.axes, w.remembered.method), prompt_reads(axes, w.remembered.method)
        edited = [a for a in axes if before.get(a.name) != now[a.name]]   # a field renamed or added counts
        w.axes = axes
        w.remembered.axes = axes
        w.remembered.save(w.settings)     # now: labels given from here on are under this set
        if renamed:     # a run in flight goes on: its answers land only where a field's names are still its own
            self.show(axes)
        # a field the run in flight classifies (not a settling run's few rows) runs again after it, as its
        # status line says; any other as when no run goes: where the edit left the stored alone, or on Run
        run = w.runs.latest
        in_run = [a.name for a in edited if w.running and not run.exact and a.name in run.fields]
        rest = [a for a in edited if a.name not in in_run]
        rest_again = bool(rest) and all(METHOD_FACTS[w.method_of(a.name)].per_label for a in rest) \
            and w.runs.worth_again()
        if in_run or rest_again:
            w.runs.again(in_run + [a.name for a in rest] * rest_again)
        if rest_again:
            w.statusBar().showMessage("Labels changed: scoring what the edit changed…", 10_000)
        elif rest and answered:
            w.statusBar().showMessage("Labels changed: Run again to label the tickets with them.", 10_000)
        w.labelling.axes_changed(axes)     # after: its line on labels set aside matters more
        w.summary.schedule()

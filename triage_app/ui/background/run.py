"""The window's latest run: which rows its answers may land on, and how to start it again."""

from __future__ import annotations

from dataclasses import dataclass, field

from triage_app.engine.labels import LabelSet


@dataclass(slots=True)
class Run:
    """One run asked for from the window, of one or several fields. Its answers land only on the rows it
    was asked about: the table's generation changes with every new file or text column, so a batch
    already on its way from an earlier run never lands on rows that are now other tickets; and only in a
    field whose label names are still those the run was asked with."""

    id: int = 0                      # the worker's run id, carried by every signal of the run
    generation: int = -1             # the table's generation when the run was asked for
    fields: dict[str, LabelSet] = field(default_factory=dict)   # the fields it classifies, as asked
    fresh: bool = False              # what run() was asked: enough to start it again on another model
    limit: int | None = None
    running: bool = False
    waiting: bool = False            # did not start for want of a model: loading the bundled one starts it
    skipped: bool = False            # stopped because the person's labels answer as well (LearningSession.skip)
    now: tuple[str, ...] = ()        # the fields the worker classifies now (several: in one pass); (): none yet
    started: int = 0                 # how many of its fields the worker has started, these included
    exact: dict[str, list[int]] = field(default_factory=dict)   # per field, rows scored again in float32
    labels_first: bool = False       # answered from the person's labels first (ui/labels_first.py)
    said: tuple[str, str] = ()       # labels first: how many tickets the model read (a line, and one for the bar)

    def owns(self, run_id: int, generation: int, axis: str, label_names: list[str]) -> bool:
        """run_id's answers for axis belong on the table: this run, and the table's rows and that field's
        labels (label_names) are still its own."""
        return (run_id == self.id and generation == self.generation and axis in self.fields
                and self.fields[axis].names == label_names)

    def end(self, run_id: int) -> bool:
        """True once, for this run's own end; False for a stale one or a run that ended already."""
        if run_id != self.id or not self.running:
            return False
        self.running = False
        return True

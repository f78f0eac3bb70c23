"""A run of a label set's fields: the one place that decides which fields share a pass over each ticket
and which run alone. The command line wraps run_fields in a progress bar, the window's worker turns it
into signals; neither decides anything about passes.

The fields that can share one pass (one_pass: direct-after or direct-fields, the prefix cache on, nothing
pruned) run first, together; every other field then runs alone, read with its learned part (weighed) and
with the rows learning asked to settle scored in float32 (exact). Each part goes through the store
(job.py, one_pass.py), so a crash or a cancel loses no finished batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from triage_app.engine.checked import Weighed
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.files.clean import TextCleaning
from triage_app.files.store import ResultStore
from triage_app.run.job import JobProgress, run_job
from triage_app.run.one_pass import one_pass, run_axes_job


@dataclass(frozen=True, slots=True)
class PartStarted:
    names: tuple[str, ...]        # the fields classified from now on; several: in one pass over each ticket


@dataclass(frozen=True, slots=True)
class FieldsStep:
    names: tuple[str, ...]        # the part's fields...
    steps: tuple[JobProgress, ...]   # ...and each one's progress, in the same order

    @property
    def slowest(self) -> JobProgress:
        """A ticket is done once every field of the pass has it (a field may have had it stored). Of fields
        as far, the one that classified most: its statistics are the pass's pace (each field's are its own)."""
        return min(self.steps, key=lambda step: (step.rows_done, -step.stats.done))


def passes(classifiers: Sequence[Classifier], config: RunConfig) -> list[list[int]]:
    """The run's parts, in order: the fields that share one pass (indices into classifiers), then each
    other field alone."""
    together = one_pass(list(classifiers), config)
    return [together] * bool(together) + [[k] for k in range(len(classifiers)) if k not in together]


def run_fields(names: Sequence[str], classifiers: Sequence[Classifier], store: ResultStore | None, texts: list[str],
               config: RunConfig, fresh: bool = False, cleaning: TextCleaning = TextCleaning(),
               exact: Mapping[str, Sequence[int]] | None = None, weighed: Mapping[str, Weighed] | None = None,
               dropped: Callable[[Sequence[str]], bool] = lambda names: False) -> Iterator[PartStarted | FieldsStep]:
    """Each part's PartStarted, then a FieldsStep after its stored results are read and after every batch.
    names: each classifier's field; exact: per field, rows whose answers must be float32's own; weighed: per
    field, the learned part a checked run reads its answers with; dropped: whether every field of a part
    was dropped (its labels edited mid-run): it is skipped, or stopped after the batch in flight. Stop
    iterating to cancel."""
    exact, weighed = exact or {}, weighed or {}
    for part in passes(classifiers, config):
        part_names = tuple(names[k] for k in part)
        if dropped(part_names):
            continue
        yield PartStarted(part_names)
        if len(part) > 1:
            steps = run_axes_job([classifiers[k] for k in part], store, texts, config, fresh=fresh, cleaning=cleaning)
        else:
            steps = run_job(classifiers[part[0]], store, texts, config, fresh=fresh, cleaning=cleaning,
                            exact=exact.get(part_names[0], ()), weighed=weighed.get(part_names[0]))
        try:
            for step in steps:
                yield FieldsStep(part_names, tuple(step) if len(part) > 1 else (step,))
                if dropped(part_names):
                    break
        finally:
            steps.close()

"""Several direct-after axes as one job: one pass over each ticket (engine/axes_pass.py), and each
axis's results stored under the very key its one-axis run uses (run/job.py's run_key), so a later
one-axis run, or this job after a crash, resumes from them.

A text is scored again only where some axis lacks it; an axis that had it keeps its stored answer.
Which axes of a run go in the one pass is decided once, here (one_pass): the command line and the
window's worker both ask.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from triage_app.engine.axes_pass import AxesPass, can_share, shares_a_pass
from triage_app.engine.checked import float32_twins
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.engine.stats import RunStats
from triage_app.files.clean import TextCleaning
from triage_app.files.store import ResultStore, StoredResult
from triage_app.run.job import JobProgress, distinct_texts, fan_out, run_key


def one_pass(classifiers: list[Classifier], config: RunConfig) -> list[int]:
    """The axes (indices into classifiers) that run together in one pass; [] where fewer than two can.
    The pass reuses the prefix cache and scores every label exactly: a run without the cache, pruned or
    on the reference loop runs each axis alone."""
    shared = [k for k, c in enumerate(classifiers) if shares_a_pass(c)]
    fits = config.prefix_cache and not (config.prune or config.reference)
    return shared if fits and can_share([classifiers[k] for k in shared]) else []


def run_axes_job(classifiers: list[Classifier], store: ResultStore | None, texts: list[str],
                 config: RunConfig = RunConfig(), fresh: bool = False,
                 cleaning: TextCleaning = TextCleaning()) -> Iterator[list[JobProgress]]:
    """job.run_job for several axes at once: per step, one JobProgress per axis (the classifiers' order).
    Yields after the stored results are read, then after every batch; stop iterating to cancel. Checked
    classifiers run as their float32 twins, and store their results as float32's (checked.float32_twins)."""
    classifiers = float32_twins(classifiers)
    clean, rows_of = distinct_texts(texts, cleaning, classifiers)
    keys = [run_key(c, cleaning) for c in classifiers]
    names = [c.label_set.names for c in classifiers]
    total = sum(map(len, rows_of.values()))
    stored = [{} if fresh or store is None else store.lookup(key, rows_of) for key in keys]
    resumed = [fan_out(rows_of, n, s) for n, s in zip(names, stored)]
    todo = [h for h in rows_of if any(h not in s for s in stored)]
    done, pairs, scored_by = [len(r) for r in resumed], [0] * len(classifiers), [0] * len(classifiers)
    lacking = [len(rows_of) - len(s) for s in stored]     # each axis's own texts to classify
    yield [JobProgress(r, d, total, d, RunStats(total=n)) for r, d, n in zip(resumed, done, lacking)]
    for batch in AxesPass(classifiers).run([clean[rows_of[h][0]] for h in todo], config):
        saves, steps = [], []
        for a, predictions in enumerate(batch.predictions):
            results = {todo[p.index]: StoredResult(names[a], p.scores, p.truncated, p.fallback)
                       for p in predictions if todo[p.index] not in stored[a]}
            scored = {h: r for h, r in results.items() if r.scores is not None}
            saves.append((keys[a], scored))
            fanned = fan_out(rows_of, names[a], results)
            done[a], pairs[a] = done[a] + len(fanned), pairs[a] + len(scored) * len(names[a])
            scored_by[a] += len(results)
            own = _own(batch.stats, scored_by[a], lacking[a])
            steps.append(JobProgress(fanned, done[a], total, len(resumed[a]), own, pairs[a]))
        if store is not None:
            store.save_many(saves)
        yield steps


def _own(stats: RunStats, done: int, total: int) -> RunStats:
    """The pass's statistics as one axis's: the texts it classified are its own (an axis that had a text
    stored keeps it, so it may classify fewer than the pass), its time and tokens the pass's."""
    return replace(stats, done=done, total=total)

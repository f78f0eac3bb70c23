"""bench --workload axes: several axes in one pass over each ticket against one run per axis.

The same tickets, the same axes; per ticket-first method (direct-after: each axis's label list after
the ticket; direct-fields: every field's labels before it, a short cue per axis after it), one pass
(engine/axes_pass.py) against each axis run alone with that method, side by side in one process:
seconds, items/s, their ratio, and whether every axis's labels are identical. Today's direct, one
run per axis (its label list in the cached prefix), is timed beside them for context: a one pass is
an exact optimisation of its own method, not of direct.

On a checked placement (--dtype bfloat16-checked, what "auto" picks on a CPU with native bfloat16) a
checked classifier cannot share a pass (axes_pass.can_share): the one pass and the runs per axis are
float32's, and a fourth side times what such a run does instead, each axis alone in checked low
precision, one after the other. Which of the two is faster decides what the window runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from triage_app.engine.methods.direct_after import TicketFirstMethod
from triage_app.engine.axes_pass import AxesPass
from triage_app.engine.build import axes_classifiers
from triage_app.engine.checked import float32_view
from triage_app.engine.config import DEFAULT_BATCH_SIZE, DEFAULT_TOKEN_BUDGET, RunConfig, RunSettings, Scoring
from triage_app.engine.methods.registry import METHOD_CLASSES
from triage_app.engine.models import LoadedModel
from triage_app.bench.workloads import axes_workload

# the methods whose axes share a pass, read from the registry
TICKET_FIRST = tuple(name for name, cls in METHOD_CLASSES.items() if issubclass(cls, TicketFirstMethod))


@dataclass(slots=True)
class AxesRun:
    name: str
    seconds: float
    items_per_s: float
    labels: list[dict[int, str]]        # per axis: ticket -> label
    scores: list[dict[int, list[float]]]


def run_axes_bench(loaded: LoadedModel, n: int, batch_size: int = DEFAULT_BATCH_SIZE,
                   token_budget: int | None = DEFAULT_TOKEN_BUDGET, methods: tuple[str, ...] = TICKET_FIRST,
                   log=print) -> dict:
    """Three axes of n helpdesk tickets: per method, one pass and one run per axis; then one direct run per
    axis. Fresh classifiers for each: every way pays its own prefix caches and calibration priors."""
    axes, texts = axes_workload(n)
    config = RunConfig(batch_size=batch_size, token_budget=token_budget)
    plain = float32_of(loaded)
    make = lambda method, model=plain: axes_classifiers(model, axes, RunSettings(scoring=Scoring(method=method)))
    _alone(make(methods[0]), texts[:2], config, "warm-up")   # the first forward's one-off costs
    runs, compared = [], {}
    for method in methods:
        together = _together(make(method), texts, config, f"{method}, one pass")
        alone = _alone(make(method), texts, config, f"{method}, one run per axis")
        runs += [together, alone]
        compared[method] = {"ratio": alone.seconds / together.seconds,
                            "labels_identical": together.labels == alone.labels,
                            "max_score_diff": _score_diff(together, alone)}
        if plain is not loaded:
            low = loaded.placement.dtype_name
            checked = _alone(make(method, loaded), texts, config, f"{method}, {low}, one run per axis")
            runs.append(checked)
            compared[method] |= {"checked_ratio": checked.seconds / together.seconds,
                                 "checked_labels_identical": checked.labels == together.labels}
    runs.append(_alone(make("direct"), texts, config, "direct, one run per axis"))
    for r in runs:
        log(f"  {r.name:<32} {r.seconds:8.1f} s  {r.items_per_s:6.2f} items/s")
    return {"n": len(texts), "axes": axes.names, "labels_per_axis": [len(a.names) for a in axes],
            "runs": {r.name: {"seconds": r.seconds, "items_per_s": r.items_per_s} for r in runs},
            "one_pass": compared, "labels_identical": all(c["labels_identical"] for c in compared.values())}


def float32_of(loaded: LoadedModel) -> LoadedModel:
    """The float32 model a checked placement loaded (its low copy apart); loaded itself where not checked."""
    return loaded if loaded.placement.checked is None else float32_view(loaded)


def _score_diff(one: AxesRun, other: AxesRun) -> float:
    return max(abs(a - b) for t, s in zip(one.scores, other.scores) for i in s for a, b in zip(t[i], s[i]))


def _alone(classifiers, texts, config, name) -> AxesRun:
    start, found = time.perf_counter(), []
    for c in classifiers:
        found.append({p.index: p for batch in c.run(texts, config) for p in batch.predictions})
    return _result(name, time.perf_counter() - start, len(texts), found)


def _together(classifiers, texts, config, name) -> AxesRun:
    start, found = time.perf_counter(), [{} for _ in classifiers]
    for batch in AxesPass(classifiers).run(texts, config):
        for axis, predictions in zip(found, batch.predictions):
            axis.update({p.index: p for p in predictions})
    return _result(name, time.perf_counter() - start, len(texts), found)


def _result(name, seconds, n, found) -> AxesRun:
    return AxesRun(name, seconds, n / seconds, [{i: p.label for i, p in f.items()} for f in found],
                   [{i: p.scores for i, p in f.items()} for f in found])


def axes_report(result: dict) -> str:
    head = f"{'run':<32} {'seconds':>8} {'items/s':>8}"
    lines = [f"{result['n']} tickets, axes {', '.join(result['axes'])} "
             f"({', '.join(map(str, result['labels_per_axis']))} labels)", head, "-" * len(head)]
    lines += [f"{name:<32} {r['seconds']:8.1f} {r['items_per_s']:8.2f}" for name, r in result["runs"].items()]
    for method, c in result["one_pass"].items():
        lines.append(f"{method}: one run per axis / one pass: {c['ratio']:.2f}x the time; labels identical on "
                     f"every axis: {'yes' if c['labels_identical'] else 'NO'}; largest score difference "
                     f"{c['max_score_diff']:.2g}")
        if "checked_ratio" in c:
            lines.append(f"{method}: checked, one run per axis / one pass in float32: {c['checked_ratio']:.2f}x the "
                         f"time; labels identical: {'yes' if c['checked_labels_identical'] else 'NO'}")
    return "\n".join(lines)

"""float32 against checked low precision once a person has taught, in one process: the helpdesk export
(subject and body, real length) with its five queues, a person's label on every tenth ticket (the file's
own queue column), answers learned from them as `classify --person-labels` learns them (run/taught.py).

Four runs, each end to end through its own results database (scoring, learning, and any row settled
in float32 after it): float32; checked low precision with no labels (the export bench's run, held to
float32's zero-shot labels and run time); checked low precision read zero-shot, learned from and settled
after; checked low precision read with what the labels teach. Every label must be float32's.

    triage-app bench --workload taught --model smollm2-135m --method direct --n 300
"""

from __future__ import annotations

import csv
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from triage_app.engine.checked import CheckedClassifier, CheckedStats, low_copy
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.engine.models import LoadedModel
from triage_app.bench.precision import export_texts
from triage_app.bench.workloads import HELPDESK_EXPORT
from triage_app.files.clean import TextCleaning
from triage_app.files.store import ResultStore
from triage_app.run.job import run_job
from triage_app.learn import TicketFeatures
from triage_app.files.embeddings import EmbeddingCache
from triage_app.run.embedded import file_embeddings
from triage_app.run.taught import settled, taught_part
from triage_app.paths import resource

QUEUES = resource("helpdesk_labels.json")
EVERY = 10   # a person's label on every tenth ticket: a tenth of a file reviewed


# each side: (name, checked, learns, reads taught); a side that learns is held to float32's learned
# labels and time, the one that does not (the export bench's run) to float32's zero-shot run
SIDES = (("float32", False, True, False), ("checked, no labels", True, False, False),
         ("checked, zero-shot read", True, True, False), ("checked, taught read", True, True, True))


def compare_taught(loaded: LoadedModel, n: int | None, method: str = "direct", config: RunConfig = RunConfig(),
                   log: Callable[[str], None] = print, encoder=None) -> dict:
    """loaded: a checked placement's model (its float32 weights answer the float32 run); encoder: the
    sentence encoder learning reads (run/embedded.py), as classify's --encoder; None: TF-IDF."""
    texts = export_texts(n)
    with open(HELPDESK_EXPORT, newline="", encoding="utf-8") as f:
        gold = [r["queue"] for r in csv.DictReader(f)][:len(texts)]
    labels = {r: gold[r] for r in range(0, len(texts), EVERY)}
    label_set, scoring = LabelSet.load(QUEUES), Scoring(method=method)
    if loaded.low is None:
        loaded.low = low_copy(loaded)
    make = lambda checked: (CheckedClassifier(loaded, label_set, scoring=scoring, log=log) if checked  # noqa: E731
                            else Classifier(loaded, label_set, scoring=scoring))
    for warm in (make(False), make(True).low):   # kernels, first allocations: paid before any clock starts
        list(Classifier.run(warm, texts[:1], config))
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        features, similarity = _features(texts, label_set, encoder, Path(folder) / "embeddings.db")
        for k, (name, checked, learns, taught) in enumerate(SIDES):
            with ResultStore(Path(folder) / f"{k}.db") as store:
                out[name] = _side(make(checked), store, texts, labels if learns else None, features, config, taught,
                                  log, similarity)
            log(f"  {name:<24} {out[name]['seconds']:7.1f} s  {out[name]['items_per_s']:6.2f} items/s")
    base = out["float32"]
    for name, _, learns, _ in SIDES[1:]:
        side = out[name]
        want, got = (base["learned"], side["learned"]) if learns else (base["zero_shot"], side["zero_shot"])
        side["labels_different"] = sum(a != b for a, b in zip(want, got))
        side["speedup"] = (base["seconds"] if learns else base["run_seconds"]) / side["seconds"]
    for side in out.values():
        side.pop("learned"), side.pop("zero_shot")
    return {"model": loaded.name, "method": method, "n": len(texts), "labels": len(label_set.names),
            "taught": len(labels), "encoder": encoder.name if encoder else "TF-IDF", "load": os.getloadavg(),
            "sides": out}


def _features(texts: list[str], label_set: LabelSet, encoder, path: Path):
    """What every side learns on, made once before any clock starts: classify's (run/embedded.py)."""
    if encoder is None:
        return TicketFeatures(texts), None
    with EmbeddingCache(path) as cache:
        found = file_embeddings(texts, TextCleaning(), encoder, cache, {"queue": label_set})
    return found.features, found.similarity["queue"]


def _side(classifier, store, texts, labels, features, config, read_taught, log, similarity=None) -> dict:
    """One side end to end; labels None: the run alone, nothing learned."""
    start = time.perf_counter()
    weighed = taught_part(classifier, store, texts, config, TextCleaning(), features, labels, log,
                          similarity) if read_taught else None
    predictions, stats = [], None
    for step in run_job(classifier, store, texts, config, weighed=weighed):
        predictions, stats = predictions + step.predictions, step.stats
    run_seconds, asked, learned = time.perf_counter() - start, [], None
    zero_shot = [p.label for p in sorted(predictions, key=lambda p: p.index)]

    def settle(rows):
        asked.extend(rows)
        return [p for step in run_job(classifier, store, texts, config, exact=rows) for p in step.predictions]

    if labels is not None:
        learned = settled(features, predictions, classifier.label_set.names, labels, settle, log,
                          similarity)[1].label_names()
    seconds = time.perf_counter() - start
    checked = isinstance(stats, CheckedStats)
    return {"seconds": seconds, "run_seconds": run_seconds, "items_per_s": len(texts) / seconds,
            "zero_shot": zero_shot, "learned": learned, "rescored_in_run": stats.rescored if checked else 0,
            "kept": stats.accepted if checked else 0, "probes": stats.probes if checked else 0,
            "settled": len(asked), "stats": stats.to_dict() if checked else None}


def report(result: dict) -> str:
    lines = [f"{result['model']}, {result['method']} scoring, {result['n']} helpdesk tickets, {result['labels']} "
             f"queues, {result['taught']} labelled by a person, learned on {result.get('encoder', 'TF-IDF')}; load {' '.join(f'{x:.1f}' for x in result['load'])}",
             f"{'':<26} {'seconds':>8} {'items/s':>8} {'speedup':>8} {'kept':>6} {'re-scored':>10} {'settled':>8} "
             f"{'labels different':>17}"]
    for name, side in result["sides"].items():
        lines.append(f"{name:<26} {side['seconds']:8.1f} {side['items_per_s']:8.2f} "
                     f"{side.get('speedup', 1.0):8.2f} {side['kept']:6d} {side['rescored_in_run']:10d} "
                     f"{side['settled']:8d} {side.get('labels_different', 0):17d}")
    return "\n".join(lines)

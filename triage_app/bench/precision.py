"""float32 against checked low precision (engine/checked.py) on the export workload, in one process.

The export workload: resources/helpdesk_export.csv as a helpdesk exports it, each ticket its subject and
its body (real length, quoted replies and signatures kept; the export's escaped line breaks read as line
breaks), against ten labels, some of them close in meaning (Returns / Refunds, Payments / Invoices), as
a real label set has them.

    python -m triage_app.bench.precision --model smollm2-135m --method channel --n 40
"""

from __future__ import annotations

import csv
import os
import time
from dataclasses import dataclass
from pathlib import Path

from triage_app.engine.checked import Check, CheckedClassifier, CheckedStats, low_copy
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import Label, LabelSet
from triage_app.engine.models import LoadedModel
from triage_app.bench.workloads import HELPDESK_EXPORT

EXPORT_LABELS = LabelSet((
    Label("Shipping", "where an order is, delivery delays, tracking, carriers, parcels lost in transit"),
    Label("Returns", "sending items back, exchanges, return labels"),
    Label("Refunds", "money back for a returned or cancelled order"),
    Label("Payments", "card declined, double charges, payment methods"),
    Label("Invoices", "invoices, receipts, VAT, billing addresses"),
    Label("Discounts", "discount codes, promo codes, gift cards, price matching"),
    Label("Product", "product features, sizes, compatibility, stock"),
    Label("Warranty", "faulty or damaged items, repairs, the quality guarantee"),
    Label("Website", "errors on the website or app, checkout page problems"),
    Label("Account", "signing in to the shop account, password reset emails, profile details"),
))


def export_texts(n: int | None = None, path: Path = HELPDESK_EXPORT) -> list[str]:
    """The first n tickets: subject, then body (the export writes line breaks as \\n)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[:n]
    return [f"{r['subject']}\n{r['body']}".replace("\\n", "\n").strip() for r in rows]


@dataclass(slots=True)
class Side:
    seconds: float
    items_per_s: float
    labels: list[str]

    @property
    def minutes_per_10k(self) -> float:
        return 10_000 / self.items_per_s / 60


def timed(classifier: Classifier, texts: list[str], config: RunConfig) -> tuple[Side, object]:
    start, answers, stats = time.perf_counter(), {}, None
    for batch in classifier.run(texts, config):
        answers.update({p.index: p.label for p in batch.predictions})
        stats = batch.stats
    seconds = time.perf_counter() - start
    return Side(seconds, len(texts) / seconds, [answers[i] for i in range(len(texts))]), stats


def compare_precisions(loaded: LoadedModel, texts: list[str], method: str, config: RunConfig = RunConfig(),
                       check: Check = Check(), log=print) -> dict:
    """float32, then checked low precision, on the same tickets; loaded: a checked placement's model."""
    scoring = Scoring(method=method)
    if loaded.low is None:
        loaded.low = low_copy(loaded)
    plain = Classifier(loaded, EXPORT_LABELS, scoring=scoring)
    checked = CheckedClassifier(loaded, EXPORT_LABELS, scoring=scoring, check=check, log=log)
    for warm in (plain, checked.low):   # kernels, first allocations: paid before either clock starts
        list(Classifier.run(warm, texts[:1], config))
    base, _ = timed(plain, texts, config)
    log(f"  float32            {base.seconds:7.1f} s  {base.items_per_s:6.2f} items/s")
    fast, stats = timed(checked, texts, config)
    assert isinstance(stats, CheckedStats)
    log(f"  {checked.low_name + '-checked':<18} {fast.seconds:7.1f} s  {fast.items_per_s:6.2f} items/s")
    return {"model": loaded.name, "method": method, "n": len(texts), "labels": len(EXPORT_LABELS.names),
            "load": os.getloadavg(), "float32": _side(base), "checked": _side(fast), "speedup": base.seconds / fast.seconds,
            "labels_different": sum(a != b for a, b in zip(base.labels, fast.labels)), "stats": stats.to_dict()}


def _side(side: Side) -> dict:
    return {"seconds": side.seconds, "items_per_s": side.items_per_s, "minutes_per_10k": side.minutes_per_10k}


def report(result: dict) -> str:
    s = result["stats"]
    lines = [f"{result['model']}, {result['method']} scoring, {result['n']} tickets, {result['labels']} labels, "
             f"load {' '.join(f'{x:.1f}' for x in result['load'])}",
             f"{'':<20} {'seconds':>8} {'items/s':>8} {'min/10k':>8}"]
    for name in ("float32", "checked"):
        r = result[name]
        label = name if name == "float32" else s["dtype"]
        lines.append(f"{label:<20} {r['seconds']:8.1f} {r['items_per_s']:8.2f} {r['minutes_per_10k']:8.1f}")
    lines += [f"speedup x{result['speedup']:.2f}; probes {s['probes']}, kept in low precision {s['accepted']}, "
              f"re-scored {s['rescored']} (share {100 * s['rescored_share']:.0f}%); drift bounds "
              f"{', '.join(f'{b:.2f}' for b in s['drift'])}; labels different from float32: {result['labels_different']}",
              f"decision: {s['check']}"]
    return "\n".join(lines)

"""Accuracy, per-label precision/recall, confusion, calibration. Plain Python: no torch, no Qt."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from triage_app.engine.labels import folded


@dataclass(slots=True)
class LabelMetrics:
    precision: float | None   # None: the model never gave this label
    recall: float | None      # None: no gold row has this label
    f1: float
    support: int              # gold rows with this label


@dataclass(slots=True)
class Report:
    labels: list[str]
    n: int                              # rows with a gold value and a model answer
    correct: int
    macro_f1: float
    per_label: dict[str, LabelMetrics]
    gold_values: list[str]              # rows of the confusion matrix: the labels, then any other gold values
    confusion: list[list[int]]          # rows: gold_values, columns: labels
    ece: float | None = None            # expected calibration error of the confidences
    reliability: list[dict] = field(default_factory=list)
    majority_baseline: float = 0.0      # accuracy of always answering the commonest gold value
    gates: list[dict] = field(default_factory=list)   # per threshold: the share applied and its accuracy

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None

    def to_dict(self) -> dict:
        return dict(asdict(self), accuracy=self.accuracy)

    @classmethod
    def from_dict(cls, data: dict) -> Report:
        fields = {k: v for k, v in data.items() if k != "accuracy"}
        return cls(**dict(fields, per_label={k: LabelMetrics(**m) for k, m in data["per_label"].items()}))

    def table(self) -> str:
        width = max(len(value) for value in self.gold_values) + 2
        averaged = len(averaged_over(self.per_label))
        lines = [f"accuracy {_pct(self.accuracy)} (majority baseline {_pct(self.majority_baseline)}), "
                 f"macro-F1 {self.macro_f1:.3f} (over {averaged} labels with gold rows or answers)"
                 + (f", ECE {self.ece:.3f}" if self.ece is not None else "")
                 + f", n={self.n}",
                 f"{'label':<{width}} {'precision':>9} {'recall':>7} {'F1':>6} {'n':>5}"]
        for label, m in self.per_label.items():
            lines.append(f"{label:<{width}} {_num(m.precision):>9} {_num(m.recall):>7} {m.f1:6.3f} {m.support:5d}")
        lines.append("confusion (rows gold, columns predicted): " + " | ".join(self.labels))
        for value, row in zip(self.gold_values, self.confusion):
            lines.append(f"{value:<{width}} " + " ".join(f"{c:5d}" for c in row))
        return "\n".join(lines)


def as_labels(gold: list, labels: list[str]) -> list[str]:
    """Each gold value as the label it names, matched as labels are told apart (engine/labels.folded: case
    and the two spellings of an accent aside) and ignoring surrounding spaces; a value that is no label stays
    itself, stripped ("" for a blank one)."""
    canon = {folded(name): name for name in labels}
    return [canon.get(folded(str(g).strip()), str(g).strip()) for g in gold]


def evaluate(gold: list[str], predicted: list[str | None], labels: list[str],
             confidence: list[float | None] | None = None, bins: int = 10) -> Report:
    """Compare a model's labels with gold ones.

    Gold values match labels ignoring case and surrounding spaces; rows with a blank gold value
    or no model answer do not count; a gold value that is no label counts as wrong and gets its
    own row in the confusion matrix.
    """
    rows = [(g, p, c) for g, p, c in zip(as_labels(gold, labels), predicted, confidence or [None] * len(gold))
            if p is not None and g]
    gold_values = labels + sorted({g for g, _, _ in rows} - set(labels))
    row_of = {g: k for k, g in enumerate(gold_values)}
    col_of = {name: k for k, name in enumerate(labels)}
    confusion = [[0] * len(labels) for _ in gold_values]
    for g, p, _ in rows:
        confusion[row_of[g]][col_of[p]] += 1
    per_label = {name: _label_metrics(confusion, k) for k, name in enumerate(labels)}
    present = [per_label[name].f1 for name in averaged_over(per_label)]
    supports = [sum(row) for row in confusion]
    report = Report(labels, len(rows), sum(g == p for g, p, _ in rows),
                    sum(present) / len(present) if present else 0.0, per_label, gold_values,
                    confusion, majority_baseline=max(supports) / len(rows) if rows else 0.0)
    if confidence is not None and rows:
        report.reliability = reliability([c for _, _, c in rows], [g == p for g, p, _ in rows], bins)
        report.ece = sum(b["n"] * abs(b["accuracy"] - b["confidence"]) for b in report.reliability) / len(rows)
        report.gates = gates([c for _, _, c in rows], [g == p for g, p, _ in rows])
    return report


def averaged_over(per_label: dict[str, LabelMetrics]) -> list[str]:
    """The labels macro-F1 averages over: those with gold rows or answers. A label the model gave that no gold
    row has scores F1 0 (every one of those answers is wrong), as scikit-learn's macro average counts it; a
    label neither has is out. A gold value that names no label is no label: it is out of the average, counted
    wrong in the accuracy and in the precision of the label the model gave it."""
    return [name for name, m in per_label.items() if m.support or m.precision is not None]


GATES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)


def gates(confidence: list[float], correct: list[bool], thresholds=GATES) -> list[dict]:
    """A confidence gate: answers at or above the threshold are applied, the rest go to a person.
    Per threshold, the share of answers applied and how often those were right (None: none applied),
    so that a lead picks the threshold with numbers."""
    out = []
    for t in thresholds:
        applied = [ok for c, ok in zip(confidence, correct) if c >= t]
        out.append({"threshold": t, "applied": len(applied) / len(confidence) if confidence else 0.0,
                    "n": len(applied), "accuracy": sum(applied) / len(applied) if applied else None})
    return out


def _label_metrics(confusion: list[list[int]], k: int) -> LabelMetrics:
    right = confusion[k][k]
    answered = sum(row[k] for row in confusion)
    support = sum(confusion[k])
    precision = right / answered if answered else None
    recall = right / support if support else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0
    return LabelMetrics(precision, recall, f1, support)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def reliability(confidence: list[float], correct: list[bool], bins: int = 10) -> list[dict]:
    """Equal-width confidence bins: how often the label was right at each confidence."""
    grouped: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for c, ok in zip(confidence, correct):
        grouped[min(int(c * bins), bins - 1)].append((c, ok))
    return [{"low": k / bins, "high": (k + 1) / bins, "n": len(g),
             "confidence": sum(c for c, _ in g) / len(g), "accuracy": sum(ok for _, ok in g) / len(g)}
            for k, g in enumerate(grouped) if g]


def reliability_plot(bins: list[dict], width: int = 40) -> str:
    """The reliability diagram as text: a bar per bin, '|' where perfect calibration would be."""
    lines = [f"{'confidence':>11} {'n':>5}  accuracy"]
    for b in bins:
        bar = ["#"] * round(b["accuracy"] * width) + [" "] * (width - round(b["accuracy"] * width))
        mark = min(round(b["confidence"] * width), width - 1)
        bar[mark] = "|"
        lines.append(f"{b['low']:.1f}-{b['high']:.1f} {b['n']:5d}  {''.join(bar)} {100 * b['accuracy']:5.1f}%")
    return "\n".join(lines)


TEMPERATURES = (0.05, 20.0)     # the range fit_temperature searches
TEMPERATURE_ROWS = 20           # fewer gold rows than this fit their own noise: eval recommends no temperature


def fit_temperature(log_probs: list[list[float]], gold: list[int]) -> float:
    """The temperature T minimising the negative log-likelihood of softmax(log_probs / T)."""
    def nll(t: float) -> float:
        total = 0.0
        for row, g in zip(log_probs, gold):
            scaled = [s / t for s in row]
            top = max(scaled)
            total -= scaled[g] - top - math.log(sum(math.exp(s - top) for s in scaled))
        return total

    # golden-section search on log T: NLL is unimodal in T for a fixed ranking
    lo, hi = (math.log(t) for t in TEMPERATURES)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = nll(math.exp(a)), nll(math.exp(b))
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = nll(math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = nll(math.exp(b))
    return math.exp((lo + hi) / 2)

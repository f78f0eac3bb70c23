"""Accuracy, per-label precision/recall, confusion, calibration. Plain Python: no torch, no Qt."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field


@dataclass(slots=True)
class LabelMetrics:
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(slots=True)
class Report:
    labels: list[str]
    n: int
    accuracy: float
    macro_f1: float
    per_label: dict[str, LabelMetrics]
    confusion: list[list[int]]          # rows: gold, columns: predicted (order of labels)
    ece: float | None = None            # expected calibration error of the confidences
    reliability: list[dict] = field(default_factory=list)
    majority_baseline: float = 0.0      # accuracy of always answering the commonest gold label

    def to_dict(self) -> dict:
        return asdict(self)

    def table(self) -> str:
        width = max(len(label) for label in self.labels) + 2
        lines = [f"accuracy {100 * self.accuracy:.1f}% (majority baseline {100 * self.majority_baseline:.1f}%), "
                 f"macro-F1 {self.macro_f1:.3f}" + (f", ECE {self.ece:.3f}" if self.ece is not None else "")
                 + f", n={self.n}",
                 f"{'label':<{width}} {'precision':>9} {'recall':>7} {'F1':>6} {'n':>5}"]
        for label, m in self.per_label.items():
            lines.append(f"{label:<{width}} {m.precision:9.3f} {m.recall:7.3f} {m.f1:6.3f} {m.support:5d}")
        lines.append("confusion (rows gold, columns predicted): " + " | ".join(self.labels))
        for label, row in zip(self.labels, self.confusion):
            lines.append(f"{label:<{width}} " + " ".join(f"{c:5d}" for c in row))
        return "\n".join(lines)


def evaluate(gold: list[str], predicted: list[str], labels: list[str],
             confidence: list[float] | None = None, bins: int = 10) -> Report:
    """Compare predicted labels with gold ones (rows whose gold is not one of labels are skipped)."""
    pairs = [(g, p, c) for g, p, c in zip(gold, predicted, confidence or [None] * len(gold)) if g in labels]
    if not pairs:
        raise ValueError(f"no gold label is one of {labels}")
    index = {label: k for k, label in enumerate(labels)}
    confusion = [[0] * len(labels) for _ in labels]
    for g, p, _ in pairs:
        if p in index:
            confusion[index[g]][index[p]] += 1
    n = len(pairs)
    per_label = {}
    for label, k in index.items():
        tp = confusion[k][k]
        predicted_k = sum(row[k] for row in confusion)
        support = sum(confusion[k])
        precision = tp / predicted_k if predicted_k else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[label] = LabelMetrics(precision, recall, f1, support)
    present = [m for m in per_label.values() if m.support]
    report = Report(labels, n, sum(confusion[k][k] for k in range(len(labels))) / n,
                    sum(m.f1 for m in present) / len(present), per_label, confusion,
                    majority_baseline=max(m.support for m in per_label.values()) / n)
    if confidence is not None:
        report.reliability = reliability([c for _, _, c in pairs], [g == p for g, p, _ in pairs], bins)
        report.ece = sum(b["n"] * abs(b["accuracy"] - b["confidence"]) for b in report.reliability) / n
    return report


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
    lo, hi = math.log(0.05), math.log(20.0)
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

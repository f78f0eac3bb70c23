"""The learning curve: accuracy after k labels per label, zero-shot, learned alone and combined.

Each label's rows are split once (seeded) into a training pool and test rows; every k and every
draw is scored on the same test rows. A draw is a seeded order of each label's pool and k takes
its first k rows, so a draw's k = 10 labels include its k = 5 ones, as a person's would.

Drawn as SVG (`curves_svg`) for `triage-app eval --plot` and the docs' figure alike, from the
dicts `Curve.to_dict` makes, one panel per ticket set; the PNG is Qt's, drawn outside quality/.

It lives on the side that measures: learn/ teaches, quality/ judges it, and learn never imports quality.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from html import escape

import numpy as np

from triage_app.learn.features import TicketFeatures
from triage_app.learn.model import LearnConfig, TextModel, learn
from triage_app.learn.similarity import LabelSimilarity
from triage_app.quality.metrics import evaluate

KS = (0, 2, 5, 10, 20)
FEW_TESTED = 10     # test tickets of a label under which its accuracy moves by 10 points a ticket
PARTS = ("zero_shot", "learned", "combined")
# with sentence embeddings, the learned part on each kind of features side by side ("learned": embeddings)
SIDE_BY_SIDE = ("zero_shot", "tfidf", "learned", "both", "combined")
COLORS = {"zero_shot": "#9aa0a6", "tfidf": "#a142f4", "learned": "#f29900", "both": "#12b5cb",
          "combined": "#1a73e8"}
TITLES = {"zero_shot": "zero-shot (language model)", "learned": "learned only (TF-IDF + LR)",
          "combined": "combined (weights by cross-validation)"}
EMBEDDING_TITLES = {"zero_shot": "zero-shot (language model + similarity)", "tfidf": "learned only, TF-IDF + LR",
                    "learned": "learned only, embeddings + LR", "both": "learned only, TF-IDF and embeddings + LR",
                    "combined": "combined (weights by cross-validation)"}
# one panel: its width and height, the plot's offset in it, the plot's width and height
W, H, LEFT, TOP, PW, PH = 330, 300, 50, 40, 250, 200
# the legend: a row's height, and the widest a character of its 12 px sans-serif takes on average
LEGEND_ROW, CHAR_W = 20, 7


@dataclass(slots=True)
class Point:
    """One k: each part's accuracy and macro-F1 per draw (None: the part has no answer at this k)."""

    k: int
    accuracy: dict[str, list[float | None]]
    macro_f1: dict[str, list[float | None]]

    def mean(self, part: str, metric: str = "accuracy") -> float | None:
        values = getattr(self, metric)[part]
        return None if any(v is None for v in values) else float(np.mean(values))

    def std(self, part: str, metric: str = "accuracy") -> float | None:
        values = getattr(self, metric)[part]
        return None if any(v is None for v in values) else float(np.std(values))


@dataclass(slots=True)
class Curve:
    names: list[str]
    test_rows: list[int]
    draws: int
    points: list[Point] = field(default_factory=list)
    parts: tuple[str, ...] = PARTS
    encoder: str | None = None          # the sentence encoder's name, where the curve used one

    def targets(self) -> dict[str, bool]:
        """The issue's targets: combined >= the better of the other two at every k >= 2; +5 points at k = 5.
        A k where a part has no answer (learned alone, taught fewer than two labels) is not judged."""
        out = {}
        for p in self.points:
            zero, learned, combined = p.mean("zero_shot"), p.mean("learned"), p.mean("combined")
            if None in (zero, learned, combined):
                continue
            if p.k >= 2:
                out[f"k={p.k}: combined >= max(zero-shot, learned)"] = combined >= max(zero, learned)
            if p.k == 5:
                out["k=5: combined >= zero-shot + 5 points"] = combined >= zero + 0.05
        return out

    def to_dict(self) -> dict:
        return {"names": self.names, "n_test": len(self.test_rows), "test_rows": self.test_rows, "draws": self.draws,
                "parts": list(self.parts), "encoder": self.encoder,
                "points": [{"k": p.k, "accuracy": p.accuracy, "macro_f1": p.macro_f1,
                            "mean": {part: {"accuracy": p.mean(part), "accuracy_std": p.std(part),
                                            "macro_f1": p.mean(part, "macro_f1")} for part in self.parts}}
                           for p in self.points],
                "targets": self.targets()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def table(self) -> str:
        """Markdown: accuracy mean ± std over the draws (macro-F1), per k."""
        titles = EMBEDDING_TITLES if self.encoder else TITLES
        lines = ["| k per label | " + " | ".join(titles[part] for part in self.parts) + " |",
                 "|---" * (len(self.parts) + 1) + "|"]
        for p in self.points:
            cells = []
            for part in self.parts:
                acc = p.mean(part)
                cells.append("–" if acc is None else
                             f"{100 * acc:.1f}% ± {100 * p.std(part):.1f} (F1 {p.mean(part, 'macro_f1'):.3f})")
            lines.append(f"| {p.k} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def split(gold: list[str], names: list[str], max_k: int, test_share: float, seed: int
          ) -> tuple[dict[int, np.ndarray], np.ndarray]:
    """Each label's training pool (label index -> rows, seeded order) and the test rows (ascending).

    A label's pool holds max_k rows, or (1 - test_share) of its rows if that is more; at least
    one row of every label stays for testing.
    """
    rng = np.random.default_rng(seed)
    pools, test = {}, []
    for k, name in enumerate(names):
        rows = rng.permutation(np.array([r for r, g in enumerate(gold) if g == name], dtype=np.int64))
        size = min(len(rows) - 1, max(max_k, int(round(len(rows) * (1 - test_share)))))
        pools[k], test = rows[:max(size, 0)], test + rows[max(size, 0):].tolist()
    return pools, np.array(sorted(test), dtype=np.int64)


def drawn(pools: dict[int, np.ndarray], names: list[str], k: int, seed: int, draw: int) -> dict[int, str]:
    """The labels a draw teaches at k: row -> label name, the first k of each label's pool in the draw's
    seeded order, so a draw's k = 10 labels include its k = 5 ones."""
    order = {label: np.random.default_rng([seed, draw, label]).permutation(rows) for label, rows in pools.items()}
    return {int(r): names[label] for label, rows in order.items() for r in rows[:k]}


def learning_curve(texts: list[str], gold: list[str], lm_scores: np.ndarray, names: list[str],
                   ks: tuple[int, ...] = KS, draws: int = 5, test_share: float = 0.5, seed: int = 0,
                   config: LearnConfig = LearnConfig(), log=None, embeddings: np.ndarray | None = None,
                   similarity: LabelSimilarity | np.ndarray | None = None, encoder: str | None = None) -> Curve:
    """lm_scores: [N, L] the language model's log-probabilities; rows whose gold is no label are left out.
    embeddings: [N, D] sentence embeddings the learned part learns from instead of TF-IDF; with them the
    curve also learns on TF-IDF alone and on both side by side, the encoder named. similarity: the
    encoder's part as learn() takes it, a third part combined (zero-shot included): a LabelSimilarity, as
    the product builds it (run/embedded.py), lets learn() take the labels' prototypes where
    cross-validation says so, as it does in a run; [N, L] scores alone never do."""
    features = TicketFeatures(texts, embeddings)
    others = {} if embeddings is None else {"tfidf": TicketFeatures(texts), "both": TicketFeatures.both(texts, embeddings)}
    z = np.asarray(lm_scores, dtype=np.float64)
    ks = _teachable(ks, gold, names, log)
    pools, test = split(gold, names, max(ks, default=0), test_share, seed)
    truth = [gold[r] for r in test]
    tested = Counter(truth)
    few = {name: tested[name] for name in names if 0 < tested[name] < FEW_TESTED}
    if few and log:
        log(f"note: few tickets to test on ({', '.join(f'{name} {n}' for name, n in few.items())}): "
            f"one ticket moves a label's accuracy by {100 / min(few.values()):.0f} points")
    parts = PARTS if embeddings is None else SIDE_BY_SIDE
    curve = Curve(list(names), test.tolist(), draws, parts=parts, encoder=encoder if embeddings is not None else None)
    zero = _scores(truth, learn(features, z, {}, names, config, similarity=similarity).labels[test], names)
    for k in ks:
        point = Point(k, {part: [] for part in parts}, {part: [] for part in parts})
        for d in range(draws):
            taught = drawn(pools, names, k, seed, d)
            learned = learn(features, z, taught, names, config, similarity=similarity)
            results = {"zero_shot": zero, "learned": _scores(truth, _alone(learned.text_model, features, test), names),
                       "combined": _scores(truth, learned.labels[test], names)}
            for part, other in others.items():
                model = TextModel.fit(other.rows(learned.teaching.rows), learned.teaching.targets, len(names), config) \
                    if learned.teaching.n else None
                results[part] = _scores(truth, _alone(model, other, test), names)
            for part, (acc, f1) in results.items():
                point.accuracy[part].append(acc)
                point.macro_f1[part].append(f1)
        curve.points.append(point)
        if log:
            log(f"k={k}: " + ", ".join(f"{part} {_fmt(point.mean(part))}" for part in parts))
    return curve


def _teachable(ks, gold: list[str], names: list[str], log) -> tuple[int, ...]:
    """The ks every label can teach (a label of n tickets teaches up to n - 1, one held out to test): a k that
    a label has fewer for would teach it fewer and still be called k, so it is left out, said with the labels
    short of it. A label of fewer than 2 tickets is never taught (said), and does not shorten the curve; with
    fewer than two labels to teach, nothing learns (learning tells labels apart), so only k = 0 is kept."""
    every = Counter(gold)
    counts = {name: every[name] for name in names}
    if log and (rare := [name for name, n in counts.items() if n < 2]):
        log(f"note: {', '.join(f'{name} ({counts[name]})' for name in rare)}: too few tickets to teach and test, "
            f"never taught in the curve")
    teachable = [name for name, n in counts.items() if n >= 2]
    if len(teachable) < 2:
        if log and (short := [k for k in ks if k > 0]):
            log(f"k={', '.join(map(str, short))} left out: "
                f"{'only ' + teachable[0] if teachable else 'no label'} has 2 tickets or more to teach and test, "
                f"and learning needs two labels")
        return tuple(k for k in ks if k == 0)
    most = min(counts[name] - 1 for name in teachable)
    if log and (short := [k for k in ks if k > most]):
        log(f"k={', '.join(map(str, short))} left out: "
            + ", ".join(f"{name} has {n - 1} to teach from" for name, n in counts.items() if 2 <= n <= max(short)))
    return tuple(k for k in ks if k <= most)


def _alone(model: TextModel | None, features: TicketFeatures, rows: np.ndarray) -> np.ndarray | None:
    """[R] the learned part's own answers, no language model; None: it has not learned (k < 2 labels)."""
    return None if model is None else np.argmax(model.log_probs(features.rows(rows)), axis=1)


def _scores(truth: list[str], predicted: np.ndarray | None, names: list[str]) -> tuple[float | None, float | None]:
    if predicted is None:
        return None, None
    report = evaluate(truth, [names[k] for k in predicted], names)
    return report.accuracy, report.macro_f1


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


# drawing ------------------------------------------------------------------------------------

def curves_svg(results: list[dict]) -> str:
    """An SVG with one panel per result (a Curve.to_dict() plus its "set" name), side by side."""
    width = max(W * len(results) + 20, 800)
    body = [e for i, r in enumerate(results) for e in _panel(r, 10 + W * i)]
    shown = [part for part in COLORS if any(part in r.get("parts", PARTS) for r in results)]
    titles = EMBEDDING_TITLES if any(r.get("encoder") for r in results) else TITLES
    legend, rows = _legend([titles[part] for part in shown], [COLORS[part] for part in shown], width)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{H + 20 + LEGEND_ROW * rows}" '
            f'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>'
            + "".join(body + legend) + "</svg>\n")


def _legend(titles: list[str], colors: list[str], width: int) -> tuple[list[str], int]:
    """The legend's entries, as many to a row as fit the width whole, and how many rows they take: the five
    titles with embeddings are too long for one row of four panels."""
    column = 30 + CHAR_W * max(len(title) for title in titles)
    per_row = max(1, (width - 60) // column)
    out = []
    for j, (title, color) in enumerate(zip(titles, colors)):
        x, y = 60 + column * (j % per_row), H + 12 + LEGEND_ROW * (j // per_row)
        out += [f'<rect x="{x}" y="{y}" width="14" height="4" fill="{color}"/>',
                f'<text x="{x + 20}" y="{y + 6}">{escape(title)}</text>']
    return out, -(-len(titles) // per_row)


def _panel(result: dict, left: int) -> list[str]:
    ks = [p["k"] for p in result["points"]]
    # a curve of one k (k = 0 alone: too few labels to teach) is one point, in the middle
    x = lambda i: left + LEFT + (PW * i / (len(ks) - 1) if len(ks) > 1 else PW / 2)
    y = lambda v: TOP + PH * (1 - v)
    out = [f'<text x="{left + LEFT}" y="{TOP - 22}" font-weight="bold">{escape(result["set"])}: '
           f'{len(result["names"])} labels, {result["n_test"]} test tickets</text>']
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        out += [f'<line x1="{left + LEFT}" x2="{left + LEFT + PW}" y1="{y(v)}" y2="{y(v)}" stroke="#e0e0e0"/>',
                f'<text x="{left + LEFT - 6}" y="{y(v) + 4}" text-anchor="end">{100 * v:.0f}%</text>']
    for i, k in enumerate(ks):
        out.append(f'<text x="{x(i):.1f}" y="{TOP + PH + 18}" text-anchor="middle">{k}</text>')
    out.append(f'<text x="{left + LEFT + PW / 2}" y="{TOP + PH + 36}" text-anchor="middle">labels per label (k)</text>')
    for part in result.get("parts", PARTS):
        color = COLORS[part]
        points = [(x(i), y(p["mean"][part]["accuracy"])) for i, p in enumerate(result["points"])
                  if p["mean"][part]["accuracy"] is not None]
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2.5" points="'
                   + " ".join(f"{a:.1f},{b:.1f}" for a, b in points) + '"/>')
        out += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3.5" fill="{color}"/>' for a, b in points]
    return out

"""Issue 22, item 2: channel has no bound to prune with, so measure a two-stage method instead: a cheap
first stage (direct or direct-fields) keeps each ticket's top k labels, and channel decides among those
k only. A method of its own with its own accuracy, never an optimization of channel: its answer is
channel's only where channel's own top label is among the k.

Accuracy needs no two-stage engine: with every label's channel score and every label's first-stage
score for the same tickets, the two-stage answer is channel's argmax over the first stage's top k.
Channel's cost grows with the labels it scores per ticket, so the two-stage cost is the first stage's
time plus k/L of channel's (an estimate from the measured times, printed as such).

Sets: banking10 and helpdesk (channel scores cached by lm_scores.py in docs/learning/scores) and
banking77 (all 77 intents, PER_INTENT messages each, channel scored here).

Usage: OMP_WAIT_POLICY=PASSIVE nice -n 10 .venv/bin/python scripts/experiments/two_stage.py [--per-intent N]
Result: docs/quality/two_stage.txt / .json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from triage_app.engine import device, models  # noqa: E402
from triage_app.engine.classifier import Classifier  # noqa: E402
from triage_app.engine.config import RunConfig, Scoring  # noqa: E402
from triage_app.engine.labels import LabelSet  # noqa: E402
from triage_app.bench.workloads import banking77  # noqa: E402
from triage_app.quality.evaluate import score  # noqa: E402

CACHED = ROOT / "docs" / "learning" / "scores"
OUT = ROOT / "docs" / "quality" / "two_stage"
STAGES = ("direct", "direct-fields")
KS = (1, 2, 3, 5)


def scores(loaded, names: list[str], texts: list[str], method: str) -> tuple[np.ndarray, float]:
    scoring = Scoring(method=method)
    scored = score(Classifier(loaded, LabelSet.from_names(names), scoring=scoring), texts, RunConfig())
    return scored.scores(scoring).double().numpy(), scored.seconds


def two_stage(channel: np.ndarray, first: np.ndarray, k: int) -> np.ndarray:
    """[N] channel's argmax over each ticket's top k of the first stage."""
    top = np.argsort(-first, axis=1)[:, :k]                                   # [N, k]
    return top[np.arange(len(top)), np.take_along_axis(channel, top, axis=1).argmax(axis=1)]


def measure(name: str, texts, gold, names, channel: np.ndarray, channel_seconds: float | None, loaded, log) -> dict:
    gold_idx = np.array([names.index(g) for g in gold])
    acc = lambda pred: float((pred == gold_idx).mean())                      # noqa: E731
    out = {"set": name, "n": len(texts), "labels": len(names), "channel": acc(channel.argmax(1)),
           "channel_seconds": channel_seconds, "stages": {}}
    for method in STAGES:
        first, seconds = scores(loaded, names, texts, method)
        log(f"{name}: {method} {seconds:.0f} s, accuracy {acc(first.argmax(1)):.3f}")
        rows = {}
        for k in KS:
            if k >= len(names):
                continue
            pred = two_stage(channel, first, k)
            top = np.argsort(-first, axis=1)[:, :k]
            rows[k] = {"accuracy": acc(pred), "same_as_channel": float((pred == channel.argmax(1)).mean()),
                       "gold_in_top_k": float((top == gold_idx[:, None]).any(axis=1).mean()),
                       "channel_share": k / len(names)}
        out["stages"][method] = {"accuracy": acc(first.argmax(1)), "seconds": seconds, "k": rows}
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--per-intent", type=int, default=3)
    args = p.parse_args()
    log = lambda line: print(line, file=sys.stderr, flush=True)   # noqa: E731
    loaded = models.load(models.SMOLLM2, device.choose("cpu", "float32"))
    started, results = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), []
    for name in ("banking10", "helpdesk"):
        d = np.load(CACHED / f"{name}.npz", allow_pickle=True)
        results.append(measure(name, [str(t) for t in d["texts"]], [str(g) for g in d["gold"]],
                               [str(n) for n in d["names"]], d["scores"], float(d["seconds"]), loaded, log))
    rows = banking77(args.per_intent)
    names = sorted({r["category"].replace("_", " ") for r in rows})   # plain names, as many_labels gives them
    texts, gold = [r["text"] for r in rows], [r["category"].replace("_", " ") for r in rows]
    channel, seconds = scores(loaded, names, texts, "channel")
    log(f"banking77: channel {seconds:.0f} s for {len(texts)} messages x {len(names)} labels")
    results.append(measure("banking77", texts, gold, names, channel, seconds, loaded, log))
    lines = [f"Two-stage (first stage's top k, then channel among them) against channel on every label; "
             f"{loaded.name}, float32, CPU; started {started}, load {os.getloadavg()[0]:.1f} at the end", ""]
    for r in results:
        lines.append(f"## {r['set']}: n={r['n']}, {r['labels']} labels; channel alone {100 * r['channel']:.1f}%"
                     + (f" in {r['channel_seconds']:.0f} s" if r["channel_seconds"] else ""))
        lines.append("| first stage | alone | k | two-stage accuracy | same as channel | gold in top k | channel work |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for method, s in r["stages"].items():
            for k, row in s["k"].items():
                lines.append(f"| {method} ({s['seconds']:.0f} s) | {100 * s['accuracy']:.1f}% | {k} | "
                             f"{100 * row['accuracy']:.1f}% | {100 * row['same_as_channel']:.1f}% | "
                             f"{100 * row['gold_in_top_k']:.1f}% | {100 * row['channel_share']:.0f}% |")
        lines.append("")
    OUT.with_suffix(".txt").write_text("\n".join(lines) + "\n")
    OUT.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

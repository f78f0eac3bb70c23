"""How long a retrain takes: 2,000 labels learned, 100,000 tickets predicted again (stored LM scores).

Synthetic tickets (each label has its own words among common ones; 12-40 words a ticket) and
random language-model scores: the cost depends on the sizes, not on what the words mean.
Writes docs/learning/speed.json.

Usage: .venv/bin/python scripts/experiments/learn_speed.py [N_TICKETS] [N_LABELS_TAUGHT] [N_LABELS]
"""
from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from triage_app.learn import TicketFeatures, learn, next_to_label

OUT = Path(__file__).resolve().parents[2] / "docs" / "learning" / "speed.json"


def synthetic(n: int, labels: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    common = np.array([f"w{k}" for k in range(3000)])
    own = np.array([[f"l{j}x{k}" for k in range(200)] for j in range(labels)])
    gold = rng.integers(0, labels, n)
    lengths = rng.integers(12, 40, n)
    words = common[rng.zipf(1.3, (n, 40)) % len(common)]                      # [N, 40] common words, Zipf-like
    marks = own[gold[:, None], rng.integers(0, 200, (n, 4))]                    # [N, 4] the label's own words
    texts = [" ".join(words[r, :lengths[r] - 4].tolist() + marks[r].tolist()) for r in range(n)]
    return texts, gold


def main(n: int = 100_000, taught: int = 2_000, labels: int = 10) -> dict:
    names = [f"label {j}" for j in range(labels)]
    texts, gold = synthetic(n, labels)
    z = np.log(np.random.default_rng(1).dirichlet(np.ones(labels), n))            # [N, L]
    start = time.perf_counter()
    features = TicketFeatures(texts)
    vocabulary = time.perf_counter() - start
    print(f"TF-IDF of {n} tickets: {vocabulary:.1f} s, {features.matrix.shape[1]} columns", flush=True)
    teach = {int(r): names[gold[r]] for r in np.random.default_rng(2).choice(n, taught, replace=False)}
    retrains = []
    for _ in range(3):
        start = time.perf_counter()
        learned = learn(features, z, teach, names)
        retrains.append(time.perf_counter() - start)
        print(f"retrain on {taught} labels and predict {n} tickets: {retrains[-1]:.2f} s", flush=True)
    start = time.perf_counter()
    next_to_label(learned, features, 20)
    queue = time.perf_counter() - start
    out = {"tickets": n, "labels_taught": taught, "labels": labels, "vocabulary": features.matrix.shape[1],
           "tfidf_fit_once_per_file_s": round(vocabulary, 2), "retrain_and_predict_all_s": [round(s, 2) for s in retrains],
           "next_to_label_s": round(queue, 3), "weights": [learned.weights.lm, learned.weights.learned],
           "machine": f"{platform.processor() or platform.machine()}, {__import__('os').cpu_count()} CPUs"}
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    result = main(*(int(a) for a in sys.argv[1:]))
    if len(sys.argv) == 1:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(result, indent=1) + "\n")

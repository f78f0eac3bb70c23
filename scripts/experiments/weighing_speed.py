"""A retrain's cost before and after the parts' weighing chose its parts by cross-validation
(learn/weights.py): prototype_speed.py's file (100,000 embedded tickets, 10 labels, 2,000 taught,
random stored language-model scores, the similarity and the prototypes given), the two rules
alternating, three rounds, CPU seconds (process_time: the work itself on a shared CPU) and the clock's.
Writes docs/learning/weighing_speed.json.

Usage: .venv/bin/python scripts/experiments/weighing_speed.py
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from combined_weighing import old_rule
from embedding_kshot import machine
from prototype_speed import D, L, N, TAUGHT, unit
from scipy.special import log_softmax

import triage_app.learn.model as model
from triage_app.learn import TicketFeatures, learn, similarity_scores
from triage_app.learn.weights import fit_weights

OUT = Path(__file__).resolve().parents[2] / "docs" / "learning" / "weighing_speed.json"


def main() -> None:
    rng = np.random.default_rng(0)
    centres = unit(rng.normal(size=(L, D)))
    gold = rng.integers(0, L, N)
    x = unit(centres[gold] + 0.08 * rng.normal(size=(N, D)))                        # [N, D]
    names = [f"label {k}" for k in range(L)]
    z = log_softmax(rng.normal(size=(N, L)), axis=1)
    s = similarity_scores(x, centres)
    features = TicketFeatures([""] * N, embeddings=x)
    taught = {int(r): names[gold[r]] for r in rng.choice(N, TAUGHT, replace=False)}
    runs = {"before": [], "after": []}
    for _ in range(3):
        for name, rule in (("before", old_rule), ("after", fit_weights)):
            model.fit_weights = rule
            wall, cpu = time.perf_counter(), time.process_time()
            learned = learn(features, z, taught, names, similarity=s, prototypes=centres)
            runs[name].append({"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                               "weights": [learned.weights.lm, learned.weights.learned, learned.weights.similarity]})
            print(name, runs[name][-1], flush=True)
    OUT.write_text(json.dumps({"machine": machine(), "tickets": N, "labels": L, "taught": TAUGHT, **runs}, indent=1) + "\n")
    print(f"-> {OUT}")


if __name__ == "__main__":
    main()

"""A retrain's cost with and without the labels' prototypes (learn(..., prototypes=)), on embeddings:
100,000 tickets as random 384-dimension unit vectors around 10 label centres, 2,000 labels taught,
random stored language-model scores, the similarity to the centres given. The prototypes double the
cross-validation (learn() fits it with and without them, to choose). CPU seconds (process_time, the
work itself on a shared CPU) and the clock's, alternating the two, three rounds. Writes
docs/learning/prototype_speed.json.

Usage: .venv/bin/python scripts/experiments/prototype_speed.py
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from embedding_kshot import machine
from scipy.special import log_softmax

from triage_app.learn import TicketFeatures, learn, similarity_scores

OUT = Path(__file__).resolve().parents[2] / "docs" / "learning" / "prototype_speed.json"
N, L, D, TAUGHT, ROUNDS = 100_000, 10, 384, 2_000, 3


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


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
    runs = {"without": [], "with_prototypes": []}
    for _ in range(ROUNDS):
        for name, prototypes in (("without", None), ("with_prototypes", centres)):
            wall, cpu = time.perf_counter(), time.process_time()
            learned = learn(features, z, taught, names, similarity=s, prototypes=prototypes)
            runs[name].append({"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                               "took": learned.took_prototypes})
            print(name, runs[name][-1], flush=True)
    OUT.write_text(json.dumps({"machine": machine(), "tickets": N, "labels": L, "taught": TAUGHT, **runs}, indent=1) + "\n")
    print(f"-> {OUT}")


if __name__ == "__main__":
    main()

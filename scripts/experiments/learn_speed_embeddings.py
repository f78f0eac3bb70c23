"""A retrain on sentence embeddings against one on TF-IDF, as the window runs them (ui/learning/live.py):
2,000 labels learned, 100,000 tickets answered again, then Next to label.

The tickets are learn_speed.py's synthetic ones; the embeddings are [N, 384] unit vectors around one
centre per label (the encoder's size; what they mean does not change the cost), the label vectors
those centres. Each step is timed on the wall clock and in CPU seconds of this process: on a shared
CPU the wall clock measures the other jobs too, the CPU seconds far less so. Writes
docs/learning/speed_embeddings.json.

Usage: .venv/bin/python scripts/experiments/learn_speed_embeddings.py [N_TICKETS] [N_LABELS_TAUGHT]
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from learn_speed import synthetic

from triage_app.learn import TicketFeatures, learn, next_to_label, similarity_scores

OUT = Path(__file__).resolve().parents[2] / "docs" / "learning" / "speed_embeddings.json"
DIMENSIONS, LABELS, RETRAINS = 384, 10, 3


def timed(step):
    wall, cpu = time.perf_counter(), time.process_time()
    out = step()
    return out, round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)


def unit_vectors(n: int, gold: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """[N, D] embeddings around [L, D] label centres, both L2-normalised."""
    centres = rng.normal(size=(LABELS, DIMENSIONS))
    rows = centres[gold] + 3.0 * rng.normal(size=(n, DIMENSIONS))
    return ((rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32),
            centres / np.linalg.norm(centres, axis=1, keepdims=True))


def retrains(features, z, teach, names, similarity=None) -> dict:
    """The window's retrain: learn, then Next to label; the first time also fits the queue's regions."""
    out = {"retrain_and_queue_wall_s": [], "retrain_and_queue_cpu_s": []}
    for _ in range(RETRAINS):
        _, wall, cpu = timed(lambda: next_to_label(learn(features, z, teach, names, similarity=similarity), features))
        out["retrain_and_queue_wall_s"].append(wall)
        out["retrain_and_queue_cpu_s"].append(cpu)
        print(f"  retrain + queue: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
    return out


def main(n: int = 100_000, taught: int = 2_000) -> dict:
    names = [f"label {j}" for j in range(LABELS)]
    texts, gold = synthetic(n, LABELS)
    rng = np.random.default_rng(1)
    z = np.log(rng.dirichlet(np.ones(LABELS), n))                                     # [N, L]
    embeddings, vectors = unit_vectors(n, gold, rng)
    teach = {int(r): names[gold[r]] for r in np.random.default_rng(2).choice(n, taught, replace=False)}
    out = {"tickets": n, "labels_taught": taught, "labels": LABELS, "dimensions": DIMENSIONS,
           "started": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "load_average_before": round(os.getloadavg()[0], 1)}
    print("TF-IDF", flush=True)
    words, out["tfidf_fit_wall_s"], out["tfidf_fit_cpu_s"] = timed(lambda: TicketFeatures(texts))
    out["tfidf"] = retrains(words, z, teach, names)
    print("embeddings", flush=True)
    out["embeddings"] = retrains(TicketFeatures(texts, embeddings), z, teach, names)
    print("embeddings + similarity", flush=True)
    similarity, out["similarity_wall_s"], out["similarity_cpu_s"] = timed(lambda: similarity_scores(embeddings, vectors))
    out["embeddings_and_similarity"] = retrains(TicketFeatures(texts, embeddings), z, teach, names, similarity)
    out["load_average_after"] = round(os.getloadavg()[0], 1)
    out["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    result = main(*(int(a) for a in sys.argv[1:]))
    if len(sys.argv) == 1:
        OUT.write_text(json.dumps(result, indent=1) + "\n")

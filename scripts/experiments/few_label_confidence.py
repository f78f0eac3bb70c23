"""How sure learn()'s answers are, and how often a sure one is wrong, with a few labels per label
(docs/learning/calibration.md): the weights fitted to 0/1 targets (before) or Platt's (after, learn/weights.py).

BANKING77's development half (embedding_kshot.py), its stored MiniLM embeddings, the labels' names as the
similarity's and the prototypes' text, no language model (uniform z: none is stored on these rows), as
neighbours_kshot.py. Sets: the 10 intents (banking10); the 8 queues of labels_first_measure.py (every
development message in its queue); all 77 intents. k labelled messages per label drawn per seed; the test
rows are up to 300 other messages per label.

Usage: .venv/bin/python scripts/experiments/few_label_confidence.py banking10|queues8|banking77 DRAWS KS OUT.json
Run once on the tree before the change and once after; the two JSON files are docs/learning/calibration.json.
"""
from __future__ import annotations

import json
import random
import sys
import time

import numpy as np
from embedding_kshot import BANKING10, development_half, machine
from labels_first_measure import QUEUES
from prototype_kshot import vectors_of

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import LabelSimilarity, TicketFeatures, learn

TEST_PER_LABEL = 300


def labelled(name: str, frame):
    if name == "queues8":
        queue_of = {intent: queue for queue, intents in QUEUES.items() for intent in intents.split()}
        gold = frame["category"].map(queue_of)
        return list(QUEUES), gold.to_numpy(), np.flatnonzero(gold.notna().to_numpy())
    intents = sorted(BANKING10) if name == "banking10" else sorted(frame["category"].unique())
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    gold = frame["category"].map(dict(zip(intents, names)))
    return names, gold.to_numpy(), np.flatnonzero(gold.notna().to_numpy())


def draw(y: np.ndarray, n_labels: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng, train, test = random.Random(seed), [], []
    for label in range(n_labels):
        rows = list(np.flatnonzero(y == label))
        rng.shuffle(rows)
        train += rows[:k]
        test += rows[k:k + TEST_PER_LABEL]
    return np.array(train), np.array(test)


def summary(confidence: np.ndarray, right: np.ndarray) -> dict:
    sure = confidence >= 0.9
    bins = np.minimum((confidence * 10).astype(int), 9)
    ece = sum(abs(right[bins == b].mean() - confidence[bins == b].mean()) * np.mean(bins == b)
              for b in range(10) if np.any(bins == b))
    return {"accuracy": float(right.mean()), "mean confidence": float(confidence.mean()),
            "share at or above 0.9": float(sure.mean()),
            "accuracy at or above 0.9": float(right[sure].mean()) if sure.any() else None,
            "wrong answers at or above 0.9, share of the wrong": float(sure[~right].mean()) if (~right).any() else None,
            "wrong answers at or above 0.99, share of the wrong": float((confidence[~right] >= 0.99).mean()) if (~right).any() else None,
            "ECE (10 bins)": float(ece)}


def main() -> None:
    name, draws, ks, out = sys.argv[1], int(sys.argv[2]), [int(k) for k in sys.argv[3].split(",")], sys.argv[4]
    encoder = SentenceEncoder.load()
    frame = development_half()
    names, gold, rows = labelled(name, frame)
    x = vectors_of("development", frame, encoder)[rows]
    y = np.array([names.index(g) for g in gold[rows]])
    prototypes = encoder.embed(names)
    similarity = LabelSimilarity.of(x, prototypes)
    features = TicketFeatures([""] * len(y), embeddings=x)
    z = np.full(similarity.scores.shape, -np.log(len(names)))
    result = {"set": name, "draws": draws, "machine": machine(), "k": {}}
    for k in ks:
        confidence, right, weights, started = [], [], [], time.time()
        for seed in range(draws):
            train, test = draw(y, len(names), k, seed)
            learned = learn(features, z, {int(r): names[y[r]] for r in train}, names, similarity=similarity,
                            prototypes=prototypes)
            confidence.append(learned.confidence[test])
            right.append(learned.labels[test] == y[test])
            weights.append([learned.weights.lm, learned.weights.learned, learned.weights.similarity])
        result["k"][k] = summary(np.concatenate(confidence), np.concatenate(right)) | {
            "weights (a, b, c), mean": np.mean(weights, axis=0).round(2).tolist(),
            "weights at the bound": float(np.mean(np.max(weights, axis=1) >= 49.9)), "seconds": round(time.time() - started)}
        print(name, k, {key: (round(v, 3) if isinstance(v, float) else v) for key, v in result["k"][k].items()}, flush=True)
    with open(out, "w") as stream:
        json.dump(result, stream, indent=1)


if __name__ == "__main__":
    main()

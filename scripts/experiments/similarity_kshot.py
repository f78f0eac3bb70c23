"""The encoder's zero-shot similarity as a third part: alone, with the language model by the fixed rule,
and weighed with the learned part by cross-validation, on the development half of BANKING77 only.

- banking10 (the 400 messages with the bundled SmolLM2's stored channel scores, docs/learning/scores):
  the constants of learn/similarity.py (temperature, zero-shot weight) are read off here, then the
  package's learning curve (quality.curve) with and without the similarity, 20 draws.
- all 77 intents (5,025 development messages, no language-model scores: an LM with no opinion,
  uniform z): embedding_kshot.py's draws (k per intent, 30 test messages each), 5 draws, learn() with
  the learned part alone (no similarity given) and with the similarity weighed in.
Writes docs/learning/similarity.json. The held-out half is not read.

Usage: .venv/bin/python scripts/experiments/similarity_kshot.py [banking10|banking77 ...]
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from embedding_kshot import BANKING10, development_half, draw, machine
from scipy.special import log_softmax

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import TicketFeatures, learn, similarity_scores
from triage_app.learn.similarity import TEMPERATURE, ZERO_SHOT_WEIGHT
from triage_app.quality.curve import learning_curve

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "learning"
OUT = DOCS / "similarity.json"
CACHE = ROOT / ".cache" / "banking77_dev_minilm.npy"    # embedding_kshot.py's vectors of development_half()
TEMPERATURES = (0.02, 0.03, 0.05, 0.07, 0.1)
WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)


def log_loss(scores: np.ndarray, y: np.ndarray) -> float:
    return float(-np.mean(scores[np.arange(len(y)), y]))


def accuracy(scores: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.argmax(scores, axis=1) == y))


def banking10(encoder: SentenceEncoder, frame, vectors: np.ndarray) -> dict:
    data = np.load(DOCS / "scores" / "banking10.npz")
    texts, gold, names, z = data["texts"].tolist(), data["gold"].tolist(), data["names"].tolist(), data["scores"]
    index = {t: r for r, t in enumerate(frame["text"])}
    keep = [r for r, t in enumerate(texts) if t in index]     # all 400 are development messages
    texts, gold, z = [texts[r] for r in keep], [gold[r] for r in keep], z[keep]
    x, y = vectors[[index[t] for t in texts]], np.array([names.index(g) for g in gold])
    prototypes = encoder.embed(names)
    out = {"n": len(texts), "model": str(data["model"]), "lm_alone": accuracy(z, y),
           "lm_log_loss": log_loss(log_softmax(z, axis=1), y), "temperature": {}, "zero_shot_weight": {}}
    for t in TEMPERATURES:
        s = similarity_scores(x, prototypes, t)
        out["temperature"][t] = {"accuracy": accuracy(s, y), "log_loss": log_loss(s, y)}
    s = similarity_scores(x, prototypes, TEMPERATURE)
    for w in WEIGHTS:
        both = log_softmax(z + w * s, axis=1)
        out["zero_shot_weight"][w] = {"accuracy": accuracy(both, y), "log_loss": log_loss(both, y)}
    print(json.dumps(out, indent=1), flush=True)
    for name, similarity in (("lm_and_learned", None), ("lm_learned_and_similarity", s)):
        curve = learning_curve(texts, gold, z, names, ks=(0, 2, 5, 10), draws=20, embeddings=x,
                               similarity=similarity, log=lambda line: print(name, line, flush=True))
        out[name] = {"n_test": len(curve.test_rows), "table": curve.table(),
                     "mean": {p.k: {part: p.mean(part) for part in ("zero_shot", "learned", "combined")}
                              for p in curve.points},
                     "std": {p.k: p.std("combined") for p in curve.points}}
    return out


def banking77(encoder: SentenceEncoder, frame, vectors: np.ndarray, ks=(2, 5, 10), draws: int = 5) -> dict:
    intents = sorted(frame["category"].unique())
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    gold = frame["category"].to_numpy()
    y = np.array([intents.index(g) for g in gold])
    s = similarity_scores(vectors, encoder.embed(names))                            # [N, 77]
    features = TicketFeatures([""] * len(gold), embeddings=vectors)
    z = np.full(s.shape, -np.log(len(names)))                                        # no language model's opinion
    out = {"n": len(gold), "similarity_alone": accuracy(s, y), "k": {}}
    for k in ks:
        runs = {"learned_alone": [], "learned_and_similarity": [], "weights": [], "seconds": []}
        for seed in range(draws):
            train, test = draw(gold, intents, k, seed)
            taught = {int(r): names[y[r]] for r in train}
            alone = learn(features, z, taught, names)
            start = time.process_time()
            both = learn(features, z, taught, names, similarity=s)
            runs["seconds"].append(time.process_time() - start)
            runs["learned_alone"].append(float(np.mean(alone.labels[test] == y[test])))
            runs["learned_and_similarity"].append(float(np.mean(both.labels[test] == y[test])))
            runs["weights"].append([both.weights.lm, both.weights.learned, both.weights.similarity])
        out["k"][k] = {m: {"mean": float(np.mean(v)), "std": float(np.std(v))} if m not in ("weights",) else v
                       for m, v in runs.items()}
        print("banking77", k, {m: round(100 * r["mean"], 1) for m, r in out["k"][k].items()
                               if isinstance(r, dict) and m != "seconds"}, flush=True)
    return out


def main() -> None:
    which = sys.argv[1:] or ["banking10", "banking77"]
    encoder, frame = SentenceEncoder.load(), development_half()
    vectors = np.load(CACHE)
    assert len(vectors) == len(frame), "run embedding_kshot.py first: it caches the development half's vectors"
    result = json.loads(OUT.read_text()) if OUT.exists() else {}
    result.update(machine=machine(), encoder=encoder.identity, temperature=TEMPERATURE,
                  zero_shot_weight=ZERO_SHOT_WEIGHT)
    for name in which:
        result[name] = {"banking10": banking10, "banking77": banking77}[name](encoder, frame, vectors)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {OUT}")


if __name__ == "__main__":
    main()

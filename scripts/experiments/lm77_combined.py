"""Issue 34's 77 intents with the language model's scores as the third part: does the bundled model
(SmolLM2-135M, channel scoring, the intents' names) add anything to learn()'s embeddings, names as
prototypes and smoothing, weighed by its cross-validation?

BANKING77's development half, per intent a seeded pool: the first --pool messages are the labelled pool
(--pool, default 10; k=5 takes its first 5), the next TEST are tested. The file learn() smooths over is those rows alone
(the language model cannot score the half's 5,025 messages x 77 labels in the time), the same file
with and without the model's scores. The scores are cached in .cache/lm77_dev_<TEST>.npz.

Usage: .venv/bin/python scripts/experiments/lm77_combined.py [TEST] [--seeds 0,1] [--pool 10] [--dtype bfloat16]
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
from embedding_kshot import development_half, machine
from lm_scores import lm_scores
from prototype_kshot import vectors_of

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import LabelSimilarity, TicketFeatures, learn

ROOT = Path(__file__).resolve().parents[2]


def rows_of(gold: np.ndarray, intents: list[str], pool_k: int, test: int, seed: int):
    """[intents, pool_k] labelled pool and [intents * test] tested rows."""
    pool, tested = [], []
    for intent in intents:
        mine = list(np.flatnonzero(gold == intent))
        random.Random(seed).shuffle(mine)
        pool.append(mine[:pool_k])
        tested += mine[pool_k:pool_k + test]
    return np.array(pool), np.array(tested)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("test", type=int, nargs="?", default=10)
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--pool", type=int, default=10, help="labelled messages an intent: k = 5 and 10 up to it")
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    encoder = SentenceEncoder.load()
    frame = development_half()
    vectors = vectors_of("development", frame, encoder)
    intents = sorted(frame["category"].unique())
    names = [i.replace("_", " ") for i in intents]
    gold, texts = frame["category"].to_numpy(), frame["text"].tolist()
    prototypes = encoder.embed(names)
    for seed in (int(s) for s in args.seeds.split(",")):
        pool, tested = rows_of(gold, intents, args.pool, args.test, seed)
        rows = np.concatenate([pool.ravel(), tested])
        cache = ROOT / ".cache" / f"lm77_dev_{args.pool}_{args.test}_{seed}_{args.dtype}.npz"
        if cache.exists():
            stored = np.load(cache)
            assert stored["rows"].tolist() == rows.tolist()
            lm, seconds = stored["scores"], float(stored["seconds"])
        else:
            start = time.perf_counter()
            lm, _, _ = lm_scores([texts[r] for r in rows], names, args.dtype)
            seconds = time.perf_counter() - start
            np.savez(cache, rows=rows, scores=lm, seconds=seconds)
        y = np.array([intents.index(g) for g in gold[rows]])
        x = vectors[rows]
        similarity = LabelSimilarity.of(x, prototypes)
        features = TicketFeatures([""] * len(rows), embeddings=x)
        test = np.arange(pool.size, len(rows))
        uniform = np.full(lm.shape, -np.log(len(names)))
        result = {"seed": seed, "dtype": args.dtype, "rows": len(rows), "lm_seconds": round(seconds, 1),
                  "lm_alone": round(100 * float(np.mean(lm[test].argmax(1) == y[test])), 1), "machine": machine()}
        for k in (k for k in (5, 10) if k <= args.pool):
            taught = {int(i): names[y[i]] for i in range(pool.size) if i % args.pool < k}
            for side, z in (("without_lm", uniform), ("with_lm", lm)):
                learned = learn(features, z, taught, names, similarity=similarity)
                result[f"k={k} {side}"] = round(100 * float(np.mean(learned.labels[test] == y[test])), 1)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

"""Issue 34's 77 intents, a fourth attempt with the frozen encoder: the embeddings' geometry, fitted on the
file's own tickets without labels (sentence embeddings are anisotropic: a few directions carry most variance
and say little about intent). Against the learned part as learn() gives it on 77 labels (one-vs-rest
regression, C=10, the intents' names as examples, smoothed over the file's 10 nearest neighbours twice, half
and half):
  - all-but-the-top (Mu & Viswanath, 2018): the file's mean subtracted and its top d principal directions
    removed, renormalised;
  - whitening (ZCA) with shrinkage: the file's covariance, its eigenvalues plus eps x their mean, renormalised;
each with the neighbours found on the raw embeddings (as learn() has them) or on the transformed ones.
The stored embeddings of embedding_kshot.py's halves (prototype_kshot.vectors_of) and its draws.

Usage: .venv/bin/python scripts/experiments/frozen_whitened.py development|held-out banking77|banking10 [draws]
Prints each variant's mean accuracy at k = 5 / 10 (77 intents) or 2 / 5 (10 intents).
"""
from __future__ import annotations

import sys

import numpy as np
from embedding_kshot import draw
from frozen_more import intents_of, probabilities, regression, smooth
from sklearn.preprocessing import normalize

from triage_app.learn.neighbours import nearest


def but_the_top(x, d):
    mean = x.mean(axis=0)
    top = np.linalg.svd(x - mean, full_matrices=False)[2][:d]           # [d, D]
    return lambda v: normalize((v - mean) - (v - mean) @ top.T @ top)


def whitened(x, eps):
    mean = x.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(x - mean, rowvar=False))
    w = vectors @ np.diag(1 / np.sqrt(values + eps * values.mean())) @ vectors.T
    return lambda v: normalize((v - mean) @ w)


def main() -> None:
    half, name = sys.argv[1], sys.argv[2]
    draws = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    encoder, gold, x, _, y, intents, names = intents_of(half, name)
    x = x.astype(np.float64)
    prototypes, n_labels = encoder.embed(names).astype(np.float64), len(names)
    transforms = {"raw": lambda v: v}
    transforms |= {f"all-but-the-top, d={d}": but_the_top(x, d) for d in (1, 3, 8, 16)}
    transforms |= {f"whitened, eps={eps}": whitened(x, eps) for eps in (0.1, 0.3, 1.0, 3.0)}
    raw_near = nearest(x.astype(np.float32), 10)
    ks = (2, 5) if name == "banking10" else (5, 10)
    results: dict[tuple[str, int], list[float]] = {}
    for label, f in transforms.items():
        fx, fp = f(x), f(prototypes)
        own_near = nearest(fx.astype(np.float32), 10)
        for k in ks:
            for seed in range(draws):
                train, test = draw(gold, intents, k, seed)
                score = lambda variant, p: results.setdefault((variant, k), []).append(  # noqa: E731
                    float(np.mean(p[test].argmax(axis=1) == y[test])))
                model = regression(np.vstack([fx[train], fp]), np.concatenate([y[train], np.arange(n_labels)]))
                p = probabilities(model, fx)
                score(f"{label}: learned", p)
                score(f"{label}: smoothed on raw neighbours", smooth(p, raw_near, train, y[train]))
                if label != "raw":
                    score(f"{label}: smoothed on its own neighbours", smooth(p, own_near, train, y[train]))
        for variant in [v for v in dict.fromkeys(v for v, _ in results) if v.startswith(label)]:
            print(f"{variant:62s} " + "  ".join(f"k={k} {100 * np.mean(results[(variant, k)]):.1f}" for k in ks),
                  flush=True)


if __name__ == "__main__":
    main()

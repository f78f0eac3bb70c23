"""What the field does with a frozen small encoder and k = 5-10 examples per class, tried on the
development half of BANKING77 (embedding_kshot.py's half, draws and test messages; the learned part
alone, no language model, no cross-validation of weights: the quick screen before anything goes into
learn()). Each draw's k labelled messages per intent train, the others are tested; means over draws.

  ovr_cC               one-vs-rest logistic regression (liblinear), C = 3, 10 (learn()'s), 30, 100
  mn_cC                one multinomial regression (lbfgs), C = 10, 100
  centered_ovr_c10     the file's mean embedding subtracted, rows renormalised, then ovr_c10
  names_pseudo         each intent's name embedded as one more training row of it (ovr_c10)
  centered_names_pseudo  both of the above
  centroid             nearest class mean (cosine)
  ovr+sim0.3           ovr_c10's log-probabilities + 0.3 x the similarity to the names (T = 0.05)
  ovr+centroid         ovr_c10 + the centroid's softmax(cos / 0.05)
  self_train           ovr_c10 refitted with the file's more confident half as pseudo-labels
  label_spreading      scikit-learn's LabelSpreading over the file's 10-nearest-neighbour graph (alpha 0.2)
  ovr+knn_smooth       ovr_c10's probabilities on the file averaged with its 10 nearest neighbours' (twice,
                       half and half), the labelled rows held at their labels
  names+knn_smooth     the same smoothing of names_pseudo's probabilities
Prints the table; writes docs/learning/frozen_variants.json.

Usage: .venv/bin/python scripts/experiments/frozen_variants.py [b77] [b10]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from embedding_kshot import BANKING10, development_half, draw
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.semi_supervised import LabelSpreading
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "banking77_dev_minilm.npy"          # embedding_kshot.py's vectors
OUT = ROOT / "docs" / "learning" / "frozen_variants.json"


def unit(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def ovr(x, y, c):
    return OneVsRestClassifier(LogisticRegression(C=c, solver="liblinear")).fit(x, y)


def log_probs(model, x) -> np.ndarray:
    p = model.predict_proba(x)
    return np.log(np.maximum(p / p.sum(1, keepdims=True), 1e-300))


def variants(x, y, xt, names, file, train, test) -> dict[str, np.ndarray]:
    """[T, L] scores of the test rows xt by each variant, trained on x, y; names [L, D]; file [N, D];
    train, test: the rows of x and xt in the file."""
    base_model = ovr(x, y, 10)
    out = {"ovr_c10": log_probs(base_model, xt)}
    for c in (3, 30, 100):
        out[f"ovr_c{c}"] = log_probs(ovr(x, y, c), xt)
    for c in (10, 100):
        out[f"mn_c{c}"] = LogisticRegression(C=c, max_iter=2000).fit(x, y).predict_log_proba(xt)
    mean = file.mean(0)
    xc, xtc, nc = unit(x - mean), unit(xt - mean), unit(names - mean)
    every = np.arange(len(names))
    out["centered_ovr_c10"] = log_probs(ovr(xc, y, 10), xtc)
    out["names_pseudo"] = log_probs(ovr(np.vstack([x, names]), np.concatenate([y, every]), 10), xt)
    out["centered_names_pseudo"] = log_probs(ovr(np.vstack([xc, nc]), np.concatenate([y, every]), 10), xtc)
    centres = np.zeros_like(names)
    np.add.at(centres, y, x)
    centres = unit(centres)
    out["centroid"] = xt @ centres.T
    out["ovr+sim0.3"] = out["ovr_c10"] + 0.3 * log_softmax(xt @ names.T / 0.05, 1)
    out["ovr+centroid"] = out["ovr_c10"] + log_softmax(xt @ centres.T / 0.05, 1)
    guessed = log_probs(base_model, file)
    sure = guessed.max(1) > np.quantile(guessed.max(1), 0.5)
    out["self_train"] = log_probs(ovr(np.vstack([x, file[sure]]), np.concatenate([y, guessed.argmax(1)[sure]]), 10), xt)
    given = np.full(len(file), -1)
    given[train] = y
    spread = LabelSpreading(kernel="knn", n_neighbors=10, alpha=0.2, max_iter=100).fit(file, given)
    out["label_spreading"] = np.log(np.maximum(spread.label_distributions_[test], 1e-300))
    near = np.argpartition(-(file @ file.T), 11, axis=1)[:, 1:11]                 # [N, 10] without itself
    named = ovr(np.vstack([x, names]), np.concatenate([y, every]), 10)
    for name, model in (("ovr+knn_smooth", base_model), ("names+knn_smooth", named)):
        out[name] = smoothed(np.exp(log_probs(model, file)), near, train, np.eye(len(names))[y])[test]
    return out


def smoothed(p: np.ndarray, near: np.ndarray, train: np.ndarray, held: np.ndarray) -> np.ndarray:
    """[N, L] log-probabilities: each row's probabilities averaged with its neighbours', twice, half and
    half, the labelled rows held at their labels."""
    for _ in range(2):
        p[train] = held
        p = 0.5 * p + 0.5 * p[near].mean(1)
    return np.log(np.maximum(p, 1e-300))


def run(which: str, frame, vectors, names_vectors, ks, draws) -> dict:
    intents = sorted(frame["category"].unique())
    chosen = sorted(BANKING10) if which == "b10" else intents
    gold_all = frame["category"].to_numpy()
    rows = np.flatnonzero(np.isin(gold_all, chosen))
    gold, x = gold_all[rows], vectors[rows]
    y = np.array([chosen.index(g) for g in gold])
    names = names_vectors[[intents.index(i) for i in chosen]]
    out = {}
    for k in ks:
        right: dict[str, list[float]] = {}
        for seed in range(draws):
            train, test = draw(gold, chosen, k, seed)
            for name, scores in variants(x[train], y[train], x[test], names, x, train, test).items():
                right.setdefault(name, []).append(float(np.mean(scores.argmax(1) == y[test])))
        out[k] = {name: round(100 * float(np.mean(v)), 1) for name, v in right.items()}
        print(which, k, out[k], flush=True)
    return out


def main() -> None:
    from triage_app.engine.encoder import SentenceEncoder

    frame = development_half()
    vectors = np.load(CACHE).astype(np.float64)
    intents = sorted(frame["category"].unique())
    names = SentenceEncoder.load().embed([BANKING10.get(i, i.replace("_", " ")) for i in intents]).astype(np.float64)
    which = sys.argv[1:] or ["b77", "b10"]
    result = json.loads(OUT.read_text()) if OUT.exists() else {}
    with threadpool_limits(1):
        for name in which:
            result[name] = run(name, frame, vectors, names, (5, 10) if name == "b77" else (2, 5),
                               5 if name == "b77" else 20)
    OUT.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()

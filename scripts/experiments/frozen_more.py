"""Issue 34's 77 intents, a third attempt with the frozen encoder (docs/learning/embeddings.md): the learned
part as learn() gives it on 77 labels (one-vs-rest regression, C=10, the intents' names as examples, smoothed
over the file's 10 nearest neighbours twice, half and half), against
  - the smoothing's constants: 5 / 10 / 20 / 30 neighbours, 1 / 2 / 4 / 8 rounds, 0.5 / 0.7 / 0.9 towards them;
  - a TF-IDF regression beside it (words 1-2 and characters 2-5): its log-probabilities added with weight w,
    or its columns concatenated to the embedding's at scale s;
  - each labelled message embedded four more times with a fifth of its words dropped, as more examples;
  - soft k-means from the smoothed answers (centroids of the file's rows weighted by their answers, then
    each row's answer times softmax(beta x cosine to the centroids), five rounds).
The stored embeddings of embedding_kshot.py's development half (prototype_kshot.vectors_of) and its draws.

Usage: .venv/bin/python scripts/experiments/frozen_more.py development banking77|banking10 [draws]
Prints each variant's mean accuracy at k = 5 / 10 (77 intents) or 2 / 5 (10 intents).
"""
from __future__ import annotations

import random
import sys
from typing import NamedTuple

import numpy as np
from embedding_kshot import BANKING10, development_half, draw
from prototype_kshot import held_out_half, vectors_of
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import normalize

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn.neighbours import nearest


def regression(x, targets):
    return OneVsRestClassifier(LogisticRegression(C=10, solver="liblinear", random_state=0)).fit(x, targets)


def probabilities(model, x):
    p = model.predict_proba(x)
    return p / p.sum(axis=1, keepdims=True)


def smooth(p, near, held, targets, rounds=2, alpha=0.5):
    p, one_hot = p.copy(), np.eye(p.shape[1])[targets]
    for _ in range(rounds):
        p[held] = one_hot
        p = (1 - alpha) * p + alpha * p[near].mean(axis=1)
    return p


def drop_words(text, rng, keep=0.8):
    words = text.split()
    kept = [w for w in words if rng.random() < keep] if len(words) >= 3 else words
    return " ".join(kept or words)


class Intents(NamedTuple):
    """One half's messages of a set (banking10 or banking77), embedded, and its intents' names."""

    encoder: SentenceEncoder
    gold: np.ndarray        # [N] intent of each message
    x: np.ndarray           # [N, D] float32 embeddings
    texts: np.ndarray       # [N]
    y: np.ndarray           # [N] index of each message's intent
    intents: list[str]
    names: list[str]        # the intents as a person names them


def intents_of(half: str, name: str) -> Intents:
    encoder = SentenceEncoder.load()
    frame = development_half() if half == "development" else held_out_half()
    vectors = vectors_of(half, frame, encoder)
    intents = sorted(BANKING10) if name == "banking10" else sorted(frame["category"].unique())
    rows = np.flatnonzero(frame["category"].isin(intents).to_numpy())
    gold = frame["category"].to_numpy()[rows]
    return Intents(encoder, gold, vectors[rows].astype(np.float32), frame["text"].to_numpy()[rows],
                   np.array([intents.index(g) for g in gold]), intents,
                   [BANKING10.get(i, i.replace("_", " ")) for i in intents])


def main() -> None:
    half, name = sys.argv[1], sys.argv[2]
    draws = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    encoder, gold, x, texts, y, intents, names = intents_of(half, name)
    prototypes, n_labels = encoder.embed(names).astype(np.float32), len(names)
    near = {k: nearest(x, k) for k in (5, 10, 20, 30)}
    tfidf = normalize(sparse.hstack([
        TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit_transform(texts),
        TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True).fit_transform(texts)]).tocsr())
    ks = (2, 5) if name == "banking10" else (5, 10)
    results: dict[tuple[str, int], list[float]] = {}
    for k in ks:
        for seed in range(draws):
            train, test = draw(gold, intents, k, seed)
            score = lambda variant, p: results.setdefault((variant, k), []).append(  # noqa: E731
                float(np.mean(p[test].argmax(axis=1) == y[test])))
            xt, targets = np.vstack([x[train], prototypes]), np.concatenate([y[train], np.arange(n_labels)])
            p = probabilities(regression(xt, targets), x)
            score("learned, names as examples", p)
            for n in near:
                for rounds in (1, 2, 4, 8):
                    for alpha in (0.5, 0.7, 0.9):
                        score(f"smoothed: {n} neighbours, {rounds} rounds, {alpha}", smooth(p, near[n], train, y[train], rounds, alpha))
            smoothed = lambda q: smooth(q, near[10], train, y[train])  # noqa: E731
            if name == "banking10":
                continue
            words = probabilities(regression(tfidf[train], y[train]), tfidf)
            for w in (0.25, 0.5, 1.0):
                fused = np.exp(np.log(p) + w * np.log(words))
                score(f"+ TF-IDF log-probabilities x {w}, smoothed", smoothed(fused / fused.sum(axis=1, keepdims=True)))
            for s in (0.5, 1.0):
                both = sparse.hstack([sparse.csr_matrix(x), s * tfidf]).tocsr()
                names_rows = sparse.hstack([sparse.csr_matrix(prototypes), sparse.csr_matrix((n_labels, tfidf.shape[1]))])
                model = regression(sparse.vstack([both[train], names_rows]).tocsr(), targets)
                score(f"TF-IDF columns x {s} concatenated, smoothed", smoothed(probabilities(model, both)))
            rng = random.Random(seed)
            dropped = encoder.embed([drop_words(texts[r], rng) for r in train for _ in range(4)]).astype(np.float32)
            model = regression(np.vstack([xt, dropped]), np.concatenate([targets, np.repeat(y[train], 4)]))
            score("+ 4 word-dropped copies of each labelled message, smoothed", smoothed(probabilities(model, x)))
            base = smoothed(p)
            for beta in (10, 20, 40):
                q = base.copy()
                for _ in range(5):
                    q[train] = np.eye(n_labels)[y[train]]
                    centroids = normalize(q.T @ x + prototypes)
                    logits = beta * x @ centroids.T
                    q = np.exp(logits - logits.max(axis=1, keepdims=True)) * base
                    q /= q.sum(axis=1, keepdims=True)
                score(f"soft k-means from the smoothed answers, beta {beta}", q)
    for variant in dict.fromkeys(v for v, _ in results):
        print(f"{variant:62s} " + "  ".join(f"k={k} {100 * np.mean(results[(variant, k)]):.1f}" for k in ks))


if __name__ == "__main__":
    main()

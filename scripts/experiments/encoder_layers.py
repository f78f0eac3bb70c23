"""Which of all-MiniLM-L6-v2's layers the learned part should read (docs/learning/embeddings.md, "what a
frozen encoder can still give"): each layer's mask-mean pooled output over the development half of
BANKING77 (embedding_kshot.py's half and draws, 77 intents), alone and concatenated, L2-normalised; the
learned part alone (one-vs-rest regression, C = 10) and the same with the file's neighbours' smoothing
(frozen_variants.smoothed), means over 5 draws.

Usage: .venv/bin/python scripts/experiments/encoder_layers.py
"""
from __future__ import annotations

import time

import numpy as np
import torch
from embedding_kshot import development_half, draw
from frozen_variants import log_probs, ovr, smoothed, unit
from threadpoolctl import threadpool_limits


def layer_means(texts: list[str]) -> np.ndarray:
    """[7, N, 384]: the embedding layer's and each of the 6 layers' outputs, mean-pooled over the mask."""
    from triage_app.engine.encoder import MAX_TOKENS, SentenceEncoder

    encoder = SentenceEncoder.load()
    order = np.argsort([len(t) for t in texts])
    out = np.zeros((7, len(texts), encoder.dimensions), dtype=np.float64)
    with torch.inference_mode():
        for start in range(0, len(texts), 32):
            rows = order[start:start + 32]
            encoded = encoder.tokenizer([texts[r] for r in rows], padding=True, truncation=True,
                                        max_length=MAX_TOKENS, return_tensors="pt")
            mask = encoded["attention_mask"].unsqueeze(-1).float()
            for k, hidden in enumerate(encoder.model(**encoded, output_hidden_states=True).hidden_states):
                out[k, rows] = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    return out


def main() -> None:
    frame = development_half()
    started = time.perf_counter()
    layers = layer_means(frame["text"].tolist())
    print(f"embedded {len(frame)} messages in {time.perf_counter() - started:.0f} s", flush=True)
    intents = sorted(frame["category"].unique())
    gold = frame["category"].to_numpy()
    y = np.array([intents.index(g) for g in gold])
    each = [unit(layers[k]) for k in range(7)]
    features = {"layer 6 (the app's)": each[6], "layer 5": each[5], "layer 4": each[4],
                "5 and 6 concatenated": unit(np.hstack(each[5:])), "4, 5 and 6 concatenated": unit(np.hstack(each[4:])),
                "mean of 5 and 6": unit(each[5] + each[6]), "embeddings and 6 concatenated": unit(np.hstack([each[0], each[6]]))}
    with threadpool_limits(1):
        for k in (5, 10):
            right: dict[str, list[float]] = {}
            for seed in range(5):
                train, test = draw(gold, intents, k, seed)
                for name, x in features.items():
                    model = ovr(x[train], y[train], 10)
                    right.setdefault(name, []).append(np.mean(log_probs(model, x[test]).argmax(1) == y[test]))
                    near = np.argpartition(-(x @ x.T), 11, axis=1)[:, 1:11]
                    p = smoothed(np.exp(log_probs(model, x)), near, train, np.eye(len(intents))[y[train]])[test]
                    right.setdefault(name + ", smoothed", []).append(np.mean(p.argmax(1) == y[test]))
            print(k, {name: round(100 * float(np.mean(v)), 1) for name, v in right.items()}, flush=True)


if __name__ == "__main__":
    main()

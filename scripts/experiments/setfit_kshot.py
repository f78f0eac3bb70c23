"""A SetFit-style contrastive fine-tune of the encoder on the person's k labels per intent, all 77
BANKING77 intents, development half only: does it reach issue 34's 85% at k=5, and at what cost on
this CPU?

SetFit's recipe (Tunstall et al. 2022): pairs of labelled messages, 1 for the same intent and 0 for
two different ones, balanced; CosineSimilarityLoss on the encoder's mean-pooled, normalised vectors;
one epoch, AdamW lr 2e-5, batch 16; then the logistic regression on the fine-tuned vectors. The
fine-tuned encoder is another model: every message of the file has to be embedded again (timed
here on the test messages, the file's cost scales with it). embedding_kshot.py's draws.
Writes docs/learning/setfit.json.

Usage: .venv/bin/python scripts/experiments/setfit_kshot.py [K] [DRAWS] [PAIRS_PER_MESSAGE]
"""
from __future__ import annotations

import copy
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from embedding_kshot import BANKING10, development_half, draw, machine

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import TicketFeatures, learn, similarity_scores

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "learning" / "setfit.json"
CACHE = ROOT / ".cache" / "banking77_dev_minilm.npy"


def pairs(texts: list[str], y: np.ndarray, per_message: int, seed: int) -> list[tuple[str, str, float]]:
    """per_message positive and as many negative pairs for every labelled message, shuffled."""
    rng = random.Random(seed)
    by_label = {label: [t for t, g in zip(texts, y) if g == label] for label in set(y.tolist())}
    out = []
    for text, label in zip(texts, y.tolist()):
        others = [g for g in by_label if g != label]
        for _ in range(per_message):
            out.append((text, rng.choice(by_label[label]), 1.0))
            out.append((text, rng.choice(by_label[rng.choice(others)]), 0.0))
    rng.shuffle(out)
    return out


def pooled(encoder: SentenceEncoder, model, texts: list[str]) -> torch.Tensor:
    encoded = encoder.tokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="pt")
    hidden = model(**encoded).last_hidden_state                                   # [B, S, H]
    mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)               # [B, S, 1]
    return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)


def fine_tuned(encoder: SentenceEncoder, texts: list[str], y: np.ndarray, per_message: int, seed: int):
    torch.manual_seed(seed)
    model = copy.deepcopy(encoder.model).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    batch = pairs(texts, y, per_message, seed)
    for start in range(0, len(batch), 16):
        if start % 320 == 0:
            print(f"pair {start} of {len(batch)}", file=sys.stderr, flush=True)
        a, b, same = zip(*batch[start:start + 16])
        cosine = (pooled(encoder, model, list(a)) * pooled(encoder, model, list(b))).sum(-1)     # [B]
        loss = torch.nn.functional.mse_loss(cosine, torch.tensor(same))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return SentenceEncoder(encoder.name + "+setfit", "", encoder.tokenizer, model.eval()), len(batch)


def main() -> None:
    given = [int(a) for a in sys.argv[1:4]]
    k, draws, per_message = given + [5, 1, 5][len(given):]
    encoder, frame = SentenceEncoder.load(), development_half()
    vectors = np.load(CACHE)
    intents = sorted(frame["category"].unique())
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    gold, texts = frame["category"].to_numpy(), frame["text"].tolist()
    y = np.array([intents.index(g) for g in gold])
    runs = []
    for seed in range(draws):
        train, test = draw(gold, intents, k, seed)
        rows = np.concatenate([train, test])
        start = time.perf_counter()
        tuned, n_pairs = fine_tuned(encoder, [texts[r] for r in train], y[train], per_message, seed)
        tune_s = time.perf_counter() - start
        print(f"fine-tuned on {n_pairs} pairs in {tune_s:.0f} s", file=sys.stderr, flush=True)
        start = time.perf_counter()
        tuned_vectors = tuned.embed([texts[r] for r in rows], batch_size=64)
        embed_s = time.perf_counter() - start
        result = {"seed": seed, "pairs": n_pairs, "fine_tune_seconds": tune_s, "embed_seconds": embed_s,
                  "embedded": len(rows)}
        z = np.full((len(rows), len(names)), -np.log(len(names)))
        taught = {i: names[y[r]] for i, r in enumerate(train)}
        tested = np.arange(len(train), len(rows))
        for name, x, prototypes in (("minilm", vectors[rows], encoder.embed(names)),
                                    ("setfit", tuned_vectors, tuned.embed(names))):
            features = TicketFeatures([""] * len(rows), embeddings=x)
            alone = learn(features, z, taught, names)
            both = learn(features, z, taught, names, similarity=similarity_scores(x, prototypes))
            result[name] = {"learned_alone": float(np.mean(alone.labels[tested] == y[test])),
                            "learned_and_similarity": float(np.mean(both.labels[tested] == y[test]))}
        print(json.dumps(result), flush=True)
        runs.append(result)
    out = json.loads(OUT.read_text()) if OUT.exists() else {}
    out[f"k={k}, {per_message} pairs per message"] = {"machine": machine(), "draws": runs}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"-> {OUT}")


if __name__ == "__main__":
    main()

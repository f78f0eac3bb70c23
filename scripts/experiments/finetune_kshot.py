"""A contrastive fine-tune of the encoder on the person's k labels per intent, measured again
(setfit_kshot.py's timing was taken on an overloaded host: one step of batch 16 took 8 s there, about
0.45 s on an idle one). Does a fine-tune that fits in a minute or two of this CPU lift learn() (as the
app runs it: names as prototypes, smoothing over the file) towards issue 34's 85% / 90% on 77 intents?

Two losses, both on the encoder's mean-pooled, normalised vectors, AdamW, the intents' names taken as
one more labelled text each:
- pairs: SetFit's (Tunstall et al. 2022): pairs of labelled texts, 1 for one intent, 0 for two,
  CosineSimilarityLoss (mean squared error of the cosine).
- supcon: supervised contrastive (Khosla et al. 2020), batches of P intents x all their texts: each
  text is pulled to its intent's other texts and pushed from the batch's others (temperature 0.05,
  sentence-transformers' MultipleNegativesRankingLoss scale of 20).
Then every message of the half's chosen intents is embedded again by the fine-tuned encoder (a
fine-tuned encoder is another model: the file is embedded again) and learn() answers, beside learn()
on the frozen vectors, on the same draw. Development half only unless --half held-out.

Usage: .venv/bin/python scripts/experiments/finetune_kshot.py banking77 --k 5 --draws 1 --loss supcon
       --epochs 4 --lr 5e-5
Prints one JSON line per draw; --out FILE appends them to a JSON list.
"""
from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from embedding_kshot import BANKING10, development_half, draw, machine
from prototype_kshot import held_out_half, vectors_of

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import LabelSimilarity, TicketFeatures, learn


def pooled(encoder: SentenceEncoder, model, texts: list[str]) -> torch.Tensor:
    encoded = encoder.tokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="pt")
    hidden = model(**encoded).last_hidden_state                                   # [B, S, H]
    mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)               # [B, S, 1]
    return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)


def pair_batches(texts, labels, per_text: int, epochs: int, rng: random.Random):
    by_label = {}
    for text, label in zip(texts, labels):
        by_label.setdefault(label, []).append(text)
    for _ in range(epochs):
        pairs = []
        for text, label in zip(texts, labels):
            others = [g for g in by_label if g != label]
            for _ in range(per_text):
                pairs.append((text, rng.choice(by_label[label]), 1.0))
                pairs.append((text, rng.choice(by_label[rng.choice(others)]), 0.0))
        rng.shuffle(pairs)
        for start in range(0, len(pairs), 16):
            yield pairs[start:start + 16]


def intent_batches(labels, per_batch: int, epochs: int, rng: random.Random):
    """Indexes of every text of per_batch intents at a time, each intent once per epoch."""
    intents = sorted(set(labels))
    for _ in range(epochs):
        rng.shuffle(intents)
        for start in range(0, len(intents), per_batch):
            chosen = set(intents[start:start + per_batch])
            yield [i for i, label in enumerate(labels) if label in chosen]


def supcon_loss(vectors: torch.Tensor, labels: torch.Tensor, temperature: float = 0.05) -> torch.Tensor:
    logits = vectors @ vectors.T / temperature
    self_mask = torch.eye(len(labels), dtype=torch.bool)
    logits = logits.masked_fill(self_mask, float("-inf"))
    log_p = logits.log_softmax(dim=1).masked_fill(self_mask, 0.0)
    positive = (labels[:, None] == labels[None, :]) & ~self_mask
    return -(log_p * positive).sum(1).div(positive.sum(1).clamp(min=1)).mean()


def fine_tuned(encoder: SentenceEncoder, texts: list[str], labels: list[int], args, seed: int,
               unlabelled: list[str] = ()):
    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = copy.deepcopy(encoder.model).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    steps = 0
    if args.loss == "pairs":
        for batch in pair_batches(texts, labels, args.pairs, args.epochs, rng):
            a, b, same = zip(*batch)
            cosine = (pooled(encoder, model, list(a)) * pooled(encoder, model, list(b))).sum(-1)
            loss = torch.nn.functional.mse_loss(cosine, torch.tensor(same))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
    else:
        file = list(unlabelled)
        rng.shuffle(file)
        for step, rows in enumerate(intent_batches(labels, args.intents_per_batch, args.epochs, rng)):
            loss = supcon_loss(pooled(encoder, model, [texts[r] for r in rows]),
                               torch.tensor([labels[r] for r in rows]))
            if args.simcse:     # the file's own tickets, each its own class, dropout makes the two views
                chunk = file[(step * args.simcse) % len(file):][:args.simcse]
                views = pooled(encoder, model, chunk + chunk)
                loss = loss + supcon_loss(views, torch.arange(len(chunk)).repeat(2))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
    return SentenceEncoder(encoder.name + "+tuned", "", encoder.tokenizer, model.eval()), steps


def accuracy(x: np.ndarray, prototypes: np.ndarray, taught: dict, names: list[str], y, test) -> float:
    similarity = LabelSimilarity.of(x, prototypes)
    z = np.full(similarity.scores.shape, -np.log(len(names)))
    learned = learn(TicketFeatures([""] * len(x), embeddings=x), z, taught, names, similarity=similarity)
    return float(np.mean(learned.labels[test] == y[test]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("set", choices=("banking10", "banking77"))
    parser.add_argument("--half", choices=("development", "held-out"), default="development")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--draws", default="0")
    parser.add_argument("--loss", choices=("pairs", "supcon"), default="supcon")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--pairs", type=int, default=5, help="pairs: positives (and negatives) per text")
    parser.add_argument("--intents-per-batch", type=int, default=10)
    parser.add_argument("--simcse", type=int, default=0, help="supcon: the file's tickets per step, SimCSE")
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.set_num_threads(2)
    encoder = SentenceEncoder.load()
    frame = development_half() if args.half == "development" else held_out_half()
    vectors = vectors_of(args.half, frame, encoder)
    intents = sorted(BANKING10) if args.set == "banking10" else sorted(frame["category"].unique())
    rows = np.flatnonzero(frame["category"].isin(intents).to_numpy())
    gold, frozen = frame["category"].to_numpy()[rows], vectors[rows]
    texts = [frame["text"].tolist()[r] for r in rows]
    y = np.array([intents.index(g) for g in gold])
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    results = []
    for seed in (int(s) for s in args.draws.split(",")):
        train, test = draw(gold, intents, args.k, seed)
        taught = {int(r): names[y[r]] for r in train}
        before = accuracy(frozen, encoder.embed(names), taught, names, y, test)
        start = time.perf_counter()
        tuned, steps = fine_tuned(encoder, [texts[r] for r in train] + names,
                                  [int(y[r]) for r in train] + list(range(len(names))), args, seed, texts)
        tune_s = time.perf_counter() - start
        start = time.perf_counter()
        x = tuned.embed(texts, batch_size=64)
        embed_s = time.perf_counter() - start
        after = accuracy(x, tuned.embed(names), taught, names, y, test)
        result = {"set": args.set, "half": args.half, "k": args.k, "seed": seed, "loss": args.loss,
                  "epochs": args.epochs, "lr": args.lr, "pairs": args.pairs if args.loss == "pairs" else None,
                  "intents_per_batch": args.intents_per_batch if args.loss == "supcon" else None, "simcse": args.simcse,
                  "steps": steps, "fine_tune_s": round(tune_s, 1), "embedded": len(texts),
                  "embed_s": round(embed_s, 1), "frozen": round(100 * before, 1), "tuned": round(100 * after, 1),
                  "machine": machine()}
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.out:
        out = Path(args.out)
        out.write_text(json.dumps((json.loads(out.read_text()) if out.exists() else []) + results, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())

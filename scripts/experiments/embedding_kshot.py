"""k-shot accuracy of the learned part on sentence embeddings against TF-IDF, and the encoder's speed.

On a development half of BANKING77's training split (per intent, a seeded half, the one holding the
messages docs/learning already tuned on; the other half is held out and not read here): for the 10 intents the learning docs use and for all 77, k = 2, 5, 10
labelled messages per intent drawn from the development half, every other development message of
those intents (at most TEST_PER_INTENT each) as the test, means over seeded draws of:
  tfidf        TF-IDF + logistic regression exactly as the app learns today (learn.features, learn.model)
  minilm_ovr   all-MiniLM-L6-v2 embeddings + the same regression (one-vs-rest liblinear, C=10)
  minilm_mn    embeddings + one multinomial logistic regression (lbfgs, C=10)
  zero_shot    no labels: cosine between a message and each intent's name
Then the encoder's speed on short messages and on helpdesk tickets of about 110 tokens.
Writes docs/learning/embeddings.json. No language model here: combined figures are the learned
part's weighed against it (scripts/experiments/learning_curve.py).

Usage: .venv/bin/python scripts/experiments/embedding_kshot.py
"""
from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn.features import TicketFeatures
from triage_app.learn.model import LearnConfig, TextModel

ROOT = Path(__file__).resolve().parents[2]
BANKING = ROOT.parent / "shared" / "data" / "banking77_train.csv"
OUT = ROOT / "docs" / "learning" / "embeddings.json"
CACHE = ROOT / ".cache" / "banking77_dev_minilm.npy"
# the 10 intents of docs/learning (scripts/experiments/lm_scores.py, BANKING_SETS["banking10"]), as named there
BANKING10 = {"card_arrival": "card delivery", "lost_or_stolen_card": "lost or stolen card",
             "exchange_rate": "exchange rate", "change_pin": "change PIN", "top_up_failed": "top up failed",
             "request_refund": "refund request", "terminate_account": "close account",
             "transfer_timing": "transfer timing", "cash_withdrawal_charge": "cash withdrawal fee",
             "verify_my_identity": "identity verification"}
KS = (2, 5, 10)
DRAWS = {"banking10": 20, "banking77": 5}
TEST_PER_INTENT = 30


def development_half() -> pd.DataFrame:
    """Per intent, a seeded half of the training split's messages: the part tuned on. It is the half
    that holds the 400 banking10 messages the learning docs already tuned on (docs/learning/scores),
    so the other half, held out, is messages nothing in this repository has looked at."""
    frame = pd.read_csv(BANKING)
    keep = []
    for _, rows in frame.groupby("category"):
        index = list(rows.index)
        random.Random(0).shuffle(index)
        keep += index[len(index) // 2:]
    return frame.loc[sorted(keep)].reset_index(drop=True)


def embeddings(encoder: SentenceEncoder, texts: list[str]) -> tuple[np.ndarray, float]:
    if CACHE.exists():
        vectors = np.load(CACHE)
        if len(vectors) == len(texts):
            return vectors, float("nan")
    start = time.perf_counter()
    vectors = encoder.embed(texts, batch_size=64)
    seconds = time.perf_counter() - start
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    np.save(CACHE, vectors)
    return vectors, seconds


def draw(gold: np.ndarray, intents: list[str], k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    train, test = [], []
    for intent in intents:
        rows = list(np.flatnonzero(gold == intent))
        rng.shuffle(rows)
        train += rows[:k]
        test += rows[k:k + TEST_PER_INTENT]
    return np.array(train), np.array(test)


def accuracies(name: str, frame: pd.DataFrame, vectors: np.ndarray, encoder: SentenceEncoder) -> dict:
    intents = sorted(BANKING10) if name == "banking10" else sorted(frame["category"].unique())
    rows = np.flatnonzero(frame["category"].isin(intents).to_numpy())
    texts, gold, x = frame["text"].iloc[rows].tolist(), frame["category"].iloc[rows].to_numpy(), vectors[rows]
    target = {intent: j for j, intent in enumerate(intents)}
    y = np.array([target[g] for g in gold])
    tfidf = TicketFeatures(texts)    # fitted on every message of the set, as the app fits a file
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    label_vectors = encoder.embed(names)
    zero_shot = float(np.mean(np.argmax(x @ label_vectors.T, axis=1) == y))
    out = {"intents": len(intents), "messages": len(rows), "zero_shot": zero_shot, "names": names, "k": {}}
    for k in KS:
        runs = {"tfidf": [], "minilm_ovr": [], "minilm_mn": []}
        for seed in range(DRAWS[name]):
            train, test = draw(gold, intents, k, seed)
            model = TextModel.fit(tfidf.rows(train), y[train], len(intents), LearnConfig())
            runs["tfidf"].append(np.mean(np.argmax(model.log_probs(tfidf.rows(test)), 1) == y[test]))
            ovr = TextModel.fit(x[train], y[train], len(intents), LearnConfig())
            runs["minilm_ovr"].append(np.mean(np.argmax(ovr.log_probs(x[test]), 1) == y[test]))
            mn = LogisticRegression(C=10.0, max_iter=2000).fit(x[train], y[train])
            runs["minilm_mn"].append(np.mean(mn.predict(x[test]) == y[test]))
        out["k"][k] = {method: {"mean": float(np.mean(v)), "std": float(np.std(v))} for method, v in runs.items()}
        out["k"][k]["test_messages"] = int(len(test))
        print(name, k, {m: round(100 * r["mean"], 1) for m, r in out["k"][k].items() if isinstance(r, dict)},
              flush=True)
    return out


def speed(encoder: SentenceEncoder, frame: pd.DataFrame) -> dict:
    short = frame["text"].tolist()[:512]
    tickets = pd.read_csv(ROOT / "resources" / "helpdesk_tickets.csv")["customer_message"].astype(str).tolist()
    lengths = encoder.token_lengths(tickets)
    near = [t for t, n in zip(tickets, lengths) if 90 <= n <= 130][:256]
    out = {}
    for name, texts in (("banking_messages", short), ("helpdesk_tickets_90_130_tokens", near)):
        encoder.embed(texts[:32])   # warm up
        start = time.perf_counter()
        encoder.embed(texts, batch_size=32)
        seconds = time.perf_counter() - start
        out[name] = {"texts": len(texts), "mean_tokens": float(np.mean(encoder.token_lengths(texts))),
                     "per_second": len(texts) / seconds}
        print(name, out[name], flush=True)
    return out


def machine() -> dict:
    import torch
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("Model name")), "")
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return {"cpu": model, "cores": os.cpu_count(), "amx_bf16": "amx_bf16" in flags, "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(), "python": platform.python_version(),
            "load_average": os.getloadavg()[0], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def main() -> None:
    encoder = SentenceEncoder.load()
    frame = development_half()
    vectors, seconds = embeddings(encoder, frame["text"].tolist())
    result = {"machine": machine(), "encoder": encoder.identity, "development_messages": len(frame),
              "embedding_seconds": seconds, "speed": speed(encoder, frame)}
    for name in DRAWS:
        result[name] = accuracies(name, frame, vectors, encoder)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {OUT}")


if __name__ == "__main__":
    main()

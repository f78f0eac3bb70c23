"""How fast the encoder embeds real-length tickets, and what a dynamic int8 copy would buy.

Issue 34's target is 10,000 tickets of about 110 tokens in 5 minutes on 2 CPU cores (33 a second).
Measures, on the helpdesk tickets of 90-130 tokens, float32 as the app runs it and torch's dynamic
int8 quantisation of the Linear layers (a different model: its vectors are compared with float32's,
never taken for them), alternating the two so that the machine's load falls on both alike.
Writes docs/learning/encoder_speed.json.

Usage: .venv/bin/python scripts/experiments/encoder_speed.py
"""
from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from triage_app.engine.encoder import SentenceEncoder

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "learning" / "encoder_speed.json"
ROUNDS = 2


def per_second(encoder: SentenceEncoder, texts: list[str], batch_size: int) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    vectors = encoder.embed(texts, batch_size=batch_size)
    return len(texts) / (time.perf_counter() - start), vectors


def main() -> None:
    encoder = SentenceEncoder.load()
    int8 = copy.copy(encoder)
    int8.model = torch.ao.quantization.quantize_dynamic(copy.deepcopy(encoder.model), {torch.nn.Linear},
                                                        dtype=torch.qint8)
    tickets = pd.read_csv(ROOT / "resources" / "helpdesk_tickets.csv")["customer_message"].astype(str).tolist()
    texts = [t for t, n in zip(tickets, encoder.token_lengths(tickets)) if 90 <= n <= 130]
    encoder.embed(texts[:16])
    int8.embed(texts[:16])
    runs = {"float32 batch 32": [], "float32 batch 8": [], "int8 batch 32": []}
    for _ in range(ROUNDS):
        speed, exact = per_second(encoder, texts, 32)
        runs["float32 batch 32"].append(speed)
        runs["float32 batch 8"].append(per_second(encoder, texts, 8)[0])
        speed, quantised = per_second(int8, texts, 32)
        runs["int8 batch 32"].append(speed)
        print({k: round(v[-1], 2) for k, v in runs.items()}, flush=True)
    cosine = np.sum(exact * quantised, axis=1)
    out = {"texts": len(texts), "mean_tokens": float(np.mean(encoder.token_lengths(texts))),
           "per_second": {k: float(np.mean(v)) for k, v in runs.items()},
           "int8_cosine_to_float32": {"min": float(cosine.min()), "mean": float(cosine.mean())},
           "torch_threads": torch.get_num_threads(), "load_average": os.getloadavg()[0],
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

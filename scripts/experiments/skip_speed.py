"""How much faster the rest of a file is answered from a person's labels than by the language model.

The window offers to stop the model once cross-validation says the person's labels alone answer
as well (ui/learning/session.py). This measures, side by side in one process on the sample file,
what each costs per ticket: the bundled SmolLM2-135M scoring tickets (channel, the default, CPU,
float32, label names only), and learning from 30 labels per label then answering every ticket
(the file's TF-IDF, the retrain, the prediction). Writes docs/learning/skip_speed.json.

Usage: .venv/bin/python scripts/experiments/skip_speed.py [MODEL_TICKETS]
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from triage_app.engine import device, models
from triage_app.engine.classifier import Classifier
from triage_app.engine.labels import LabelSet
from triage_app.files.reader import read_tickets
from triage_app.learn import TicketFeatures, learn

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "learning" / "skip_speed.json"


def main(model_tickets: int = 48) -> dict:
    frame = read_tickets(ROOT / "resources" / "sample_tickets.csv").frame
    texts, gold = frame["text"].astype(str).tolist(), frame["category"].astype(str).tolist()
    names = sorted(set(gold))
    classifier = Classifier(models.load(models.SMOLLM2, device.choose("cpu", "float32")), LabelSet.from_names(names))
    start = time.perf_counter()
    for _ in classifier.run(texts[:model_tickets]):
        pass
    model_s = time.perf_counter() - start
    start = time.perf_counter()
    features = TicketFeatures(texts)
    taught = {r: gold[r] for label in names for r in [i for i, g in enumerate(gold) if g == label][:30]}
    learned = learn(features, np.full((len(texts), len(names)), np.nan), taught, names)
    learned_s = time.perf_counter() - start
    out = {"file": "resources/sample_tickets.csv", "tickets": len(texts), "labels": names,
           "model": {"tickets": model_tickets, "seconds": round(model_s, 2),
                     "tickets_per_s": round(model_tickets / model_s, 2)},
           "learned": {"labels_taught": len(taught), "tickets": len(texts), "seconds": round(learned_s, 3),
                       "tickets_per_s": round(len(texts) / learned_s, 1)},
           "speedup": round((len(texts) / learned_s) / (model_tickets / model_s)),
           "load_average": os.getloadavg()[0], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"}
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    result = main(*(int(a) for a in sys.argv[1:]))
    OUT.write_text(json.dumps(result, indent=1) + "\n")

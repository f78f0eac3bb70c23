"""The learned part smoothed over the file's neighbours (learn/neighbours.py), in learn() itself, where
cross-validation takes it: learn() with and without it, the same draws, on BANKING77's development
half (or, once, the held-out half). combined_weighing.py's draws and parts: no language model (uniform
z; none is stored on 77 labels nor on the held-out half), the similarity to the intents' names and their
prototypes given.

Usage: .venv/bin/python scripts/experiments/neighbours_kshot.py development|held-out banking10|banking77
       [--draws N] [--ks 5,10]
Writes /tmp/neighbours_<half>_<set>.json (merged into docs/learning/neighbours.json by hand).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from embedding_kshot import BANKING10, development_half, draw, machine
from prototype_kshot import held_out_half, vectors_of

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import LabelSimilarity, TicketFeatures, learn


class Unsmoothed(TicketFeatures):
    def neighbours(self):
        return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("half", choices=("development", "held-out"))
    parser.add_argument("set", choices=("banking10", "banking77"))
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--ks", default="5,10")
    args = parser.parse_args()
    encoder = SentenceEncoder.load()
    frame = development_half() if args.half == "development" else held_out_half()
    vectors = vectors_of(args.half, frame, encoder)
    intents = sorted(BANKING10) if args.set == "banking10" else sorted(frame["category"].unique())
    rows = np.flatnonzero(frame["category"].isin(intents).to_numpy())
    gold, x = frame["category"].to_numpy()[rows], vectors[rows]
    y = np.array([intents.index(g) for g in gold])
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    similarity = LabelSimilarity.of(x, encoder.embed(names))
    sides = {"before": Unsmoothed([""] * len(y), embeddings=x), "after": TicketFeatures([""] * len(y), embeddings=x)}
    z = np.full(similarity.scores.shape, -np.log(len(names)))
    out = {"set": args.set, "half": args.half, "draws": args.draws, "machine": machine(), "k": {}}
    for k in (int(k) for k in args.ks.split(",")):
        runs = {side: [] for side in sides} | {"smoothed": [], "cpu_s": {side: [] for side in sides}}
        for seed in range(args.draws):
            train, test = draw(gold, intents, k, seed)
            taught = {int(r): names[y[r]] for r in train}
            for side, features in sides.items():
                start = time.process_time()
                learned = learn(features, z, taught, names, similarity=similarity)
                runs["cpu_s"][side].append(time.process_time() - start)
                runs[side].append(float(np.mean(learned.labels[test] == y[test])))
                if side == "after":
                    runs["smoothed"].append(learned.smoothed)
        out["k"][k] = {side: round(100 * float(np.mean(runs[side])), 1) for side in sides} | {
            "after std": round(100 * float(np.std(runs["after"])), 1),
            "smoothed share": float(np.mean(runs["smoothed"])),
            "cpu s": {side: round(float(np.mean(v)), 2) for side, v in runs["cpu_s"].items()}, "runs": runs}
        print(args.set, args.half, k, {key: v for key, v in out["k"][k].items() if key != "runs"}, flush=True)
    Path(f"/tmp/neighbours_{args.half}_{args.set}.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

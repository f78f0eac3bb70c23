"""The parts' weighing (issue 34): learn()'s combined answer before and after the weights were chosen
among candidate sets of parts by cross-validation (learn/weights.py), against the learned part alone.

- stored: banking10, banking6, sample, helpdesk with their stored SmolLM2 scores (docs/learning/scores),
  eval --learning-curve's split and draws (quality.curve), the encoder's part as eval builds it
  (cli/evaluate.curve_embeddings: similarity to the label names and their prototypes).
- banking10 / banking77 without a language model (uniform z; none is stored on 77 labels nor on the
  held-out half): prototype_kshot.py's draws, similarity and prototypes given.
"Before" is learn() with every part fitted on every row (weights.fitted on all of them, the old rule).
Usage: .venv/bin/python combined_weighing.py development|held-out SET [--draws N] [--ks 2,5,10] [--stored]
Writes /tmp/combined_weighing_<half>_<kind>_<set>.json (merged into docs/learning/weighing.json by hand).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from embedding_kshot import BANKING10, development_half, draw, machine
from prototype_kshot import held_out_half, vectors_of

import triage_app.learn.model as model
from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import LabelSimilarity, TicketFeatures, learn
from triage_app.learn.weights import P, S, Z, fit_weights, fitted
from triage_app.quality.curve import drawn, split

DOCS = Path(__file__).resolve().parents[2] / "docs" / "learning"


def old_rule(z, p, targets, max_weight, s=None, seed=0, every_label=True):
    return fitted((z, p, s), (Z, P) if s is None else (Z, P, S), targets, max_weight)


def both_rules(features, z, taught, names, similarity, test, truth) -> dict:
    out = {}
    for rule, fit in (("before", old_rule), ("after", fit_weights)):
        model.fit_weights = fit
        start = time.process_time()
        learned = learn(features, z, taught, names, similarity=similarity)
        seconds = time.process_time() - start
        alone = np.argmax(learned.text_model.log_probs(features.rows(test)), axis=1)
        w = learned.weights
        out[rule] = {"combined": float(np.mean(learned.labels[test] == truth)),
                     "learned": float(np.mean(alone == truth)), "cpu_s": seconds,
                     "weights": [w.lm, w.learned, w.similarity], "took": learned.took_prototypes}
    model.fit_weights = fit_weights
    return out


def stored(name: str, encoder, ks, draws) -> dict:
    from triage_app.cli.evaluate import curve_embeddings
    from triage_app.engine.labels import LabelSet
    from triage_app.quality.evaluate import GoldSet
    data = np.load(DOCS / "scores" / f"{name}.npz")
    texts, gold, names, z = data["texts"].tolist(), data["gold"].tolist(), data["names"].tolist(), data["scores"]
    with tempfile.TemporaryDirectory() as folder:
        built = curve_embeddings(argparse.Namespace(db=Path(folder) / "e.sqlite3"), encoder, GoldSet(texts, gold),
                                 LabelSet.from_names(names), None)
    features = TicketFeatures(texts, built["embeddings"])
    pools, test = split(gold, names, 20, 0.5, 0)
    truth = np.array([names.index(gold[r]) for r in test])
    return {k: [both_rules(features, z, drawn(pools, names, k, 0, d), names, built["similarity"], test, truth)
                for d in range(draws)] for k in ks}


def kshot(name: str, half: str, encoder, ks, draws) -> dict:
    frame = development_half() if half == "development" else held_out_half()
    vectors = vectors_of(half, frame, encoder)
    intents = sorted(BANKING10) if name == "banking10" else sorted(frame["category"].unique())
    rows = np.flatnonzero(frame["category"].isin(intents).to_numpy())
    gold, x = frame["category"].to_numpy()[rows], vectors[rows]
    y = np.array([intents.index(g) for g in gold])
    names = [BANKING10.get(i, i.replace("_", " ")) for i in intents]
    similarity = LabelSimilarity.of(x, encoder.embed(names))
    features = TicketFeatures([""] * len(y), embeddings=x)
    z = np.full(similarity.scores.shape, -np.log(len(names)))
    out = {}
    for k in ks:
        out[k] = []
        for seed in range(draws):
            train, test = draw(gold, intents, k, seed)
            out[k].append(both_rules(features, z, {int(r): names[y[r]] for r in train}, names, similarity,
                                     test, y[test]))
    return out


def summary(runs: dict) -> dict:
    def mean(rule, what):
        return round(100 * float(np.mean([r[rule][what] for r in rs])), 1)
    table = {}
    for k, rs in runs.items():
        table[k] = {f"{rule} {what}": mean(rule, what) for rule in ("before", "after") for what in ("combined", "learned")}
        table[k]["after std"] = round(100 * float(np.std([r["after"]["combined"] for r in rs])), 1)
        table[k]["after weights"] = np.round(np.mean([r["after"]["weights"] for r in rs], axis=0), 2).tolist()
        table[k]["after no LM"] = float(np.mean([r["after"]["weights"][0] == 0 for r in rs]))
        table[k]["cpu s before/after"] = [round(float(np.mean([r[x]["cpu_s"] for r in rs])), 2) for x in ("before", "after")]
    return table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("half", choices=("development", "held-out"))
    parser.add_argument("set")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--ks", default="2,5,10")
    parser.add_argument("--stored", action="store_true", help="banking10 with its stored language-model scores")
    args = parser.parse_args()
    ks = tuple(int(k) for k in args.ks.split(","))
    encoder = SentenceEncoder.load()
    start = time.time()
    if args.set in ("banking10", "banking77") and not args.stored:
        runs = kshot(args.set, args.half, encoder, ks, args.draws)
    else:
        assert args.half == "development", "the stored scores are of the development half only"
        runs = stored(args.set, encoder, ks, args.draws)
    out = {"set": args.set, "half": args.half, "draws": args.draws, "machine": machine(),
           "seconds": time.time() - start, "summary": summary(runs), "runs": runs}
    kind = "kshot" if args.set in ("banking10", "banking77") and not args.stored else "stored"
    Path(f"/tmp/combined_weighing_{args.half}_{kind}_{args.set}.json").write_text(json.dumps(out, indent=1) + "\n")
    print(args.set, args.half, json.dumps(out["summary"], indent=1), flush=True)


if __name__ == "__main__":
    main()

"""None of these, measured: BANKING77's development half with some intents held out as out of scope.

Each draw picks OUT_OF_SCOPE intents (seeded) that the label set does not name; the other intents are
the labels, k labelled messages each (the person's labels), 30 other messages each tested; every
development message of the held-out intents is a ticket no label fits. The answer is learn() on the
MiniLM embeddings with the similarity to the named labels and no language model (uniform z; none
measured on 77 labels here), and learn.none_of_these fits the threshold on the cross-validated
answers (COST); MARKED misfits the person labelled "none of these" (taken from the held-out intents
and left out of the test) are reported as the line the window would show (how many of them it catches). Reported: the share of out-of-scope
tickets caught, and what it costs the in-scope ones (right answers turned to "none of these").
Writes docs/learning/none_of_these.json. The held-out half of the split is not read.

Usage: .venv/bin/python scripts/experiments/none_of_these_oos.py
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
from embedding_kshot import BANKING10, development_half, machine

from triage_app.engine.encoder import SentenceEncoder
from triage_app.learn import TicketFeatures, fit_none_of_these, learn, similarity_scores
from triage_app.learn.none_of_these import COST

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "learning" / "none_of_these.json"
CACHE = ROOT / ".cache" / "banking77_dev_minilm.npy"
OUT_OF_SCOPE, TEST_PER_INTENT, MARKED, DRAWS = 10, 30, 10, 3


def one_draw(frame, vectors, encoder, k: int, seed: int) -> dict:
    rng = random.Random(seed)
    intents = sorted(frame["category"].unique())
    outside = set(rng.sample(intents, OUT_OF_SCOPE))
    inside = [i for i in intents if i not in outside]
    names = [BANKING10.get(i, i.replace("_", " ")) for i in inside]
    gold = frame["category"].to_numpy()
    train, test, misfit = [], [], np.flatnonzero(np.isin(gold, list(outside))).tolist()
    for intent in inside:
        rows = np.flatnonzero(gold == intent).tolist()
        rng.shuffle(rows)
        train, test = train + rows[:k], test + rows[k:k + TEST_PER_INTENT]
    rng.shuffle(misfit)
    marked, misfit = misfit[:MARKED], misfit[MARKED:]
    rows = np.array(train + test + marked + misfit)
    x = vectors[rows]
    y = np.array([inside.index(g) if g in inside else -1 for g in gold[rows]])
    s = similarity_scores(x, encoder.embed(names))
    z = np.full(s.shape, -np.log(len(names)))
    learned = learn(TicketFeatures([""] * len(rows), embeddings=x), z, {i: names[y[i]] for i in range(len(train))},
                    names, similarity=s)
    tested = np.arange(len(train), len(train) + len(test))
    marked_at = np.arange(len(train) + len(test), len(train) + len(test) + len(marked))
    outside_at = np.arange(len(train) + len(test) + len(marked), len(rows))
    right = learned.labels[tested] == y[tested]
    out = {"seed": seed, "out_of_scope_intents": sorted(outside), "in_scope_test": len(tested),
           "out_of_scope_test": len(outside_at), "in_scope_accuracy": float(right.mean())}
    none = fit_none_of_these(learned.cross_validated, learned.confidence[marked_at], COST)
    flagged = none.fits_none(learned.confidence)
    out.update(threshold=none.threshold, caught=float(flagged[outside_at].mean()),
               right_answers_lost=float(flagged[tested][right].mean()),
               wrong_answers_flagged=float(flagged[tested][~right].mean()),
               in_scope_flagged=float(flagged[tested].mean()), marked_caught=none.caught, line=none.line())
    print(json.dumps(out), flush=True)
    return out


def main() -> None:
    encoder, frame = SentenceEncoder.load(), development_half()
    vectors = np.load(CACHE)
    assert len(vectors) == len(frame), "run embedding_kshot.py first: it caches the development half's vectors"
    result = {"machine": machine(), "encoder": encoder.identity, "cost": COST, "out_of_scope_intents": OUT_OF_SCOPE}
    for k in (5, 10):
        result[f"k={k}"] = [one_draw(frame, vectors, encoder, k, seed) for seed in range(DRAWS)]
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {OUT}")


if __name__ == "__main__":
    main()

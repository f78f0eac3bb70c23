"""Combined (the bundled SmolLM2's stored scores weighed against the learned part) on TF-IDF and on
sentence embeddings, on the banking10 rows of the development half only.

docs/learning/scores/banking10.npz holds the language model's scores of 400 banking10 messages drawn
from the training split; all of them lie in the development half (scripts/experiments/embedding_kshot.py,
development_half), and any that did not would be left out, so nothing held out is looked at. The learning curve is the
package's (quality.curve.learning_curve), 20 draws. Writes docs/learning/embeddings_combined.json.

Usage: .venv/bin/python scripts/experiments/embedding_combined.py
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from embedding_kshot import development_half

from triage_app.engine.encoder import SentenceEncoder
from triage_app.quality.curve import learning_curve

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "learning"
DRAWS = 20


def main() -> None:
    data = np.load(DOCS / "scores" / "banking10.npz")
    texts, gold, names, z = data["texts"].tolist(), data["gold"].tolist(), data["names"].tolist(), data["scores"]
    development = set(development_half()["text"].tolist())
    keep = [r for r, text in enumerate(texts) if text in development]
    texts, gold, z = [texts[r] for r in keep], [gold[r] for r in keep], z[keep]
    vectors = SentenceEncoder.load().embed(texts)
    out = {"set": "banking10, development half", "n": len(texts), "draws": DRAWS, "model": str(data["model"])}
    for name, features in (("tfidf", None), ("minilm", vectors)):
        curve = learning_curve(texts, gold, z, names, ks=(0, 2, 5, 10), draws=DRAWS, embeddings=features,
                               log=lambda line: print(name, line, flush=True))
        out[name] = {"n_test": len(curve.test_rows), "table": curve.table(),
                     "mean": {p.k: {part: p.mean(part) for part in ("zero_shot", "learned", "combined")}
                              for p in curve.points}}
        print(curve.table(), flush=True)
    (DOCS / "embeddings_combined.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

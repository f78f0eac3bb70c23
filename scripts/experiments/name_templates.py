"""Issue 34's 77 intents: the intents' names as more than one example each. learn() adds each label's prototype
(its name, embedded) as one labelled row; here each name is also embedded inside a few sentence templates, each
one more labelled row (or their mean as the one row), against learn()'s one row per name. Learned part as
learn() gives it (one-vs-rest regression, C=10, smoothed over the file's 10 nearest neighbours twice, half and
half); embedding_kshot.py's development half and draws.

Usage: .venv/bin/python scripts/experiments/name_templates.py development|held-out banking77|banking10 [draws]
"""
from __future__ import annotations

import sys

import numpy as np
from embedding_kshot import draw
from frozen_more import intents_of, probabilities, regression, smooth
from sklearn.preprocessing import normalize

from triage_app.learn.neighbours import nearest

TEMPLATES = ["{}", "I have a question about {}", "Help with {}", "{} problem", "Can you help me with my {}?"]


def main() -> None:
    half, name = sys.argv[1], sys.argv[2]
    draws = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    encoder, gold, x, _, y, intents, names = intents_of(half, name)
    n_labels = len(names)
    templated = np.stack([encoder.embed([t.format(n) for n in names]).astype(np.float32) for t in TEMPLATES])  # [T, L, D]
    near = nearest(x, 10)
    variants = {"learn(): the name as one row": templated[:1],
                "the name in 3 templates, 3 rows": templated[:3],
                "the name in 5 templates, 5 rows": templated,
                "the 5 templates' mean, one row": normalize(templated.mean(axis=0))[None],
                "the name twice (one row weighted x2)": np.concatenate([templated[:1], templated[:1]])}
    ks = (2, 5) if name == "banking10" else (5, 10)
    results: dict[tuple[str, int], list[float]] = {}
    for k in ks:
        for seed in range(draws):
            train, test = draw(gold, intents, k, seed)
            for variant, rows_of in variants.items():
                xt = np.vstack([x[train], *rows_of])
                targets = np.concatenate([y[train], *[np.arange(n_labels)] * len(rows_of)])
                p = smooth(probabilities(regression(xt, targets), x), near, train, y[train])
                results.setdefault((variant, k), []).append(float(np.mean(p[test].argmax(axis=1) == y[test])))
    for variant in variants:
        print(f"{variant:45s} " + "  ".join(f"k={k} {100 * np.mean(results[(variant, k)]):.1f}" for k in ks), flush=True)


if __name__ == "__main__":
    main()

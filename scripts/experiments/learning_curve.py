"""The learning curve on the stored language-model scores: tables, JSON, an SVG and a PNG.

Reads docs/learning/scores/<set>.npz (made once by scripts/experiments/lm_scores.py), runs
triage_app.quality.curve.learning_curve on each (TF-IDF, no encoder) and writes
docs/learning/<set>.json, curve_tfidf.md, curve_tfidf.svg and curve_tfidf.png, drawn by the package as
`triage-app eval --plot` draws them (curve.* are the encoder's: learning_curve_encoder.py).

Usage: .venv/bin/python scripts/experiments/learning_curve.py [SET ...]   (default: every stored set)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from triage_app.ui.images import svg_to_png  # the PNG as `triage-app eval --plot` draws it
from triage_app.quality.curve import curves_svg, learning_curve

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "learning"
DRAWS = 20


def run(name: str) -> dict:
    data = np.load(DOCS / "scores" / f"{name}.npz")
    texts, gold, names = data["texts"].tolist(), data["gold"].tolist(), data["names"].tolist()
    start = time.perf_counter()
    curve = learning_curve(texts, gold, data["scores"], names, draws=DRAWS,
                           log=lambda line: print(f"{name} {line}", flush=True))
    out = dict(curve.to_dict(), set=name, n=len(texts), model=str(data["model"]),
               lm_seconds=float(data["seconds"]), curve_seconds=time.perf_counter() - start)
    (DOCS / f"{name}.json").write_text(json.dumps(out, indent=1) + "\n")
    out["table"] = curve.table()
    return out


def main(sets: list[str]) -> None:
    results = [run(name) for name in sets]
    lines = ["# Learning curves", "",
             f"Accuracy (mean ± std over {DRAWS} seeded draws; macro-F1 in brackets) on the same test rows for every k.", ""]
    for r in results:
        lines += [f"## {r['set']} ({r['n']} tickets, {r['n_test']} test; labels: {', '.join(r['names'])})", "",
                  r["table"], "", "Targets: " + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in r["targets"].items()),
                  ""]
    (DOCS / "curve_tfidf.md").write_text("\n".join(lines))
    svg = curves_svg(results)
    (DOCS / "curve_tfidf.svg").write_text(svg)
    svg_to_png(svg, DOCS / "curve_tfidf.png")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:] or [p.stem for p in sorted((DOCS / "scores").glob("*.npz"))])

"""The learning curve as `triage-app eval --learning-curve` draws it with the bundled sentence encoder,
on the stored language-model scores: docs/learning/curve.json, curve.md, curve.svg and curve.png.

The language model's part is read from docs/learning/scores/<set>.npz (scripts/experiments/lm_scores.py:
SmolLM2-135M, channel, float32, label names only), so the model never runs; the encoder's part is built
by the function eval and classify --person-labels build it with (cli/evaluate.curve_embeddings ->
run/embedded.file_embeddings: the tickets' vectors and the labels' similarity with their prototypes,
label names only, as the stored scores were made), and quality.curve.learning_curve runs the rest.

Usage: .venv/bin/python scripts/experiments/learning_curve_encoder.py [--draws N] [SET ...]
       (default: 20 draws, the sets curve.md has always shown)
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from triage_app.cli.evaluate import curve_embeddings
from triage_app.engine.labels import LabelSet
from triage_app.quality.curve import curves_svg, learning_curve
from triage_app.quality.evaluate import GoldSet
from triage_app.run.embedded import load_encoder
from triage_app.ui.images import svg_to_png  # the PNG as `triage-app eval --plot` draws it

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "learning"
SETS = ("banking10", "banking6", "sample", "helpdesk")


def run(name: str, encoder, draws: int, db: Path) -> dict:
    data = np.load(DOCS / "scores" / f"{name}.npz")
    texts, gold, names = data["texts"].tolist(), data["gold"].tolist(), data["names"].tolist()
    start = time.perf_counter()
    embedded = curve_embeddings(argparse.Namespace(db=db), encoder, GoldSet(texts, gold), LabelSet.from_names(names),
                                None)
    curve = learning_curve(texts, gold, data["scores"], names, draws=draws,
                           log=lambda line: print(f"{name} {line}", flush=True), **embedded)
    return dict(curve.to_dict(), set=name, n=len(texts), model=str(data["model"]), encoder_identity=encoder.identity,
                curve_seconds=time.perf_counter() - start, table=curve.table(), load_average=os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("sets", nargs="*", default=list(SETS))
    args = parser.parse_args()
    encoder = load_encoder("bundled")
    with tempfile.TemporaryDirectory() as folder:
        results = [run(name, encoder, args.draws, Path(folder) / "embeddings.sqlite3") for name in args.sets]
    (DOCS / "curve.json").write_text(json.dumps(results, indent=1) + "\n")
    svg = curves_svg(results)
    (DOCS / "curve.svg").write_text(svg)
    svg_to_png(svg, DOCS / "curve.png")
    for r in results:
        print(f"\n## {r['set']} ({r['n']} tickets, {r['n_test']} test; {r['curve_seconds']:.0f} s)\n\n{r['table']}\n"
              + "Targets: " + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in r["targets"].items()))


if __name__ == "__main__":
    main()

"""The learning curve with a sentence encoder: TF-IDF, embeddings, both and combined side by side, the
encoder named (issue 34 item 8), from the package's curve up to eval --learning-curve."""

from __future__ import annotations

import json

import numpy as np
from cli_helpers import run_main
from test_cli_learn import LABELS, tickets, write_csv
from test_learn_embeddings import NAMES, clustered, lm_scores

from triage_app.quality.curve import SIDE_BY_SIDE, curves_svg, learning_curve


def test_the_curve_learns_on_each_kind_of_features_side_by_side():
    vectors, gold = clustered(120, seed=4)
    names = [NAMES[g] for g in gold]
    texts = [f"ticket {r}" for r in range(120)]     # words that tell nothing: only the embeddings can
    curve = learning_curve(texts, names, lm_scores(gold, 0.4), NAMES, ks=(0, 5), draws=2, embeddings=vectors,
                           encoder="all-MiniLM-L6-v2")
    assert curve.parts == SIDE_BY_SIDE and curve.encoder == "all-MiniLM-L6-v2"
    k5 = curve.points[1]
    assert k5.mean("learned") > 0.9 and k5.mean("both") > 0.9 > (k5.mean("tfidf") or 0) + 0.3
    assert curve.points[0].mean("tfidf") is None and curve.points[0].mean("both") is None
    assert "learned only, TF-IDF + LR" in curve.table() and "embeddings + LR" in curve.table()
    data = dict(curve.to_dict(), set="clusters")
    assert data["parts"] == list(SIDE_BY_SIDE) and set(data["points"][1]["mean"]) == set(SIDE_BY_SIDE)
    assert "TF-IDF and embeddings" in curves_svg([data])


def test_eval_learning_curve_names_the_encoder_and_shows_every_kind(tmp_path, capsys, tiny_model, qapp):
    texts, gold = tickets(60, seed=3)
    path = write_csv(tmp_path / "g.csv", ["text", "category"], list(zip(texts, gold)))
    code, stdout, err = run_main(capsys, "eval", path, "--learning-curve", "--draws", "1",
                                 "--json", tmp_path / "curve.json", *LABELS)
    assert code == 0, err
    assert "sentence encoder all-MiniLM-L6-v2:" in stdout
    header = next(line for line in stdout.splitlines() if line.startswith("| k per label"))
    assert all(title in header for title in ("TF-IDF + LR", "embeddings + LR", "TF-IDF and embeddings", "combined"))
    data = json.loads((tmp_path / "curve.json").read_text())
    assert data["encoder"] == "all-MiniLM-L6-v2" and data["parts"] == list(SIDE_BY_SIDE)
    assert all(len(draws) == 1 for p in data["points"] for draws in p["accuracy"].values())
    assert np.isfinite(data["points"][-1]["mean"]["both"]["accuracy"])

"""eval --learning-curve measures what the product answers (issue 34 item 8): its combined column is
learn() on the encoder's features with the labels' similarity and prototypes, built by the function
classify --person-labels builds them with (run/embedded.py), on real BANKING77 messages."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_main
from encoder_helpers import bundled_encoder

from triage_app.cli import options
from triage_app.cli.parser import build_parser
from triage_app.engine.labels import LabelSet
from triage_app.files.clean import TextCleaning
from triage_app.files.embeddings import EmbeddingCache
from triage_app.learn import learn
from triage_app.quality.curve import KS, drawn, split
from triage_app.quality.evaluate import score
from triage_app.quality.metrics import evaluate
from triage_app.run.embedded import file_embeddings

BANKING = Path(__file__).resolve().parents[2] / "shared" / "data" / "banking77_train.csv"
# six intents a bag of words mixes up, named as a person would name them
INTENTS = {"card_arrival": "card arrival", "card_delivery_estimate": "card delivery estimate",
           "pending_transfer": "pending transfer", "transfer_timing": "transfer timing", "top_up_failed": "top up failed",
           "top_up_reverted": "top up reverted"}
PER_INTENT = 23     # the curve's pools hold 20 rows a label (k up to 20): 3 a label are left to test on
DRAWS = 1
CHECKED_KS = (2, 5)


def banking_rows() -> tuple[list[str], list[str]]:
    """The first PER_INTENT messages of each intent, in the file's order."""
    texts, gold = [], []
    with open(BANKING, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            name = INTENTS.get(row["category"])
            if name and gold.count(name) < PER_INTENT:
                texts.append(row["text"].strip())
                gold.append(name)
    return texts, gold


@pytest.mark.skipif(not BANKING.exists(), reason="the shared BANKING77 training split is not here")
def test_the_curves_combined_column_is_learn_with_the_labels_prototypes(tmp_path, capsys, tiny_model, monkeypatch):
    encoder = bundled_encoder()
    monkeypatch.setattr(options, "load_encoder", lambda args: encoder)
    texts, gold = banking_rows()
    path = tmp_path / "banking.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("text", "category"), *zip(texts, gold)])
    names = list(INTENTS.values())
    flags = ["--labels", ",".join(names), "--method", "direct", "--draws", str(DRAWS)]
    code, _, err = run_main(capsys, "eval", path, "--learning-curve", "--json", tmp_path / "curve.json", *flags)
    assert code == 0, err
    reported = json.loads((tmp_path / "curve.json").read_text())

    # what the product learns from the same rows: the language model's scores as eval scores them,
    # the features and the labels' similarity (with their prototypes) as classify builds them
    args = build_parser().parse_args(["eval", str(path), "--learning-curve", *map(str, flags)])
    settings = options.settings(args)
    classifier = options.classifier(args, settings, LabelSet.from_names(names), options.load_model(args))
    lm = score(classifier, texts, settings.run).scores(settings.scoring).double().numpy()        # [N, L]
    with EmbeddingCache(tmp_path / "fresh.sqlite3") as cache:
        found = file_embeddings(texts, TextCleaning.off(), encoder, cache, {"labels": LabelSet.from_names(names)})
    pools, test = split(gold, names, max(KS), 0.5, 0)
    assert reported["test_rows"] == test.tolist()
    points = {p["k"]: p for p in reported["points"]}
    without_prototypes = []
    for k in CHECKED_KS:
        expected, alone = [], []
        for d in range(DRAWS):
            taught = drawn(pools, names, k, 0, d)
            expected.append(scores(learn(found.features, lm, taught, names, similarity=found.similarity["labels"]),
                                   test, gold, names))
            alone.append(scores(learn(found.features, lm, taught, names,
                                      similarity=found.similarity["labels"].scores), test, gold, names))
        assert points[k]["accuracy"]["combined"] + points[k]["macro_f1"]["combined"] == \
            pytest.approx([a for a, _ in expected] + [f1 for _, f1 in expected]), k
        without_prototypes.append(alone != expected)
    assert any(without_prototypes)    # else the prototypes changed nothing here and this test could not tell
    assert reported["encoder"] == encoder.name


def scores(learned, test: np.ndarray, gold: list[str], names: list[str]) -> tuple[float, float]:
    """The combined answer's accuracy and macro-F1 on the test rows."""
    report = evaluate([gold[r] for r in test], [names[k] for k in learned.labels[test]], names)
    return report.accuracy, report.macro_f1

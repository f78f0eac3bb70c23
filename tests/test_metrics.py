"""Metrics against hand-computed values; the temperature fit against a known temperature."""

from __future__ import annotations

import math
import random

import pytest

from triage_app.quality.metrics import evaluate, fit_temperature, reliability, reliability_plot

LABELS = ["billing", "technical", "account"]


def test_confusion_precision_recall_by_hand():
    gold = ["billing", "Billing ", "billing", "technical", "technical", "account", "other", "", "account"]
    pred = ["billing", "technical", "billing", "technical", "billing", "account", "billing", "account", None]
    r = evaluate(gold, pred, LABELS)
    # "Billing " is billing; a blank gold value or no answer does not count; "other" counts as wrong
    assert r.n == 7 and r.gold_values == LABELS + ["other"]
    assert r.confusion == [[2, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0]]
    assert r.accuracy == pytest.approx(4 / 7)
    assert r.per_label["billing"].precision == pytest.approx(2 / 4)
    assert r.per_label["billing"].recall == pytest.approx(2 / 3)
    assert r.per_label["technical"].precision == pytest.approx(1 / 2)
    assert r.per_label["technical"].recall == pytest.approx(1 / 2)
    assert r.per_label["account"].f1 == pytest.approx(1.0)
    assert r.macro_f1 == pytest.approx((2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3) + 1 / 2 + 1) / 3)
    assert r.majority_baseline == pytest.approx(3 / 7)
    assert "confusion" in r.table() and type(r).from_dict(r.to_dict()) == r


def test_macro_f1_counts_a_label_the_model_gave_that_no_gold_row_has():
    # a hunt's finding: it was left out of the average, which read higher than scikit-learn's macro-F1
    from sklearn.metrics import f1_score

    gold = ["billing", "billing", "technical", "technical", "billing"]
    pred = ["billing", "account", "technical", "technical", "account"]
    r = evaluate(gold, pred, LABELS)
    assert r.per_label["account"].support == 0 and r.per_label["account"].f1 == 0.0
    assert r.macro_f1 == pytest.approx(f1_score(gold, pred, average="macro"))
    assert "macro-F1 0." in r.table() and "(over 3 labels with gold rows or answers)" in r.table()
    # a label neither given nor in the gold column is out of the average
    r = evaluate(["billing", "technical"], ["billing", "technical"], LABELS)
    assert r.macro_f1 == 1.0 and "(over 2 labels with gold rows or answers)" in r.table()


def test_a_label_never_given_has_no_precision():
    r = evaluate(["billing", "technical"], ["billing", "billing"], LABELS)
    assert r.per_label["technical"].precision is None and r.per_label["technical"].recall == 0
    assert r.per_label["account"].recall is None and "–" in r.table()


def test_expected_calibration_error_by_hand():
    # bin 0.9-1.0: confidences 0.95, 0.95, right once -> |0.5 - 0.95| over 2 of 4 rows
    # bin 0.6-0.7: confidences 0.65, 0.65, right twice -> |1.0 - 0.65| over 2 of 4 rows
    gold = ["billing"] * 4
    pred = ["billing", "technical", "billing", "billing"]
    r = evaluate(gold, pred, LABELS, confidence=[0.95, 0.95, 0.65, 0.65])
    assert r.ece == pytest.approx(0.5 * 0.45 + 0.5 * 0.35)
    bins = reliability([0.95, 0.95, 0.65, 0.65], [True, False, True, True])
    assert [(b["low"], b["n"], b["accuracy"]) for b in bins] == [(pytest.approx(0.6), 2, 1.0), (0.9, 2, 0.5)]
    assert reliability_plot(bins).count("\n") == 2


def test_nothing_to_compare_is_an_empty_report():
    r = evaluate(["", "billing"], ["billing", None], LABELS)
    assert r.n == 0 and r.accuracy is None and r.confusion == [[0, 0, 0]] * 3


def test_fit_temperature_recovers_the_temperature_that_made_the_data():
    rng = random.Random(0)
    logits, gold = [], []
    for _ in range(3000):
        row = [rng.gauss(0, 2) for _ in range(3)]
        probs = [math.exp(x / 2.5) for x in row]       # truth: temperature 2.5
        total = sum(probs)
        gold.append(rng.choices(range(3), [p / total for p in probs])[0])
        logits.append(row)
    assert fit_temperature(logits, gold) == pytest.approx(2.5, rel=0.12)


def test_batch_calibration_divides_out_the_runs_mean_answer():
    import torch

    from triage_app.quality.evaluate import Scored, batch_calibrated

    # three tickets, two one-token labels: the model leans to label 0 on every ticket
    tokens = torch.tensor([[[math.log(0.9)], [math.log(0.1)]], [[math.log(0.6)], [math.log(0.4)]],
                           [[math.log(0.3)], [math.log(0.7)]]])
    scored = Scored(tokens, tokens[:1], 1.0, 10, True)
    probs = batch_calibrated(scored, "sum").exp()
    mean = torch.tensor([0.6, 0.4])
    expected = torch.tensor([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7]]) / mean
    assert torch.allclose(probs, expected / expected.sum(1, keepdim=True), atol=1e-6)
    assert probs.argmax(1).tolist() == [0, 0, 1]


def test_gates_say_what_each_threshold_applies_and_how_often_it_is_right():
    from triage_app.quality.metrics import gates

    out = gates([0.95, 0.9, 0.75, 0.6, 0.4], [True, True, False, True, False], thresholds=(0.5, 0.8, 0.99))
    assert [(g["threshold"], g["applied"], g["n"], g["accuracy"]) for g in out] == \
        [(0.5, 0.8, 4, 0.75), (0.8, 0.4, 2, 1.0), (0.99, 0.0, 0, None)]


def test_the_report_carries_gates_over_the_rows_it_judged():
    report = evaluate(["billing", "technical", "billing", ""], ["billing", "billing", "billing", "billing"],
                      ["billing", "technical"], [0.9, 0.55, 0.8, 0.99])
    by = {g["threshold"]: g for g in report.gates}
    assert by[0.5]["n"] == 3 and by[0.5]["accuracy"] == 2 / 3            # the blank gold row does not count
    assert by[0.7]["n"] == 2 and by[0.7]["accuracy"] == 1.0 and by[0.7]["applied"] == 2 / 3


def test_gold_values_spelled_otherwise_are_the_label_they_name():
    """NFD (a macOS export) and another case are one name, as LabelSet tells names apart."""
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Facturación")
    report = evaluate([nfd, "técnico", "Facturación", " TÉCNICO "], ["Facturación", "Técnico", "Técnico", "Técnico"],
                      ["Facturación", "Técnico"])
    assert report.accuracy == 0.75
    assert report.gold_values == ["Facturación", "Técnico"]

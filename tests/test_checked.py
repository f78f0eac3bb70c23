"""A checked low precision: the drift bound, the accept rule, and runs whose labels are float32's.

The runs force the low precision on (Check(always=True)): on a CPU without native bfloat16 it is
emulated, slower but as rounded, so every machine checks the logic."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from triage_app.engine.checked import (Check, CheckedClassifier, CheckedStats, Decision, low_copy, measure_drift,
                                       pair_drift)
from triage_app.engine.classifier import Classifier, Prediction
from triage_app.engine.prediction import stands
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import Label, LabelSet
from triage_app.engine.verify import compare, verify
from triage_app.bench.workloads import first_sentence


def test_the_drift_bound_is_per_length_range_and_never_shrinks_with_length():
    lengths = torch.tensor([40, 10, 30, 20])                                # the probes' text lengths
    high = torch.zeros(4, 3)
    high[:, 0] = 1.0                                                        # label 0: every probe's top-1
    low = high.clone()
    low[:, 1] += torch.tensor([0.3, 0.1, -0.4, 0.05])                       # label 1's difference to it drifts
    drift = measure_drift(lengths, low, high, ranges=2, factor=2.0)
    assert drift.edges == [20]
    assert drift.bounds == pytest.approx([0.2, 0.8])                      # short range 0.1, long 0.4
    assert drift.bound(torch.tensor([5, 20, 21, 900])).tolist() == pytest.approx([0.2, 0.2, 0.8, 0.8])
    # a short range's wider drift is the longer range's floor
    low = high.clone()
    low[:, 1] += torch.tensor([0.1, 0.5, 0.1, 0.05])
    assert measure_drift(lengths, low, high, ranges=2, factor=3.0).bounds == pytest.approx([1.5, 1.5])


def test_scores_that_drift_together_leave_the_margin_where_it_was():
    """A drift all labels share moves no difference: the bound is on differences, not on single scores."""
    high = torch.tensor([[-0.2, -1.8, -4.0]], dtype=torch.float64)
    low = high + 0.5                                                        # every score 0.5 higher
    assert measure_drift(torch.tensor([7]), low, high, 1, 1.5).bounds == pytest.approx([0.0])
    low = high + torch.tensor([[0.5, 0.3, -0.2]], dtype=torch.float64)      # top-1 against each: 0.2, 0.7
    assert pair_drift(low, high).tolist() == pytest.approx([0.7])
    assert measure_drift(torch.tensor([7]), low, high, 1, 1.5).bounds == pytest.approx([1.05])


def test_the_pairs_that_count_are_the_low_precision_top_1s():
    """Labels 1 and 2 drift apart by 0.9, but a label flips only against the low top-1 (label 0)."""
    high = torch.tensor([[0.0, -3.0, -5.0]], dtype=torch.float64)
    low = high + torch.tensor([[0.0, 0.4, -0.5]], dtype=torch.float64)
    assert pair_drift(low, high).tolist() == pytest.approx([0.5])


def test_the_largest_label_difference_counts_and_a_nan_trusts_nothing():
    high = torch.tensor([[-0.1, -2.0, -3.0]])
    low = torch.tensor([[-0.15, -2.3, -2.9]])
    assert measure_drift(torch.tensor([7]), low, high, 1, 2.0).bounds == pytest.approx([2 * 0.25])
    low[0, 2] = math.nan
    assert measure_drift(torch.tensor([7]), low, high, 1, 2.0).bounds == [math.inf]
    low[0, 2], high[0, 0] = -2.9, math.nan   # a NaN in float32's scores, on the top-1
    assert measure_drift(torch.tensor([7]), low, high, 1, 2.0).bounds == [math.inf]


def test_an_answer_stands_only_where_its_margin_is_wider_than_the_bound():
    scores = np.log([[0.8, 0.15, 0.05], [0.45, 0.4, 0.15], [0.1, 0.2, 0.7]])   # [3, 3]
    # margins: log(0.8 / 0.15) = 1.67, log(0.45 / 0.4) = 0.12, and the third's exactly
    bound = np.array([1.0, 1.0, scores[2, 2] - scores[2, 1]])
    assert stands(scores, bound).tolist() == [True, False, False]   # equal to the bound: not wider
    assert stands(scores[:, :1], bound).tolist() == [True] * 3     # one label: nothing to flip to
    assert stands(scores, [0.0, 0.0, math.inf]).tolist() == [True, True, False]   # float32's own; inf trusts nothing
    # a bound not known (NaN): kept on the language model's own margin, so it stands as that, never learned
    assert stands(scores, [math.nan] * 3).tolist() == [True] * 3
    assert stands(scores, [math.nan] * 3, 1.0, np.zeros((3, 3))).tolist() == [False] * 3


def test_a_taught_answer_stands_on_its_own_margin():
    """The learned part widens the second row's margin past its drift; it moves the first row's answer off
    the low top-1, where two labels' drifts count, so a margin that beat one drift no longer stands."""
    scores = np.log([[0.5, 0.3, 0.2], [0.45, 0.4, 0.15]])
    extra = np.array([[0.0, 0.9, 0.0], [2.0, 0.0, 0.0]])
    # answers: label 1 by 0.9 - log(0.5 / 0.3) = 0.39 (moved off label 0); label 0 by 2 + log(0.45 / 0.4) = 2.12
    assert stands(scores, [0.3, 1.0], 1.0, extra).tolist() == [False, True]   # 0.39 < 2 x 0.3; 2.12 > 1
    assert stands(scores, [0.19, 1.0], 1.0, extra).tolist() == [True, True]   # 0.39 > 2 x 0.19
    assert stands(scores, [0.3, 1.0]).tolist() == [True, False]               # zero-shot: 0.51 > 0.3; 0.12 < 1
    assert stands(scores, [math.inf, math.inf], 0.0, extra).tolist() == [True, True]   # a = 0: the scores weigh nothing


def test_the_low_precision_runs_only_where_it_pays():
    assert Decision(low_seconds=2.0, float32_seconds=8.0, share=0.5).pays        # 2 + 4 < 8
    assert not Decision(low_seconds=5.0, float32_seconds=8.0, share=0.4).pays    # 5 + 3.2 >= 8
    assert Decision(5.0, 8.0, 0.4, forced=True).pays
    assert "float32" in Decision(5.0, 8.0, 0.4).line("bfloat16").rsplit("->", 1)[1]


def test_a_check_refuses_settings_that_cannot_bound_a_margin():
    with pytest.raises(ValueError, match="factor"):
        Check(factor=1.2)
    assert Check().factor == 1.5
    with pytest.raises(ValueError, match="probe per length range"):
        Check(probes=2, ranges=3)
    assert Check().probes_for(10) == 12 and Check().probes_for(10_000) == 48


def test_the_rescored_share_is_of_the_low_precision_answers():
    stats = CheckedStats(total=10, probes=4, accepted=3, rescored=1)
    assert stats.rescored_share == 0.25
    assert stats.to_dict()["rescored_share"] == 0.25 and stats.to_dict()["rescored"] == 1


# two labels alike in all but the name: their margins are tiny, so some answers must be re-scored
NEAR_TIES = LabelSet((Label("billing", "payments, invoices, refunds"), Label("billing issue", "payments, invoices, refunds"),
                      Label("technical", "errors, bugs, crashes"), Label("account", "sign-in, passwords, profile")))


@pytest.fixture(scope="module")
def checked_smollm2(smollm2):
    loaded = replace(smollm2, placement=replace(smollm2.placement, checked=torch.bfloat16))
    loaded.low = low_copy(loaded)
    return loaded


@pytest.fixture(scope="module")
def short_tickets(sample_rows):
    return [first_sentence(r["text"]) for r in sample_rows[:10]] + ["", "  "]


def answers(classifier, texts, **kw):
    out, stats = {}, None
    for batch in classifier.run(texts, **kw):
        out.update({p.index: p for p in batch.predictions})
        stats = batch.stats
    return out, stats


# channel's scores sum a log-prob per ticket token: their drift is wider, so whether any answer stands
# there depends on the tickets (None); direct's clear answers stand
@pytest.mark.parametrize("method, some_kept", [("channel", None), ("direct", True)])
def test_a_checked_run_gives_float32s_labels_and_rescores_the_near_ties(checked_smollm2, smollm2, short_tickets, method,
                                                                         some_kept):
    scoring = Scoring(method=method)
    want, _ = answers(Classifier(smollm2, NEAR_TIES, scoring=scoring), short_tickets)
    checked = CheckedClassifier(checked_smollm2, NEAR_TIES, scoring=scoring, check=Check(probes=4, ranges=2, always=True))
    got, stats = answers(checked, short_tickets)
    assert sorted(got) == list(range(len(short_tickets))) and stats.done == len(short_tickets)
    assert [got[i].label for i in sorted(got)] == [want[i].label for i in sorted(want)]
    assert stats.dtype == "bfloat16-checked" and stats.probes == 4 and "forced" in stats.check
    assert stats.accepted + stats.rescored == 10 - 4
    assert stats.rescored > 0, "the near-ties must go back to float32"
    assert some_kept is None or (stats.accepted > 0) == some_kept
    if stats.accepted:   # kept answers carry the low precision's scores, not float32's, and beat the bound
        kept = [i for i in want if want[i].scores and max(abs(a - b) for a, b in zip(want[i].scores, got[i].scores)) > 1e-3]
        assert kept and all(margin(got[i].scores) > min(stats.drift) for i in kept)


def test_a_tickets_bound_is_its_length_range_in_tokens_not_characters():
    """A hunt's finding: the ranges were of characters, and an emoji ticket (88 characters, 336 tokens of the
    tiny tokenizer, more than any probe's) was held to a middle range's bound, which its margin beat, and kept
    a label float32 does not give. The tiny model with room for such tickets; English and emoji tickets, whose
    orders by characters and by tokens differ."""
    import random

    from tiny_qwen import load_tiny_qwen

    from triage_app.bench.workloads import load_sample
    from triage_app.engine.prompt import clean

    tiny = load_tiny_qwen(positions=8192)
    checked = replace(tiny, placement=replace(tiny.placement, checked=torch.bfloat16))
    checked.low = low_copy(checked)
    rng = random.Random(0)
    texts = [r["text"] for r in load_sample()][:60]
    texts += ["".join(rng.choice("💳🙂😡🔥✅❌📦🚚") for _ in range(rng.randint(20, 120))) for _ in range(40)]
    scoring = Scoring(method="direct")
    want, _ = answers(Classifier(tiny, NEAR_TIES, scoring=scoring), texts)
    run = CheckedClassifier(checked, NEAR_TIES, scoring=scoring, check=Check(always=True))
    got, stats = answers(run, texts)
    assert [got[i].label for i in range(len(texts))] == [want[i].label for i in range(len(texts))]
    drift = run.measure(texts).drift        # the same probes, measured again
    tokens = [min(len(tiny.tokenizer(clean(t), add_special_tokens=False)["input_ids"]), run.ticket_limit) for t in texts]
    kept = [i for i in range(len(texts)) if got[i].drift]
    assert kept and stats.drift == drift.bounds
    assert [got[i].drift for i in kept] == drift.bound(torch.tensor([tokens[i] for i in kept])).tolist()


def margin(scores: list[float]) -> float:
    top = sorted(scores, reverse=True)
    return top[0] - top[1]


def test_verify_holds_a_checked_run_to_the_float32_reference(checked_smollm2, short_tickets):
    checked = CheckedClassifier(checked_smollm2, NEAR_TIES, scoring=Scoring(method="direct"),
                                check=Check(probes=4, ranges=2, always=True))
    report = verify(checked, short_tickets, probes=5)
    assert report.checked and report.probes == 5 and report.ok, report.summary()
    assert "checked precision" in report.summary()


def test_a_checked_verify_has_no_near_ties():
    """A flipped label is a failure however close the reference's call was; pure bfloat16 calls it a near-tie."""
    names = ["billing", "payments"]
    reference = {0: Prediction(0, names, [math.log(0.51), math.log(0.49)])}
    flipped = {0: Prediction(0, names, [math.log(0.49), math.log(0.51)])}
    assert len(compare(reference, flipped, "bfloat16", "direct").failures) == 0
    assert len(compare(reference, flipped, "bfloat16-checked", "direct").failures) == 1


def test_a_small_run_is_float32_unless_forced(checked_smollm2, short_tickets):
    checked = CheckedClassifier(checked_smollm2, NEAR_TIES, scoring=Scoring(method="direct"))
    got, stats = answers(checked, short_tickets)
    assert stats.check.startswith("float32") and stats.probes == stats.accepted == stats.rescored == 0
    assert stats.done == len(short_tickets)


def test_the_reference_loop_is_float32s(checked_smollm2, smollm2, short_tickets):
    scoring = Scoring(method="direct")
    checked = CheckedClassifier(checked_smollm2, NEAR_TIES, scoring=scoring, check=Check(probes=4, ranges=2, always=True))
    got, _ = answers(checked, short_tickets[:2], config=RunConfig(reference=True))
    want, _ = answers(Classifier(smollm2, NEAR_TIES, scoring=scoring), short_tickets[:2], config=RunConfig(reference=True))
    assert [got[i].scores for i in range(2)] == [want[i].scores for i in range(2)]
    assert checked.label_fingerprints is None   # run/job.py stores a checked run's answers by the whole set


def test_on_a_checked_placement_a_per_label_method_runs_float32_and_keeps_its_per_label_results(checked_smollm2):
    """channel keeps results per label (an edit re-scores only what it changed); a checked answer is
    decided on the whole set's margin. So build gives channel a float32 Classifier, direct a checked one."""
    from triage_app.engine.build import classifier_for
    from triage_app.engine.config import RunSettings

    channel = classifier_for(checked_smollm2, NEAR_TIES, RunSettings(scoring=Scoring(method="channel")))
    direct = classifier_for(checked_smollm2, NEAR_TIES, RunSettings(scoring=Scoring(method="direct")))
    assert not isinstance(channel, CheckedClassifier) and channel.label_fingerprints is not None
    assert isinstance(direct, CheckedClassifier) and direct.label_fingerprints is None


def test_the_low_copy_scores_with_the_float32_models_own_head_and_never_casts_it(checked_smollm2, smollm2):
    """Low-precision body, float32 head: the logits are float32 and the weight is the float32 model's
    storage (no copy). Casting the low copy again leaves the float32 model's head, and with tied
    embeddings its input embedding, in float32."""
    low = checked_smollm2.low.model
    body = next(p for name, p in low.named_parameters() if "layers" in name)
    assert body.dtype == torch.bfloat16
    head, original = low.get_output_embeddings(), smollm2.model.get_output_embeddings()
    assert head.weight.data_ptr() == original.weight.data_ptr() and head.weight.dtype == torch.float32
    ids = torch.tensor([[1, 2, 3]])
    with torch.inference_mode():
        assert low(input_ids=ids).logits.dtype == torch.float32
    low.to(torch.bfloat16)       # the body is bfloat16 already: only a registered head would change
    assert head.weight.dtype == torch.float32
    assert original.weight.dtype == torch.float32 and smollm2.model.get_input_embeddings().weight.dtype == torch.float32


def test_rows_asked_exact_are_float32s_own_in_the_same_run(checked_smollm2, smollm2, short_tickets):
    """The rows learning settles run first, in float32, and the rest as any checked run, under one set of
    statistics (the run panel's and --stats-json's)."""
    scoring = Scoring(method="direct")
    want, _ = answers(Classifier(smollm2, NEAR_TIES, scoring=scoring), short_tickets)
    checked = CheckedClassifier(checked_smollm2, NEAR_TIES, scoring=scoring, check=Check(probes=4, ranges=2, always=True))
    got, stats = answers(checked, short_tickets, exact=[0, 1])
    for i in (0, 1):   # float32 in a batch of their own: equal up to the order of additions
        assert got[i].scores == pytest.approx(want[i].scores, abs=1e-4) and got[i].drift == 0
    assert stats.done == len(short_tickets) and stats.probes == 4 and stats.accepted + stats.rescored == 10 - 2 - 4
    assert [got[i].label for i in sorted(got)] == [want[i].label for i in sorted(want)]

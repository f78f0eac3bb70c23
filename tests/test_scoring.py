"""Scoring: length normalisation, contextual calibration, temperature; on tensors, by hand."""

from __future__ import annotations

import math

import pytest
import torch

from triage_app.engine.config import Scoring
from triage_app.engine.scoring import combine, decide, normalise, prior

NAN = float("nan")
# two tickets, two labels: a two-token label and a one-token label
TOKENS = torch.tensor([[[math.log(0.6), math.log(0.5)], [math.log(0.3), NAN]],
                       [[math.log(0.2), math.log(0.9)], [math.log(0.7), NAN]]])


def test_lengths_combine_token_log_probs():
    s = combine(Scoring("sum", calibrate=False), TOKENS)
    assert s[0].tolist() == pytest.approx([math.log(0.3), math.log(0.3)])
    m = combine(Scoring("mean", calibrate=False), TOKENS)
    assert m[0, 0].item() == pytest.approx((math.log(0.6) + math.log(0.5)) / 2)
    f = combine(Scoring("first", calibrate=False), TOKENS)
    assert f[1].tolist() == pytest.approx([math.log(0.2), math.log(0.7)])


def test_calibration_divides_out_the_content_free_prior():
    # the model answers label 0 three times as often when the ticket says nothing
    free = torch.tensor([[[math.log(0.75), 0.0], [math.log(0.25), NAN]]])
    scoring = Scoring("first", calibrate=True)
    log_prior = prior(scoring, free)
    assert log_prior.exp().tolist() == pytest.approx([0.75, 0.25])
    scores = decide(scoring, TOKENS, log_prior).exp()
    # ticket 0: 0.6/0.75 vs 0.3/0.25 -> label 1 now wins
    expected = torch.tensor([0.6 / 0.75, 0.3 / 0.25])
    assert scores[0].tolist() == pytest.approx((expected / expected.sum()).tolist())
    assert decide(Scoring("first", calibrate=False), TOKENS, log_prior)[0].argmax() == 0


def test_temperature_flattens_without_changing_the_decision():
    hot = decide(Scoring("sum", calibrate=False, temperature=3.0), TOKENS, None)
    cold = decide(Scoring("sum", calibrate=False), TOKENS, None)
    assert (hot.argmax(1) == cold.argmax(1)).all()
    assert hot.exp().max() < cold.exp().max()
    assert torch.allclose(normalise(hot).exp().sum(1), torch.ones(2))


@pytest.mark.parametrize("kwargs, message", [({"length": "max"}, "length"), ({"temperature": 0}, "temperature")])
def test_bad_scoring_fails_at_construction(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Scoring(**kwargs)


# with the real model: every choice keeps the engine's law

def _tokens(classifier, texts, config):
    parts = {}
    for batch in classifier.run(texts, config):
        parts.update({p.index: lp for p, lp in zip(batch.predictions, batch.token_logprobs)})
    return torch.stack([parts[i] for i in range(len(texts))])


@pytest.fixture(scope="module")
def both_paths(smollm2, sample_rows):
    """Token log-probs of the same tickets (and of the content-free ones) from both paths."""
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.config import RunConfig
    from triage_app.engine.labels import LabelSet

    classifier = Classifier(smollm2, LabelSet.default(), scoring=Scoring(calibrate=False, method="direct"))
    from triage_app.bench.workloads import first_sentence

    # first sentences: the scorings combine label tokens, whatever the ticket's length (test_direct.py has the
    # length range), and the reference loop pays for every ticket token
    texts = [first_sentence(r["text"]) for r in sample_rows[::75]]
    fast = RunConfig(batch_size=4)
    reference = RunConfig(reference=True)
    return (_tokens(classifier, texts, fast), classifier.content_free(fast),
            _tokens(classifier, texts, reference), classifier.content_free(reference))


@pytest.mark.parametrize("scoring", [Scoring("sum"), Scoring("mean"), Scoring("first"),
                                     Scoring("sum", calibrate=False, temperature=2.0), Scoring("mean", temperature=0.5)])
def test_every_scoring_keeps_fast_equal_to_reference(both_paths, scoring):
    fast, fast_free, ref, ref_free = both_paths
    got = decide(scoring, fast, prior(scoring, fast_free))
    want = decide(scoring, ref, prior(scoring, ref_free))
    assert (got - want).abs().max() < 1e-3
    assert got.argmax(1).tolist() == want.argmax(1).tolist()


def test_calibration_changes_decisions_on_the_real_model(both_paths):
    """The bundled model's prior is far from uniform, and dividing it out moves labels."""
    fast, free, _, _ = both_paths
    favoured = prior(Scoring(), free).exp()
    assert favoured.max() > 0.5                       # one label is favoured whatever the ticket says
    plain = decide(Scoring(calibrate=False), fast, None).argmax(1)
    calibrated = decide(Scoring(), fast, prior(Scoring(), free)).argmax(1)
    assert (plain != calibrated).any()


def test_run_with_calibration_matches_its_definition(smollm2, sample_rows):
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.config import RunConfig
    from triage_app.engine.labels import LabelSet
    from triage_app.engine.verify import collect

    # short tickets: the definition does not depend on length, and the reference loop pays for every token
    texts = [r["text"] for r in sample_rows if len(r["text"]) < 200][:6]
    raw = Classifier(smollm2, LabelSet.default(), scoring=Scoring("mean", calibrate=False, method="direct"))
    calibrated = Classifier(smollm2, LabelSet.default(), scoring=Scoring("mean", temperature=1.5, method="direct"))
    assert raw.fingerprint != calibrated.fingerprint       # stored results never mix scorings
    by_index = collect(raw, texts, RunConfig())
    plain = torch.tensor([by_index[i].scores for i in range(len(texts))])
    log_prior = prior(Scoring("mean"), raw.content_free())
    expected = normalise((plain - log_prior) / 1.5)
    fast = collect(calibrated, texts, RunConfig())
    reference = collect(calibrated, texts, RunConfig(reference=True))
    for i in range(len(texts)):
        assert fast[i].scores == pytest.approx(expected[i].tolist(), abs=1e-4)
        assert reference[i].scores == pytest.approx(fast[i].scores, abs=1e-3)


def test_aliases_are_what_the_model_reads_and_names_what_the_user_sees(smollm2):
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.config import RunConfig
    from triage_app.engine.labels import Example, Label, LabelSet
    from triage_app.engine.verify import collect

    labels = LabelSet((Label("Billing & payments", "money", alias="payment"), Label("Tech support", alias="bug")),
                      (Example("I was charged twice", "Billing & payments"),))
    classifier = Classifier(smollm2, labels, scoring=Scoring(method="direct"))
    assert "- payment: money" in classifier.prompt.text and "Billing & payments" not in classifier.prompt.text
    assert classifier.prompt.label_ids == [smollm2.tokenizer("payment", add_special_tokens=False).input_ids,
                                           smollm2.tokenizer("bug", add_special_tokens=False).input_ids]
    texts = ["Refund my double charge please", "The app crashes on start"]
    fast = collect(classifier, texts, RunConfig())
    assert {p.label for p in fast.values()} <= {"Billing & payments", "Tech support"}
    reference = collect(classifier, texts, RunConfig(reference=True))
    assert all(fast[i].scores == pytest.approx(reference[i].scores, abs=1e-3) for i in fast)


def test_first_token_scoring_refuses_labels_it_cannot_tell_apart(smollm2):
    from triage_app.engine.classifier import Classifier
    from triage_app.engine.labels import LabelSet

    with pytest.raises(ValueError, match="same token"):
        Classifier(smollm2, LabelSet.from_names(["billing", "billing dispute"]),
                   scoring=Scoring("first", method="direct"))

"""Direct-after (the label list after the ticket) and several axes in one pass over each ticket (issue 24).

The law of the engine holds for both: the one-axis fast path gives direct-after's reference, and the
one pass gives, per axis, that axis's one-axis run and its reference on the full prompt, alone.
"""

from __future__ import annotations

import pytest

from triage_app.engine.methods.direct_after import DirectAfterMethod
from triage_app.engine.axes import Axes
from triage_app.engine.axes_pass import AxesPass, can_share
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.engine.verify import collect, probe_indices

AFTER = Scoring(method="direct-after")
TOLERANCE = DirectAfterMethod.TOLERANCE["float32"]
HELPDESK = Axes.load("resources/helpdesk_axes.json")


def spread(rows, n):
    texts = [r["text"] for r in rows]
    return [texts[i] for i in probe_indices([len(t) for t in texts], n)]


def assert_same(reference, fast):
    assert reference.keys() == fast.keys()
    for i, ref in reference.items():
        assert fast[i].label == ref.label, f"ticket {i}"
        if ref.scores is None:   # a blank ticket: no answer either way
            assert fast[i].scores is None, f"ticket {i}"
            continue
        assert max(abs(a - b) for a, b in zip(ref.scores, fast[i].scores)) < TOLERANCE, f"ticket {i}"


def one_pass(classifiers, texts, config=RunConfig()):
    """Per axis, {ticket: Prediction} from one AxesPass run, and the pass's statistics."""
    found, stats = [{} for _ in classifiers], None
    for batch in AxesPass(classifiers).run(texts, config):
        stats = batch.stats
        for axis, predictions in zip(found, batch.predictions):
            axis.update({p.index: p for p in predictions})
    return found, stats


def test_the_label_list_comes_after_the_ticket_and_every_cut_is_checked(smollm2, sample_rows):
    classifier = Classifier(smollm2, LabelSet.default(), scoring=AFTER)
    prompt = classifier.method.prompt
    rendered = prompt.render("TICKET")
    assert rendered.index("TICKET") < rendered.index("- billing: payments") < rendered.rindex("assistant")
    assert "billing" not in prompt.text   # the cached prefix is the same for every label set
    assert prompt.ids == Classifier(smollm2, HELPDESK.first.label_set, scoring=AFTER).method.prompt.ids
    for ticket in prompt.encode(spread(sample_rows, 40)):
        part = prompt.ticket_part(ticket)
        assert prompt.ids + part + prompt.question_ids == ticket.full_ids
    # its own results in the store: never direct's
    assert classifier.fingerprint != Classifier(smollm2, LabelSet.default(), scoring=Scoring(method="direct")).fingerprint


@pytest.fixture(scope="module")
def after_reference(smollm2, sample_rows):
    texts = spread(sample_rows, 6)
    classifier = Classifier(smollm2, LabelSet.default(), scoring=AFTER)
    return classifier, texts, collect(classifier, texts, RunConfig(reference=True))


@pytest.mark.parametrize("config", [RunConfig(token_budget=512), RunConfig(prefix_cache=False, batch_size=4),
                                    RunConfig(prune=True, batch_size=3)], ids=["fast", "no-cache", "pruned"])
def test_direct_after_fast_path_equals_its_reference(after_reference, config):
    classifier, texts, reference = after_reference
    assert_same(reference, collect(classifier, texts, config))


@pytest.fixture(scope="module")
def helpdesk(smollm2):
    import csv

    with open("resources/helpdesk_export.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # under 800 characters: the longest ticket's reference passes, per label of each axis, cost more than the
    # rest of this file; the whole length range is direct-after's own test's (after_reference) above
    texts = [r["body"] for r in rows if len(r["body"]) < 800]
    # the shortest and the longest of them, one batch of mixed lengths below; a ticket between them adds no
    # case, and each ticket's reference passes read the axis's whole label list after it, per label, short or long
    texts = [texts[i] for i in probe_indices([len(t) for t in texts], 2)] + ["", "   "]   # 6 and 233 tokens
    return [Classifier(smollm2, axis.label_set, scoring=AFTER) for axis in HELPDESK], texts


@pytest.fixture(scope="module")
def alone(helpdesk):
    """Each axis's own one-axis run of those tickets: what a pass must give, in either test below."""
    classifiers, texts = helpdesk
    return [collect(c, texts, RunConfig()) for c in classifiers]


def test_one_pass_gives_each_axis_its_own_run_and_its_reference_alone(helpdesk, alone):
    classifiers, texts = helpdesk
    found, _ = one_pass(classifiers, texts, RunConfig(batch_size=2))
    for classifier, axis, own in zip(classifiers, found, alone):
        assert_same(own, axis)
        reference = collect(classifier, texts, RunConfig(reference=True))
        assert_same(reference, axis)
        assert {i for i, p in axis.items() if p.scores is None} == {2, 3}   # blanks: no answer, as alone


def test_a_ticket_whose_question_cut_is_not_clean_runs_each_axis_alone(helpdesk, alone, monkeypatch):
    classifiers, texts = helpdesk
    texts = texts[:2]   # 6 and 233 tokens; the second's cut is broken below
    expected = [{i: own[i] for i in range(len(texts))} for own in alone]
    prompt = classifiers[1].method.prompt
    broken = prompt.encode([texts[1]])[0].full_ids
    real = type(prompt).ticket_part
    monkeypatch.setattr(type(prompt), "ticket_part",
                        lambda self, t: None if self is prompt and t.full_ids == broken else real(self, t))
    found, stats = one_pass(classifiers, texts)
    assert stats.fallbacks == 1
    for want, got in zip(expected, found):
        assert_same(want, got)


def test_only_plain_direct_after_classifiers_on_one_prefix_share_a_pass(smollm2):
    after = [Classifier(smollm2, axis.label_set, scoring=AFTER) for axis in HELPDESK]
    assert can_share(after)
    assert not can_share(after[:1])
    assert not can_share([after[0], Classifier(smollm2, HELPDESK.axes[1].label_set, scoring=Scoring(method="direct"))])
    with pytest.raises(ValueError, match="one pass"):
        AxesPass(after[:1])

"""direct-fields (issue 24): every field's labels before the ticket, the field asked in a cue after it, and the
fields of a run in one pass over each ticket.

The law of the engine: per field, the one pass gives that field's own run and its reference on the full prompt.
"""

from __future__ import annotations

import csv
from dataclasses import replace

import pytest
from test_axes_pass import assert_same, one_pass   # tolerance: direct's, as every ticket-first method's

from triage_app.engine.axes import Axes, Axis
from triage_app.engine.axes_pass import AxesPass, can_share
from triage_app.engine.build import axes_classifiers
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, RunSettings, Scoring
from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.engine.verify import collect, probe_indices

FIELDS = RunSettings(scoring=Scoring(method="direct-fields"))
HELPDESK = Axes.load("resources/helpdesk_axes.json")


@pytest.fixture(scope="module")
def helpdesk(smollm2):
    with open("resources/helpdesk_export.csv", newline="", encoding="utf-8") as f:
        texts = [r["body"] for r in csv.DictReader(f)]
    texts = [texts[i] for i in probe_indices([len(t) for t in texts], 40)]
    return axes_classifiers(smollm2, HELPDESK, FIELDS), texts


def test_every_field_is_named_before_the_ticket_and_the_one_asked_after_it(helpdesk):
    classifiers, texts = helpdesk
    prompts = [c.method.prompt for c in classifiers]
    for prompt, name in zip(prompts, ("queue", "priority")):
        rendered = prompt.render("TICKET")
        assert rendered.index("- Shipping: where") < rendered.index("- Urgent: money") < rendered.index("TICKET")
        assert rendered.endswith(f"assistant\n{name}:")
        assert prompt.tail.endswith(f"{name}:") and len(prompt.question_ids) < 10   # a few tokens per axis
        for ticket in prompt.encode(texts):
            assert prompt.ids + prompt.ticket_part(ticket) + prompt.question_ids == ticket.full_ids
    assert prompts[0].ids == prompts[1].ids and prompts[0].question_ids != prompts[1].question_ids
    assert can_share(classifiers)
    # a label is scored after the cue as the model writes it there: " Shipping", one token
    tokenizer = classifiers[0].loaded.tokenizer
    assert prompts[0].label_ids[0] == tokenizer(" Shipping", add_special_tokens=False).input_ids
    assert not prompts[0].label_warnings


def test_one_field_alone_is_direct_with_its_labels_before_the_ticket_and_a_cue_after(smollm2):
    labels = LabelSet((Label("billing", "money"), Label("tech", alias="technical")),
                      (Example("I was charged twice", "billing"),))
    alone = Classifier(smollm2, labels, scoring=FIELDS.scoring)
    rendered = alone.method.prompt.render("TICKET")
    assert "label: one of billing, technical\n- billing: money\n- technical" in rendered
    assert "I was charged twice<|im_end|>\n<|im_start|>assistant\nlabel: billing<|im_end|>" in rendered   # an example
    assert rendered.endswith("TICKET<|im_end|>\n<|im_start|>assistant\nlabel:")
    # a plain label-set file's one axis: the same prompt, the same stored results
    assert axes_classifiers(smollm2, Axes.of(labels), FIELDS)[0].fingerprint == alone.fingerprint


def test_a_field_s_fingerprint_changes_with_any_field_s_labels_and_other_methods_keep_theirs(smollm2):
    queue, priority = HELPDESK.axes
    fewer = Axis("priority", LabelSet(priority.label_set.labels[:3]))
    edited = Axes((queue, fewer))
    fields_before, fields_after = (axes_classifiers(smollm2, a, FIELDS) for a in (HELPDESK, edited))
    assert fields_before[0].fingerprint != fields_after[0].fingerprint   # queue's prompt names priority's labels
    for method in ("direct", "direct-after", "channel"):
        settings = RunSettings(scoring=Scoring(method=method))
        before, after = (axes_classifiers(smollm2, a, settings) for a in (HELPDESK, edited))
        alone = Classifier(smollm2, queue.label_set, max_ticket_tokens=settings.max_ticket_tokens, scoring=settings.scoring)
        assert before[0].fingerprint == after[0].fingerprint == alone.fingerprint, method
    # pinned in tests/test_fingerprints.py: a one-axis direct run of the default set, through the axes' way
    direct = axes_classifiers(smollm2, Axes.of(LabelSet.default()), RunSettings(scoring=Scoring(method="direct")))
    assert direct[0].fingerprint == "75ddf87f32ec75cc"
    assert fields_before[0].fingerprint != Classifier(smollm2, queue.label_set, scoring=FIELDS.scoring).fingerprint
    # a field of another method is not named in the prompt: its edit leaves a direct-fields field as it was
    mixed = Axes((queue, Axis("priority", priority.label_set, "channel")))
    mixed_edited = Axes((queue, Axis("priority", fewer.label_set, "channel")))
    kept, kept_after = (axes_classifiers(smollm2, a, FIELDS)[0] for a in (mixed, mixed_edited))
    assert kept.fingerprint == kept_after.fingerprint
    assert kept.fingerprint == axes_classifiers(smollm2, Axes((queue,)), FIELDS)[0].fingerprint
    assert "Urgent" not in kept.method.prompt.text and "Shipping" in kept.method.prompt.text


@pytest.fixture(scope="module")
def passed(helpdesk):
    """The tickets the pass tests read, and each field's own run of them: what a pass must give."""
    classifiers, texts = helpdesk
    by_length = sorted(texts, key=len)
    # 6 and 164 tokens, and a blank: one batch of mixed lengths in the pass test; each field's reference passes,
    # every label's over the whole prompt, were its time, and a ticket between these two adds no case
    texts = [by_length[0], by_length[20], ""]
    return texts, [collect(c, texts, RunConfig()) for c in classifiers]


def test_one_pass_gives_each_field_its_own_run_and_its_reference_alone(helpdesk, passed):
    classifiers, _ = helpdesk
    texts, alone = passed
    found, stats = one_pass(classifiers, texts, RunConfig(batch_size=2))
    assert stats.fallbacks == 0
    for classifier, axis, own in zip(classifiers, found, alone):
        assert_same(own, axis)
        assert_same(collect(classifier, texts, RunConfig(reference=True)), axis)
        assert axis[2].scores is None


def test_a_ticket_whose_cue_cut_is_not_clean_runs_each_field_alone(helpdesk, passed, monkeypatch):
    classifiers, _ = helpdesk
    texts, alone = passed
    texts = texts[:2]   # 6 and 164 tokens; the second's cut is broken below
    prompt = classifiers[1].method.prompt
    ticket = prompt.encode([texts[1]])[0]
    # the check: the ticket's tokens must end where the cue's begin, or there is no ticket part
    assert prompt.ticket_part(ticket) is not None
    merged = replace(ticket, suffix_ids=ticket.suffix_ids[:-2] + [ticket.suffix_ids[-1]])
    assert prompt.ticket_part(merged) is None
    assert prompt.ticket_part(replace(ticket, suffix_ids=None)) is None
    # a ticket without a clean cut in one field runs alone in every field, as those fields' own runs
    expected = [{i: own[i] for i in range(len(texts))} for own in alone]
    real = type(prompt).ticket_part
    monkeypatch.setattr(type(prompt), "ticket_part",
                        lambda self, t: None if self is prompt and t.full_ids == ticket.full_ids else real(self, t))
    found, stats = one_pass(classifiers, texts)
    assert stats.fallbacks == 1
    for want, got in zip(expected, found):
        assert_same(want, got)


def test_only_direct_fields_axes_of_one_run_share_a_pass(smollm2, helpdesk):
    fields, _ = helpdesk
    assert not can_share(fields[:1])
    after = axes_classifiers(smollm2, HELPDESK, RunSettings(scoring=Scoring(method="direct-after")))
    assert not can_share([fields[0], after[1]])
    # another run's fields (another prompt): not one pass
    other = axes_classifiers(smollm2, Axes((HELPDESK.axes[1], HELPDESK.axes[0])), FIELDS)
    assert not can_share([fields[0], other[0]])
    with pytest.raises(ValueError, match="one pass"):
        AxesPass([fields[0], other[0]])

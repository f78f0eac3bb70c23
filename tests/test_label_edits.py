"""An edit costs what it changes: channel keeps each label's raw scores under that label's own key.

Real SmolLM2 and a real SQLite store. Every scoring forward's rows are counted (one row is one
ticket after one label's prompt), and every answer after an edit is checked against the engine's
own run of the edited set, from scratch and without a store."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from dataclasses import replace

import pytest

from triage_app.engine.classifier import Classifier
from triage_app.engine.forward import decoder_of
from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.engine.scoring import CONTENT_FREE
from triage_app.files.clean import TextCleaning, clean_texts
from triage_app.files.store import ResultStore
from triage_app.run.job import label_keys, run_job

N = 6
THREE = LabelSet.default()
REFUND = Label("refund", "money back for an order or a charge")
FOUR = LabelSet((*THREE.labels, REFUND))
FREE = len(CONTENT_FREE)


@pytest.fixture(scope="module")
def texts(sample_rows):
    short = sorted((r["text"] for r in sample_rows[:60]), key=len)[:N]      # short: the test's time is forwards
    return short + [short[0], "  "]                                         # a duplicate and a blank


@pytest.fixture(scope="module")
def scored_db(smollm2, texts, tmp_path_factory):
    """A database holding the three-label set's results, copied for each test."""
    db = tmp_path_factory.mktemp("three") / "r.db"
    with ResultStore(db) as store:
        list(run_job(Classifier(smollm2, THREE), store, texts))
    return db


@pytest.fixture
def store(scored_db, tmp_path):
    shutil.copy(scored_db, tmp_path / "r.db")
    with ResultStore(tmp_path / "r.db") as opened:
        yield opened


@contextmanager
def scoring_rows(loaded):
    """Rows of every scoring forward (prefix caches, built without a mask, are not counted)."""
    rows = []

    def count(module, args, kwargs):
        if kwargs.get("attention_mask") is not None:
            rows.append(kwargs["input_ids"].shape[0])

    hook = decoder_of(loaded.model).register_forward_pre_hook(count, with_kwargs=True)
    try:
        yield rows
    finally:
        hook.remove()


def job(loaded, labels, store, texts):
    """(answers by row, the job's steps, rows through the model)."""
    with scoring_rows(loaded) as rows:
        steps = list(run_job(Classifier(loaded, labels), store, texts))
    return {p.index: p for s in steps for p in s.predictions}, steps, sum(rows)


def assert_fresh(loaded, labels, texts, answers):
    """The engine's own run of the set, from scratch: the same labels, the same probabilities."""
    model_reads = [t.strip() for t in clean_texts(texts, TextCleaning())]
    fresh = {p.index: p for b in Classifier(loaded, labels).run(model_reads) for p in b.predictions}
    assert sorted(answers) == sorted(fresh) == list(range(len(texts)))
    for i, want in fresh.items():
        assert answers[i].labels == labels.names and answers[i].label == want.label
        if want.is_blank:
            assert answers[i].is_blank
        else:
            assert answers[i].probabilities == pytest.approx(want.probabilities, abs=1e-4)
            assert answers[i].scores == pytest.approx(want.scores, abs=1e-3)


def test_adding_a_label_scores_only_that_label_and_answers_as_a_fresh_run(smollm2, store, texts):
    answers, steps, rows = job(smollm2, FOUR, store, texts)
    assert steps[-1].pairs == N and rows == N + FREE       # the new label's, and its content-free texts'
    assert steps[0].resumed == 0 and steps[-1].rows_done == len(texts)
    assert_fresh(smollm2, FOUR, texts, answers)
    again, steps, rows = job(smollm2, FOUR, store, texts)
    assert rows == 0 and steps[0].resumed == N + 1 and steps[-1].pairs == 0
    assert all(again[i].scores == answers[i].scores for i in range(N))


def test_describing_or_giving_examples_to_a_label_rescores_only_that_label(smollm2, store, texts):
    described = LabelSet((*THREE.labels[:2], replace(THREE.labels[2], description="sign-in and profile")))
    answers, steps, rows = job(smollm2, described, store, texts)
    assert steps[-1].pairs == N and rows == N + FREE
    assert_fresh(smollm2, described, texts, answers)
    taught = THREE.with_examples([Example("I was charged twice this month", "billing")])
    answers, steps, rows = job(smollm2, taught, store, texts)
    assert steps[-1].pairs == N and rows == N + FREE
    assert_fresh(smollm2, taught, texts, answers)


def test_removing_a_label_scores_nothing_and_answers_as_a_fresh_run(smollm2, store, texts):
    two = LabelSet(THREE.labels[:2])
    answers, steps, rows = job(smollm2, two, store, texts)
    assert rows == 0 and steps[-1].pairs == 0 and steps[0].resumed == N + 1
    assert_fresh(smollm2, two, texts, answers)     # the prior and the normalisation are the two labels' own


def test_a_rename_rescores_the_label_whose_prompt_names_it_and_an_alias_keeps_it(smollm2, store, texts):
    billing = THREE.labels[0]
    renamed = LabelSet((replace(billing, name="payments"), *THREE.labels[1:]))
    answers, steps, rows = job(smollm2, renamed, store, texts)
    assert steps[-1].pairs == N and rows == N + FREE        # the model reads the new name: a new score
    assert_fresh(smollm2, renamed, texts, answers)
    aliased = LabelSet((replace(billing, name="money", alias="billing"), *THREE.labels[1:]))
    answers, steps, rows = job(smollm2, aliased, store, texts)
    assert rows == 0 and steps[0].resumed == N + 1          # the model reads "billing" as before
    assert_fresh(smollm2, aliased, texts, answers)


def test_tickets_missing_different_labels_run_in_groups_of_those_labels(smollm2, store, texts, tmp_path):
    """Half the file was run before the fourth label came, half never: a crash mid-file, then an edit."""
    more = texts + ["The export button does nothing", "Please close my account and refund the rest"]
    answers, steps, rows = job(smollm2, FOUR, store, more)
    assert steps[-1].pairs == N + 2 * 4 and rows == N + 2 * 4 + FREE
    assert_fresh(smollm2, FOUR, more, answers)


def test_without_calibration_no_content_free_text_is_scored(smollm2, store, texts):
    from triage_app.engine.config import Scoring

    with scoring_rows(smollm2) as rows:
        steps = list(run_job(Classifier(smollm2, FOUR, scoring=Scoring(calibrate=False)), store, texts))
    assert sum(rows) == N and steps[-1].pairs == N        # the raw scores are shared across scorings


def test_each_labels_key_names_its_own_prompt_and_the_cleaning(smollm2):
    three, four = label_keys(Classifier(smollm2, THREE)), label_keys(Classifier(smollm2, FOUR))
    assert four[:3] == three and four[3] not in three
    assert label_keys(Classifier(smollm2, THREE), TextCleaning.off()) != three
    described = LabelSet((replace(THREE.labels[0], description="money"), *THREE.labels[1:]))
    assert label_keys(Classifier(smollm2, described))[1:] == three[1:]


TEN = LabelSet.from_names(["billing", "technical", "account", "refund", "shipping", "cancellation",
                           "feature request", "security", "onboarding", "feedback"])
ELEVEN = LabelSet((*TEN.labels, Label("outage")))


@pytest.mark.slow
def test_bench_passes_per_ticket_when_a_label_is_added(smollm2, sample_rows, tmp_path):
    """docs/bench/label_edits.txt: a fully scored 10-label channel run on 40 tickets, then an 11th label;
    against the same edit re-scored whole (fresh=True: what the set-wide key made every edit cost)."""
    import time

    texts = [r["text"] for r in sample_rows[:40]]
    with ResultStore(tmp_path / "r.db") as store:
        list(run_job(Classifier(smollm2, TEN), store, texts))
        for fresh in (False, True):
            with scoring_rows(smollm2) as rows:
                start = time.perf_counter()
                steps = list(run_job(Classifier(smollm2, ELEVEN), store, texts, fresh=fresh))
                seconds = time.perf_counter() - start
            answers = {p.index: p for s in steps for p in s.predictions}
            print(f"\n{'whole set' if fresh else 'per label'}: {steps[-1].pairs / len(texts):.3f} ticket passes per "
                  f"ticket ({steps[-1].pairs} pairs), {sum(rows) / len(texts):.3f} rows per ticket with the "
                  f"content-free texts ({sum(rows)}), {seconds:.1f} s")
            if fresh:
                assert all(answers[i].label == edited[i].label for i in range(len(texts)))
                assert all(answers[i].scores == pytest.approx(edited[i].scores, abs=1e-3) for i in range(len(texts)))
            else:
                edited = answers
                assert steps[-1].pairs == len(texts)

"""Channel reads a ticket's first 128 tokens where no limit is set (docs/quality/channel_tokens.md): its
own limit, the results a database holds for tickets that short found again, and what a cut is called.

Real parts throughout: the bundled SmolLM2, a real SQLite store, the command line and its CSV.
"""

from __future__ import annotations

import json

import pytest

from cli_helpers import read_rows, run_main, write_rows
from triage_app.cli import options
from triage_app.cli.parser import build_parser
from triage_app.engine.build import classifier_for
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import DEFAULT_MAX_TICKET_TOKENS, METHOD_LIMIT, RunConfig, RunSettings, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.engine.scoring import CONTENT_FREE
from triage_app.files.clean import TextCleaning, model_texts
from triage_app.files.store import ResultStore, StoredResult, text_hash
from triage_app.run.job import label_keys, label_keys_of, run_job, run_key

LABELS = LabelSet.default()
SHORT = ["Refund my last payment please", "The app crashes when I open settings", "How do I change my email?",
         "I was charged twice this month"]
PARAGRAPH = ("I have been trying to export my monthly invoices to PDF for the accounting team, and every time the "
             "export runs for a few minutes and then fails with a timeout error. ")
# 141 and 161 tokens: past channel's 128 and a person's 136 below; a run at 1024 reads them whole, once per label
# (the reference loop too), so their length is most of this file's time
LONG = [PARAGRAPH * 4, "My card was charged but the order never arrived. " * 16]
TEXTS = SHORT + LONG


def tokens(smollm2, text: str) -> int:
    return len(smollm2.tokenizer(text, add_special_tokens=False).input_ids)


def by_row(steps) -> dict:
    return {p.index: p for s in steps for p in s.predictions}


@pytest.fixture(scope="module")
def at_128(smollm2):
    """Every ticket on channel's fast path at its own limit, by row: what more than one test below compares with."""
    return by_row(classifier_for(smollm2, LABELS, RunSettings()).run(TEXTS, RunConfig()))


@pytest.fixture(scope="module")
def at_1024(smollm2):
    """Every ticket as the model reads it (cleaned), read to 1024: every run's limit before channel had its own."""
    return by_row(Classifier(smollm2, LABELS).run(model_texts(TEXTS, TextCleaning()), RunConfig()))


def test_the_tickets_are_as_the_tests_need(smollm2):
    assert all(tokens(smollm2, t) <= 128 for t in SHORT)
    assert all(136 < tokens(smollm2, t) <= DEFAULT_MAX_TICKET_TOKENS for t in LONG)


def test_channel_reads_its_own_head_and_every_other_method_the_shared_limit(smollm2):
    for method in ("channel", "direct", "direct-after", "direct-fields"):
        classifier = classifier_for(smollm2, LABELS, RunSettings(scoring=Scoring(method=method)))
        assert classifier.ticket_limit == (128 if method == "channel" else DEFAULT_MAX_TICKET_TOKENS), method


def test_a_limit_a_person_sets_applies_to_channel_too_and_its_cuts_are_flagged(smollm2):
    parse = lambda *more: options.settings(build_parser().parse_args(["classify", "t.csv", "-o", "o.csv", *more]))
    assert parse().max_ticket_tokens == METHOD_LIMIT
    assert parse("--max-ticket-tokens", "64").max_ticket_tokens == 64
    assert parse("--max-ticket-tokens", "0").max_ticket_tokens == 0   # the context's room, as before
    person = classifier_for(smollm2, LABELS, parse("--max-ticket-tokens", "64"))
    assert person.ticket_limit == 64 and person.flags_cuts
    assert [t.truncated for t in person.method.encode(TEXTS)] == [False] * 4 + [True] * 2
    assert classifier_for(smollm2, LABELS, parse("--max-ticket-tokens", "1024")).ticket_limit == 1024
    own = classifier_for(smollm2, LABELS, parse())
    assert own.ticket_limit == 128 and not own.flags_cuts
    assert [t.truncated for t in own.method.encode(TEXTS)] == [False] * 4 + [True] * 2


def test_the_fast_path_at_channels_own_limit_reads_the_references_tokens_and_gives_its_scores(smollm2, at_128,
                                                                                             at_1024):
    classifier = classifier_for(smollm2, LABELS, RunSettings())
    encoded = classifier.method.encode(LONG)
    starts = classifier.method.starts
    # the ticket's head after each label's prompt: 128 tokens, give or take a merge where the head ends
    assert all(120 <= len(ids) - start <= 128 for t in encoded for ids, start in zip(t.full_ids, starts))
    reference = by_row(classifier.run(LONG, RunConfig(reference=True)))
    fast = {i: at_128[len(SHORT) + i] for i in range(len(LONG))}
    whole = {i: at_1024[len(SHORT) + i] for i in range(len(LONG))}   # the same tickets, read to 1024
    for i in range(len(LONG)):
        assert fast[i].label == reference[i].label
        assert fast[i].scores == pytest.approx(reference[i].scores, abs=1e-3)
        assert fast[i].scores != pytest.approx(whole[i].scores, abs=1e-3)   # a cut ticket reads other tokens
        assert not fast[i].truncated and not reference[i].truncated      # channel's own reading: not flagged


def test_a_database_written_at_1024_answers_the_short_tickets_and_scores_again_exactly_the_long_ones(smollm2,
                                                                                                   tmp_path, at_128):
    before = Classifier(smollm2, LABELS)   # the limit every run had before channel had its own
    now = classifier_for(smollm2, LABELS, RunSettings())
    with ResultStore(tmp_path / "r.db") as store:
        then = by_row(run_job(before, store, TEXTS))
        steps = list(run_job(now, store, TEXTS))
        assert steps[0].resumed == len(SHORT)                   # the short ones, from the store
        assert steps[-1].pairs == len(LONG) * len(LABELS.names)  # the long ones alone went to the model
        again = by_row(steps)
        alone = at_128
        for i in range(len(SHORT)):
            assert again[i].scores == then[i].scores            # stored, exactly
        for i in range(len(SHORT), len(TEXTS)):
            assert again[i].scores != pytest.approx(then[i].scores, abs=1e-3)    # never the 1024 answer
            assert again[i].scores == pytest.approx(alone[i].scores, abs=1e-4) and not again[i].truncated
        # the long ones under the 128 keys only; the short ones stayed under the keys of then
        cut = label_keys(now)
        assert [store.count(k) for k in cut] == [len(LONG)] * len(cut)
        assert list(run_job(now, store, TEXTS))[-1].pairs == 0
        assert by_row(run_job(before, store, TEXTS)) == then     # and the 1024 run still finds all of its own


def test_a_short_ticket_scored_at_128_is_found_by_a_run_at_1024(smollm2, tmp_path):
    now = classifier_for(smollm2, LABELS, RunSettings())
    with ResultStore(tmp_path / "r.db") as store:
        first = by_row(run_job(now, store, TEXTS))
        later = list(run_job(Classifier(smollm2, LABELS), store, TEXTS))
        assert later[0].resumed == len(SHORT) and later[-1].pairs == len(LONG) * len(LABELS.names)
        assert all(by_row(later)[i].scores == first[i].scores for i in range(len(SHORT)))


def test_a_database_a_person_wrote_at_their_own_limit_still_answers_at_it(smollm2, tmp_path):
    """Before, every ticket of a run at 136 was kept under the 136 keys; now a short one goes under
    1024's. A database written then still answers the short ones."""
    person = classifier_for(smollm2, LABELS, RunSettings(max_ticket_tokens=136))
    read = model_texts(TEXTS, TextCleaning())   # what the model reads, and the store keys by
    texts = {text_hash(t): t for t in read + list(CONTENT_FREE)}
    keys = label_keys_of(person, texts)
    assert keys.read_whole == set(texts) - {text_hash(t) for t in read[len(SHORT):]}
    with ResultStore(tmp_path / "now.db") as now, ResultStore(tmp_path / "then.db") as then:
        first = by_row(run_job(person, now, TEXTS))
        assert now.count(keys.cut[0]) == len(LONG) and now.count(keys.whole[0]) == len(texts) - len(LONG)
        for whole, cut in zip(keys.whole, keys.cut):   # every text under the 136 keys, as the code before wrote it
            then.save(cut, now.lookup(whole, texts) | now.lookup(cut, texts))
        again = list(run_job(person, then, TEXTS))
        assert again[0].resumed == len(TEXTS) and again[-1].pairs == 0
        assert by_row(again) == first


def test_the_export_flags_only_the_tickets_a_persons_limit_cut(tmp_path, capsys, bundled_model):
    path = write_rows(tmp_path / "t.csv", [{"id": i, "body": t} for i, t in enumerate(TEXTS)])
    common = ["--model", "smollm2-135m", "--dtype", "float32", "--db", tmp_path / "r.db"]
    for limit, flagged in (([], []), (["--max-ticket-tokens", "64"], [4, 5])):
        out, stats = tmp_path / "out.csv", tmp_path / "stats.json"
        code, _, err = run_main(capsys, "classify", path, "-o", out, "--stats-json", stats, *common, *limit)
        assert code == 0, err
        rows = read_rows(out)
        assert [r for r, row in enumerate(rows) if row["truncated"] == "True"] == flagged
        assert all(row["label"] for row in rows)
        assert json.loads(stats.read_text())["truncated"] == len(flagged)


def test_whole_set_answers_stored_before_labels_had_keys_still_answer_the_short_tickets(smollm2, tmp_path, at_1024):
    """A channel database from before each label had its own key holds whole-set answers under the
    1024 classifier's run key: a run at channel's own limit still finds the short tickets' there."""
    before = Classifier(smollm2, LABELS)
    now = classifier_for(smollm2, LABELS, RunSettings())
    read = model_texts(TEXTS, TextCleaning())
    rows = at_1024
    answers = {text_hash(t): rows[i] for i, t in enumerate(read)}
    with ResultStore(tmp_path / "r.db") as store:
        store.save(run_key(before, TextCleaning()),
                   {h: StoredResult(p.labels, p.scores, p.truncated, p.fallback) for h, p in answers.items()})
        steps = list(run_job(now, store, TEXTS))
        assert steps[0].resumed == len(SHORT) and steps[-1].pairs == len(LONG) * len(LABELS.names)
        assert [by_row(steps)[i].scores for i in range(len(SHORT))] == [answers[text_hash(t)].scores for t in SHORT]

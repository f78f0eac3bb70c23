"""Runs end to end: blanks, truncation, statistics, cancel (the default scoring, or direct where a
test reads direct scoring's prompt; tests/test_channel.py has channel's own)."""

from __future__ import annotations

from triage_app.bench.workloads import first_sentence
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.engine.labels import LabelSet
from triage_app.engine.config import Scoring
from triage_app.engine.verify import collect, verify

DIRECT = Scoring(method="direct")


def test_blank_tickets_are_kept_in_place_and_not_classified(smollm2):
    classifier = Classifier(smollm2, LabelSet.default())
    texts = ["My invoice is wrong.", "   ", "", "I cannot log in."]
    predictions = collect(classifier, texts, RunConfig())
    assert sorted(predictions) == [0, 1, 2, 3]
    assert [predictions[i].is_blank for i in range(4)] == [False, True, True, False]
    assert predictions[1].label is None and predictions[0].label in classifier.label_set.names


def test_long_tickets_are_truncated_by_policy_and_flagged(smollm2):
    classifier = Classifier(smollm2, LabelSet.default(), max_ticket_tokens=64, scoring=DIRECT)
    long_text = "The export to PDF fails with a timeout every single time. " * 200
    texts = ["Refund please.", long_text]
    tickets = classifier.prompt.encode(texts)
    assert [t.truncated for t in tickets] == [False, True]
    tail = len(smollm2.tokenizer(classifier.prompt.tail, add_special_tokens=False).input_ids)
    assert len(tickets[1].full_ids) <= len(classifier.prompt.ids) + 64 + tail
    runs = list(classifier.run(texts, RunConfig()))
    assert runs[-1].stats.truncated == 1
    predictions = {p.index: p for r in runs for p in r.predictions}
    assert predictions[1].truncated and not predictions[0].truncated


def test_tickets_longer_than_the_context_do_not_crash(tiny_qwen):
    """The tiny model has a 512-token context; a 20k-character ticket must still be classified."""
    classifier = Classifier(tiny_qwen, LabelSet.default(), max_ticket_tokens=None, scoring=DIRECT)
    texts = ["short one", "word salad and error codes E1234 " * 600]
    tickets = classifier.prompt.encode(texts)
    assert tickets[1].truncated and len(tickets[1].full_ids) + 4 <= tiny_qwen.context_tokens
    reference = collect(classifier, texts, RunConfig(reference=True))
    fast = collect(classifier, texts, RunConfig())
    assert [fast[i].label for i in range(2)] == [reference[i].label for i in range(2)]


def test_statistics_add_up(smollm2, sample_rows):
    classifier = Classifier(smollm2, LabelSet.default(), scoring=DIRECT)
    # four batches of 4; first sentences still differ in length enough for sorting to halve the padding
    texts = [first_sentence(r["text"]) for r in sample_rows[:16]]
    config = RunConfig(batch_size=4, token_budget=None)
    runs = list(classifier.run(texts, config))
    stats = runs[-1].stats
    tickets = classifier.prompt.encode(texts)
    suffix = [len(t.suffix_ids) for t in tickets]
    P = len(classifier.prompt.ids)
    extra = classifier.method.tree.size  # label-token inputs per row ("b" of "billing")
    assert stats.done == stats.total == 16
    assert stats.batches == len(runs) == 4
    assert stats.real_tokens == sum(suffix) + 16 * extra
    assert stats.tokens_processed == P + stats.real_tokens + stats.padding_tokens
    assert stats.prefix_tokens == P and stats.prefix_tokens_saved == 16 * P
    assert stats.global_padding_inflation == 16 * max(suffix) / sum(suffix)
    unsorted = list(classifier.run(texts, RunConfig(batch_size=4, token_budget=None, buckets=False)))[-1].stats
    assert 0 < stats.padding_fraction < unsorted.padding_fraction / 2  # sorted by length: less padding
    assert stats.items_per_s > 0 and stats.eta_seconds == 0


def test_stopping_between_batches_keeps_finished_results(smollm2, sample_rows):
    classifier = Classifier(smollm2, LabelSet.default(), scoring=DIRECT)   # the loop, not the method, is tested
    texts = [first_sentence(r["text"]) for r in sample_rows[:20]]   # short: the batches, not their length, are tested
    finished = []
    run = classifier.run(texts, RunConfig(batch_size=4, token_budget=None))
    for batch in run:
        finished += batch.predictions
        if len(finished) >= 8:
            run.close()  # cooperative cancel: nothing more runs
            break
    assert len(finished) == 8 and len({p.index for p in finished}) == 8
    # the classifier is still usable, and the finished results were right
    again = collect(classifier, texts, RunConfig(batch_size=4, token_budget=None))
    assert all(again[p.index].label == p.label for p in finished)


def test_verify_reports_agreement(smollm2, sample_rows):
    classifier = Classifier(smollm2, LabelSet.default())
    # first sentences: verify's report is what is tested; whole tickets only make the reference slower
    # (the law over the length range is tests/test_channel.py's and tests/test_direct.py's)
    report = verify(classifier, [first_sentence(r["text"]) for r in sample_rows[:60]], probes=6)
    assert report.ok and report.probes == 6 and report.agree == 6
    assert report.max_score_diff < report.tolerance
    assert "6/6 labels identical" in report.summary()


def test_verify_catches_a_wrong_fast_path(smollm2, sample_rows):
    """Fed predictions that are not the fast path's, verify must fail (the check can fail)."""
    from triage_app.engine.classifier import Prediction

    classifier = Classifier(smollm2, LabelSet.default())
    texts = [first_sentence(r["text"]) for r in sample_rows[:10]]   # whole tickets only make the reference slower
    real = collect(classifier, texts, RunConfig())
    # rotate every ticket's scores by one label: a confident, wrong answer
    wrong = {i: Prediction(i, p.labels, p.scores[1:] + p.scores[:1]) for i, p in real.items()}
    report = verify(classifier, texts, probes=4, fast=wrong)
    assert not report.ok and report.failures


def test_nothing_to_score_runs_nothing(smollm2):
    """All blank (or a job whose every text was stored before): no prefix, no calibration run."""
    classifier = Classifier(smollm2, LabelSet.default())
    batches = list(classifier.run(["", "  "]))
    assert len(batches) == 1 and all(p.is_blank for p in batches[0].predictions)
    assert not classifier._prefixes
    assert list(classifier.run([])) == []


def test_tickets_are_encoded_in_chunks_just_ahead_of_their_batches(tiny_qwen, sample_rows, monkeypatch):
    """The first labels come after one small chunk's tokenising, and no more than the largest chunk's
    token ids are held at once; the labels are the same as from one plan over every ticket."""
    from triage_app.engine import classifier as run_module

    texts = [r["text"] for r in sample_rows[:100]]
    labels = LabelSet.from_names(["billing", "technical", "account", "refund"])
    monkeypatch.setattr(run_module, "FIRST_CHUNK", 10**6)
    monkeypatch.setattr(run_module, "LARGEST_CHUNK", 10**6)
    whole = list(Classifier(tiny_qwen, labels, scoring=DIRECT).run(texts, RunConfig(batch_size=8)))

    monkeypatch.setattr(run_module, "FIRST_CHUNK", 8)
    monkeypatch.setattr(run_module, "LARGEST_CHUNK", 32)
    classifier = Classifier(tiny_qwen, labels, scoring=DIRECT)
    encoded, encode = [], classifier.prompt.encode
    monkeypatch.setattr(classifier.prompt, "encode", lambda chunk: encoded.append(len(chunk)) or encode(chunk))
    run = classifier.run(texts, RunConfig(batch_size=8))
    first = next(run)
    assert encoded == [3, 8] and all(p.index < 8 for p in first.predictions)  # content-free, then one chunk
    chunked = [first, *run]
    assert encoded == [3, 8, 16, 32, 32, 12]
    got = {p.index: p for b in chunked for p in b.predictions}
    want = {p.index: p for b in whole for p in b.predictions}
    assert sorted(got) == list(range(100))
    for i, p in want.items():
        assert got[i].label == p.label and got[i].fallback == p.fallback
        assert max(abs(a - b) for a, b in zip(p.scores, got[i].scores)) < 1e-3
    for field in ("done", "fallbacks", "truncated", "real_tokens", "global_padding_inflation"):
        assert getattr(chunked[-1].stats, field) == getattr(whole[-1].stats, field), field
    assert chunked[-1].stats.fallbacks > 0

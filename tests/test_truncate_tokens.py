"""A ticket limit counts tokens for every ticket (a hunt's finding): a text no longer than the limit in
characters was never tokenized to check, and one of CJK characters or emoji (several tokens each) was read at
two to four times the limit, not flagged. Results stored while such a text was read whole are never reused
for it now that it is cut (run/job.distinct_texts keys it apart)."""

from __future__ import annotations

from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.labels import LabelSet
from triage_app.files.store import ResultStore, StoredResult, text_hash
from triage_app.run.job import READ_BY_TOKENS, run_job, run_key

LABELS = LabelSet.from_names(["billing", "technical"])
EMOJI = "💳🙂😡🔥✅❌📦🚚" * 4          # 32 characters, four bytes each: each a token or more of the tiny tokenizer


def test_a_text_of_few_characters_and_many_tokens_is_cut_to_the_limit_and_flagged(tiny_qwen):
    classifier = Classifier(tiny_qwen, LABELS, max_ticket_tokens=64, scoring=Scoring(method="direct"))
    assert len(EMOJI) <= 64 < len(tiny_qwen.tokenizer(EMOJI, add_special_tokens=False)["input_ids"])
    assert classifier.cut([EMOJI, "my card was charged twice"]) == [True, False]
    ticket = classifier.method.encode([EMOJI])[0]
    assert ticket.truncated and len(ticket.full_ids) - len(classifier.method.encode(["x"])[0].full_ids) <= 64


def test_a_result_stored_when_such_a_text_was_read_whole_is_not_its_result_now(tiny_qwen, tmp_path):
    classifier = Classifier(tiny_qwen, LABELS, max_ticket_tokens=64, scoring=Scoring(method="direct"))
    plain = "my card was charged twice"
    planted = StoredResult(LABELS.names, [-0.01, -5.0], False, False)      # as an earlier version stored them
    with ResultStore(tmp_path / "r.db") as store:
        key = run_key(classifier)
        store.save(key, {text_hash(EMOJI): planted, text_hash(plain): planted})
        steps = list(run_job(classifier, store, [EMOJI, plain], RunConfig()))
        answers = {p.index: p for step in steps for p in step.predictions}
        assert answers[1].scores == planted.scores                          # an ASCII text's, reused
        assert answers[0].scores != planted.scores and answers[0].truncated   # the cut text scored anew
        assert steps[0].resumed == 1
        assert set(store.lookup(key, [text_hash(EMOJI) + READ_BY_TOKENS])) == {text_hash(EMOJI) + READ_BY_TOKENS}

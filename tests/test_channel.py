"""Channel scoring with the real SmolLM2: log p(ticket | label), token-clean cuts, fast == reference."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from triage_app.bench.workloads import first_sentence
from triage_app.engine.methods.channel import ChannelPrompt
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.engine.config import Scoring
from triage_app.engine.scoring import decide, prior
from triage_app.engine.verify import collect

CHANNEL = Scoring(method="channel", calibrate=False)
# tickets that sit between two labels: their decisions are genuine near-ties
AMBIGUOUS = ["I was charged twice and now the app crashes when I open the invoice page",
             "Cannot log in to pay my bill, the password reset email never arrives",
             "My account was billed after I deleted it"]


@pytest.fixture(scope="module")
def channel(smollm2):
    return Classifier(smollm2, LabelSet.default(), scoring=CHANNEL)


def test_every_cut_is_token_clean_and_the_ticket_reads_the_same_after_every_label(smollm2, sample_rows):
    prompt = ChannelPrompt(smollm2.tokenizer, LabelSet.default())
    texts = [r["text"] for r in sample_rows]
    tickets = prompt.encode(texts)
    assert all(t.uses_prefix for t in tickets)
    for t in tickets[::50]:
        for label, prefix, full in zip(LabelSet.default().labels, prompt.ids, t.full_ids):
            whole = smollm2.tokenizer(prompt.render(label, texts[t.index].strip()), add_special_tokens=False).input_ids
            assert whole[: len(full)] == full == prefix + t.suffix_ids    # the ticket's end-of-turn is not scored


def test_the_score_is_the_tickets_log_likelihood_after_the_label(smollm2, channel):
    """Computed another way: log p(prefix + ticket) - log p(prefix), each from its own forward."""
    text = AMBIGUOUS[0]
    got = collect(channel, [text], RunConfig(batch_size=1))[0]
    model = smollm2.model

    def total(ids):
        x = torch.tensor([ids])
        logprobs = F.log_softmax(model(input_ids=x).logits[0].float(), dim=-1)
        return logprobs[:-1].gather(1, x[0, 1:, None]).sum()

    ticket = channel.method.channel.encode([text])[0]
    by_hand = torch.stack([total(full) - total(prefix) for full, prefix in zip(ticket.full_ids, channel.method.channel.ids)])
    assert got.scores == pytest.approx(F.log_softmax(by_hand, dim=0).tolist(), abs=1e-3)


@pytest.fixture(scope="module")
def both_paths(channel, sample_rows):
    """Token log-probs [N, L, 1] (and the content-free ones) of the same tickets from both paths: two sample
    tickets (the longer past 600 characters) and the near-ties, in batches of mixed lengths; each ticket is a
    reference pass per label, and the length range is test_direct.py's and the other tests' here."""
    texts = [r["text"] for r in sample_rows[::300]] + AMBIGUOUS

    def run(config):
        parts = {}
        for batch in channel.run(texts, config):
            parts.update({p.index: lp for p, lp in zip(batch.predictions, batch.token_logprobs)})
        return torch.stack([parts[i] for i in range(len(texts))]), channel.content_free(config)

    return run(RunConfig(batch_size=3)), run(RunConfig(reference=True))


@pytest.mark.parametrize("scoring", [CHANNEL, Scoring(method="channel"), Scoring(method="channel", temperature=2.0)])
def test_fast_path_equals_the_reference_on_scores(both_paths, scoring):
    (fast, fast_free), (ref, ref_free) = both_paths
    got = decide(scoring, fast, prior(scoring, fast_free))
    want = decide(scoring, ref, prior(scoring, ref_free))
    assert (got - want).abs().max() < 1e-3
    assert got.argmax(1).tolist() == want.argmax(1).tolist()


def test_near_ties_are_decided_the_same_way(both_paths):
    (fast, _), (ref, _) = both_paths
    fast, ref = decide(CHANNEL, fast, None)[-len(AMBIGUOUS):], decide(CHANNEL, ref, None)[-len(AMBIGUOUS):]
    top2 = ref.topk(2, dim=1).values
    ties = (top2[:, 0] - top2[:, 1] < 1.0).nonzero().flatten().tolist()
    assert ties, "no near-tie among the ambiguous tickets: the test would prove nothing"
    for i in ties:
        assert fast[i].argmax() == ref[i].argmax()
        assert (fast[i] - ref[i]).abs().max() < 1e-3


def test_without_the_prefix_cache_whole_prompts_run_in_padded_batches(smollm2, sample_rows, channel):
    texts = [first_sentence(r["text"]) for r in sample_rows[:4]]   # whole prompts of short tickets: the batching is tested
    runs = list(channel.run(texts, RunConfig(prefix_cache=False, batch_size=4)))
    # the run's first batch is kept small for a quick first label; the rest share one padded batch
    assert max(len(r.predictions) for r in runs) > 1 and runs[-1].stats.padding_tokens > 0
    uncached = {p.index: p for r in runs for p in r.predictions}
    cached = collect(channel, texts, RunConfig())
    assert all(cached[i].scores == pytest.approx(uncached[i].scores, abs=1e-3) for i in range(4))


def test_tickets_whose_cut_breaks_run_whole_in_batches_and_equal_the_reference(tiny_qwen, sample_rows):
    """tiny-qwen's tokenizer merges across the cut; random weights make near-ties."""
    labels = LabelSet.from_names(["billing", "technical", "account", "refund"])
    classifier = Classifier(tiny_qwen, labels, scoring=CHANNEL)
    texts = [r["text"] for r in sample_rows[:150]]
    broken = {t.index for t in classifier.method.channel.encode(texts) if not t.uses_prefix}
    assert 0 < len(broken) < len(texts)
    runs = list(classifier.run(texts, RunConfig(batch_size=16)))
    assert runs[-1].stats.fallbacks == len(broken)
    whole = [r for r in runs if {p.index for p in r.predictions} <= broken]
    assert max(len(r.predictions) for r in whole) > 1, "the whole prompts ran one at a time"
    fast = {p.index: p for r in runs for p in r.predictions}
    reference = collect(classifier, texts, RunConfig(reference=True))
    assert min(p.log_margin for p in reference.values()) < 0.05, "the test needs real near-ties"
    for i, ref in reference.items():
        assert fast[i].scores == pytest.approx(ref.scores, abs=1e-3)
        assert fast[i].label == ref.label and fast[i].fallback == (i in broken)


def test_long_tickets_are_truncated_to_fit_after_every_label(tiny_qwen):
    """The tiny model has a 512-token context; a 20k-character ticket keeps its head and is flagged."""
    classifier = Classifier(tiny_qwen, LabelSet.default(), max_ticket_tokens=None, scoring=CHANNEL)
    texts = ["short one", "word salad and error codes E1234 " * 600]
    tickets = classifier.method.channel.encode(texts)
    assert [t.truncated for t in tickets] == [False, True]
    assert all(len(ids) + 8 <= tiny_qwen.context_tokens for ids in tickets[1].full_ids)
    runs = list(classifier.run(texts, RunConfig()))
    assert runs[-1].stats.truncated == 1
    fast = {p.index: p for r in runs for p in r.predictions}
    reference = collect(classifier, texts, RunConfig(reference=True))
    assert fast[1].truncated and not fast[0].truncated
    assert all(fast[i].scores == pytest.approx(reference[i].scores, abs=1e-3) for i in range(2))


def test_examples_go_into_their_own_labels_prompt_only(smollm2):
    labels = LabelSet((Label("billing", "money"), Label("technical")),
                      (Example("I was charged twice", "billing"),))
    prompt = ChannelPrompt(smollm2.tokenizer, labels)
    assert "billing (money)" in prompt.texts[0] and "I was charged twice" in prompt.texts[0]
    assert "technical" in prompt.texts[1] and "charged" not in prompt.texts[1]


def test_channel_and_direct_results_are_never_mixed_in_the_store(smollm2):
    direct = Classifier(smollm2, LabelSet.default(), scoring=Scoring(method="direct"))
    channel = Classifier(smollm2, LabelSet.default())
    assert hasattr(channel.method, "channel") and not hasattr(direct.method, "channel")   # channel is the default
    assert direct.fingerprint != channel.fingerprint
    with pytest.raises(ValueError, match="method"):
        Scoring(method="generate")


def test_the_first_labels_wait_for_one_small_forward_per_step_and_are_the_references(smollm2, sample_rows):
    """Before the first labels: one forward for every label's prefix, one for calibration, one for a
    first batch whose rows x width over all labels stay within FIRST_BATCH_TOKENS; its scores are
    the reference's."""
    from triage_app.engine import classifier as run_module
    from triage_app.engine.forward import decoder_of

    classifier = Classifier(smollm2, LabelSet.default(), scoring=Scoring(method="channel"))
    texts = [r["text"] for r in sample_rows[:100]]
    shapes = []
    hook = decoder_of(smollm2.model).register_forward_pre_hook(
        lambda module, args, kwargs: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True)
    try:
        run = classifier.run(texts, RunConfig())
        first = next(run)
        run.close()
    finally:
        hook.remove()
    labels = len(LabelSet.default().labels)
    assert len(shapes) == 3 and shapes[0][0] == labels                # prefixes, calibration, first batch
    rows, width = shapes[-1]
    assert rows == labels * len(first.predictions) and (rows * width <= run_module.FIRST_BATCH_TOKENS or rows == labels)
    reference = collect(classifier, [texts[p.index] for p in first.predictions], RunConfig(reference=True))
    for k, p in enumerate(first.predictions):
        assert p.label == reference[k].label and p.scores == pytest.approx(reference[k].scores, abs=1e-3)


def test_prefixes_built_together_are_the_prefixes_built_one_at_a_time(smollm2, channel):
    from triage_app.engine.forward import decoder_of
    from triage_app.engine.prefix_cache import PrefixCache

    prompts = channel.method.prefix_ids
    assert len({len(p) for p in prompts}) > 1, "prompts of one length would not test the padding"
    together = PrefixCache.many(decoder_of(smollm2.model), prompts, "cpu")
    for built, prompt in zip(together, prompts):
        alone = PrefixCache(decoder_of(smollm2.model), prompt, "cpu")
        assert built.length == alone.length == len(prompt)
        assert torch.allclose(built.last_hidden, alone.last_hidden, atol=1e-4)
        for (k, v), (k1, v1) in zip(built.layers, alone.layers, strict=True):
            assert k.shape == k1.shape and torch.allclose(k, k1, atol=1e-4) and torch.allclose(v, v1, atol=1e-4)


def test_a_subset_of_labels_scores_those_labels_as_the_whole_run_does(smollm2, channel):
    """Classifier.score runs only the labels asked for (an edit's), in their order, with their caches."""
    texts = AMBIGUOUS
    whole = {p.index: lp for b in channel.run(texts) for p, lp in zip(b.predictions, b.token_logprobs)}
    narrowed = Classifier(smollm2, LabelSet.default(), scoring=CHANNEL)
    parts = {t.index: lp for s in narrowed.score(texts, [2, 0]) for t, lp in zip(s.tickets, s.token_logprobs)}
    assert len(narrowed._prefixes) == 2                   # the third label's prefix was never built
    for i in range(len(texts)):
        assert parts[i].shape == (2, 1)
        assert torch.allclose(parts[i], whole[i][[2, 0]], atol=1e-3)
    full = channel.method.channel.encode(texts)
    assert [t.full_ids for t in channel.method.channel.encode(texts, [2, 0])] == [[f.full_ids[2], f.full_ids[0]] for f in full]

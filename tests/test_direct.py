"""The law of the engine: every fast path gives the reference loop's labels and scores."""

from __future__ import annotations

import itertools

import pytest

from triage_app.bench.workloads import first_sentence
from triage_app.engine import device, models
from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig
from triage_app.engine.labels import LabelSet
from triage_app.engine.prefix_cache import PrefixCache
from triage_app.engine.methods.direct import score_batch
from triage_app.engine.forward import LabelTree, decoder_of
from triage_app.engine.config import Scoring
from triage_app.engine.verify import collect, compare, probe_indices

FP32_TOLERANCE = 1e-3
DIRECT = Scoring(method="direct")  # this file tests direct scoring's own machinery


def spread(rows, n):
    """n sample tickets from the shortest to the longest."""
    texts = [r["text"] for r in rows]
    return [texts[i] for i in probe_indices([len(t) for t in texts], n)]


def assert_same(reference, fast, tolerance=FP32_TOLERANCE):
    assert reference.keys() == fast.keys()
    for i, ref in reference.items():
        assert fast[i].label == ref.label, f"ticket {i}"
        assert max(abs(a - b) for a, b in zip(ref.scores, fast[i].scores)) < tolerance, f"ticket {i}"


def test_label_tree_shares_leading_tokens():
    tree = LabelTree.build([[1, 2, 3], [1, 2, 4], [1, 5], [6]])
    # inputs needed: 1, then 1-2; labels score at the prompt end (-1) and at those nodes
    assert tree.node_tokens == (1, 2)
    assert tree.node_depth == (0, 1)
    assert tree.ancestors == ((0,), (0, 1))
    assert tree.steps == (((-1, 1), (0, 2), (1, 3)), ((-1, 1), (0, 2), (1, 4)), ((-1, 1), (0, 5)), ((-1, 6),))
    assert tree.leaf_paths() == [(0, 1)]
    assert LabelTree.build([[7], [8]]).leaf_paths() == [()]


@pytest.fixture(scope="module")
def sample_reference(smollm2, sample_rows):
    # 12 tickets spread over the sample's lengths, its shortest and longest included: the longest ticket's
    # reference passes, and the steps between, are what the range needs; more steps between only cost passes
    texts = spread(sample_rows, 12)
    classifier = Classifier(smollm2, LabelSet.default(), scoring=DIRECT)
    return classifier, texts, collect(classifier, texts, RunConfig(reference=True))


def test_fast_path_equals_reference_from_shortest_to_longest(sample_reference):
    classifier, texts, reference = sample_reference
    lengths = [len(t.suffix_ids) for t in classifier.prompt.encode(texts)]
    assert max(lengths) > 10 * min(lengths)  # the sample really spans the length range
    assert_same(reference, collect(classifier, texts, RunConfig(token_budget=512)))


@pytest.fixture(scope="module")
def half_reference(sample_reference):
    """4 of those tickets, the shortest and the longest among them: each switch is checked on
    two batches of mixed lengths (batches of 2 below); the whole range is the test above's."""
    classifier, texts, reference = sample_reference
    keep = probe_indices([len(t) for t in texts], 4)
    return classifier, [texts[i] for i in keep], {k: reference[i] for k, i in enumerate(keep)}


@pytest.mark.parametrize("prefix_cache, buckets, full_head", list(itertools.product([True, False], repeat=3)))
def test_every_switch_combination_agrees(half_reference, prefix_cache, buckets, full_head):
    classifier, texts, reference = half_reference
    config = RunConfig(prefix_cache=prefix_cache, buckets=buckets, full_head=full_head, batch_size=2)
    assert_same(reference, collect(classifier, texts, config))


def test_multi_token_labels_with_shared_leading_tokens(smollm2, sample_rows):
    labels = LabelSet.from_names(["billing", "billing dispute", "technical", "technical outage", "account"])
    classifier = Classifier(smollm2, labels, scoring=DIRECT)
    ids = classifier.prompt.label_ids
    assert len(ids[0]) == 2 and ids[1][:2] == ids[0] and len(ids[1]) > 2  # "b" "illing" (" dispute")
    assert ids[2] == ids[3][: len(ids[2])] and len(ids[3]) > len(ids[2])
    # the label tree is what is tested; the length range is the first test's, so first sentences here: a
    # ticket's reference passes, one per path through the tree, were this test's time
    texts = spread([dict(r, text=first_sentence(r["text"])) for r in sample_rows[:100]], 4)
    reference = collect(classifier, texts, RunConfig(reference=True))
    assert_same(reference, collect(classifier, texts, RunConfig()))
    assert_same(reference, collect(classifier, texts, RunConfig(full_head=True, buckets=False)))


def test_label_scores_are_exact_log_probs(smollm2):
    """A two-token label's score is log p(t0) + log p(t1 | t0), computed by hand with the model."""
    import torch

    scoring = Scoring(length="sum", calibrate=False, method="direct")
    classifier = Classifier(smollm2, LabelSet.default(), scoring=scoring)
    full = classifier.prompt.encode(["My card was charged twice."])[0].full_ids
    (b, illing), (technical,) = classifier.prompt.label_ids[0], classifier.prompt.label_ids[1]
    with torch.inference_mode():
        logp = smollm2.model(input_ids=torch.tensor([full + [b]])).logits.float().log_softmax(-1)[0]
    billing = logp[len(full) - 1, b] + logp[len(full), illing]
    tech = logp[len(full) - 1, technical]
    prediction = collect(classifier, ["My card was charged twice."], RunConfig())[0]
    expected = (billing - tech).item()
    assert prediction.scores[0] - prediction.scores[1] == pytest.approx(expected, abs=FP32_TOLERANCE)


def test_prefix_cache_is_unchanged_by_batches(smollm2, sample_rows):
    classifier = Classifier(smollm2, LabelSet.default(), scoring=DIRECT)
    tickets = classifier.prompt.encode(spread(sample_rows[:100], 4))   # rows of four lengths, padded in one batch
    prefix = PrefixCache(decoder_of(smollm2.model), classifier.prompt.ids, "cpu")
    before = prefix.checksum()
    rows = [t.suffix_ids for t in tickets]
    import torch

    with torch.inference_mode():
        first = score_batch(smollm2.model, rows, classifier.method.tree, prefix, full_head=False)
        again = score_batch(smollm2.model, rows[::-1], classifier.method.tree, prefix, full_head=False).flip(0)
    assert prefix.checksum() == before
    assert all(k.shape[0] == 1 for k, _ in prefix.layers)
    assert torch.allclose(first, again, atol=FP32_TOLERANCE, equal_nan=True)


@pytest.fixture(scope="module")
def tiny_run(tiny_qwen, sample_rows):
    """Six labels, 300 tickets (every other sample ticket), random weights: many decisions are genuine
    near-ties, and enough cuts break to check the fallback against the reference."""
    labels = LabelSet.from_names(["billing", "technical", "account", "refund", "bug", "login"])
    classifier = Classifier(tiny_qwen, labels, scoring=DIRECT)
    texts = [r["text"] for r in sample_rows[::2]]
    return classifier, texts, collect(classifier, texts, RunConfig(reference=True))


def test_near_ties_are_decided_like_the_reference(tiny_run):
    classifier, texts, reference = tiny_run
    margins = sorted(p.log_margin for p in reference.values())
    assert margins[0] < 0.02, "the test needs real near-ties"
    assert_same(reference, collect(classifier, texts, RunConfig(batch_size=16)))


def test_tokenizer_that_breaks_the_cut_falls_back_exactly(tiny_run, tiny_qwen):
    classifier, texts, reference = tiny_run
    tickets = classifier.prompt.encode(texts)
    tok = tiny_qwen.tokenizer
    prefix_ids = tok(classifier.prompt.text, add_special_tokens=False).input_ids
    for text, ticket in zip(texts, tickets):
        suffix_ids = tok(text.strip() + classifier.prompt.tail, add_special_tokens=False).input_ids
        if prefix_ids + suffix_ids == ticket.full_ids:    # the spec's check passes: the cache is used
            assert ticket.uses_prefix
        if ticket.uses_prefix:                            # ...and is only used where it is exact
            assert ticket.full_ids[: len(prefix_ids)] == prefix_ids
    failed = sum(not t.uses_prefix for t in tickets)
    assert 0 < failed < len(tickets)
    runs = list(classifier.run(texts, RunConfig(batch_size=16)))
    assert runs[-1].stats.fallbacks == failed
    fast = {p.index: p for r in runs for p in r.predictions}
    assert {i for i, p in fast.items() if p.fallback} == {t.index for t in tickets if not t.uses_prefix}
    assert_same(reference, fast)


def test_smollm2_cut_is_token_clean_for_every_sample_ticket(smollm2, sample_rows):
    classifier = Classifier(smollm2, LabelSet.default(), scoring=DIRECT)
    tok = smollm2.tokenizer
    texts = [r["text"] for r in sample_rows]
    for text, ticket in zip(texts, classifier.prompt.encode(texts)):
        suffix_ids = tok(text.strip() + classifier.prompt.tail, add_special_tokens=False).input_ids
        assert classifier.prompt.ids + suffix_ids == ticket.full_ids
        assert ticket.suffix_ids == suffix_ids


def test_bfloat16_disagrees_only_at_near_ties(sample_rows):
    """bfloat16 only by explicit choice ("auto" never picks it): its drift stays under verify's tolerance
    on CPUs with and without native bfloat16 (docs/bench/bfloat16_drift.txt), and a flipped label is
    one whose reference margin is inside that rounding."""
    loaded = models.load(models.SMOLLM2, device.choose("cpu", "bfloat16"))
    classifier = Classifier(loaded, LabelSet.default(), scoring=DIRECT)
    texts = spread(sample_rows[:200], 5)  # bfloat16 is emulated, and slow, on CPUs without it
    reference = collect(classifier, texts, RunConfig(reference=True))
    report = compare(reference, collect(classifier, texts, RunConfig()), "bfloat16", "direct")
    assert report.ok, report.summary()
    assert report.max_score_diff < report.tolerance


@pytest.mark.parametrize("method", ["channel", "direct"])
def test_a_label_set_that_quotes_the_prompts_own_marker_builds_and_reads_as_the_reference(tiny_qwen, method):
    # a hunt's finding: an example holding the text that marks the ticket's place in the prompt made every
    # method refuse the label set ("the chat template does not place the ticket text verbatim")
    from triage_app.engine.labels import Example, Label
    from triage_app.engine.prompt import _SENTINEL

    labels = LabelSet((Label("billing"), Label(f"technical {_SENTINEL}-0")), (Example(f"see {_SENTINEL}", "billing"),))
    classifier = Classifier(tiny_qwen, labels, scoring=Scoring(method=method))
    texts = ["Refund my last payment please", f"the app says {_SENTINEL}-1 on start"]
    fast, reference = collect(classifier, texts, RunConfig()), collect(classifier, texts, RunConfig(reference=True))
    assert compare(reference, fast, "float32", method).ok

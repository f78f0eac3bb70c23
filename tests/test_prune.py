"""Pruned direct scoring (engine/methods/prune.py): the whole trie's labels, with fewer label tokens scored."""

from __future__ import annotations

import pytest
import torch

from triage_app.engine.classifier import Classifier
from triage_app.engine.config import RunConfig, Scoring
from triage_app.engine.forward import LabelTree
from triage_app.engine.labels import LabelSet
from triage_app.engine.methods.prune import TrieIndex
from triage_app.engine.verify import collect
from triage_app.bench.workloads import BANKING77, many_labels

TOLERANCE = 1e-3
WHOLE, PRUNED = RunConfig(prune=False, batch_size=8), RunConfig(prune=True, batch_size=8)
# BANKING77 intents that share leading words, as a user would name them
SHARED = ["card arrival", "card linking", "card not working", "card payment fee charged", "cash withdrawal charge",
          "cash withdrawal not recognised", "top up failed", "top up reverted"]


def test_trie_index_lists_what_each_node_scores():
    index = TrieIndex.of(LabelTree.build([[1, 2, 3], [1, 2, 4], [1, 5], [6]]))
    assert index.scored_by == (((0, 1, 2), (1, 1, 2), (2, 1, 5)), ((0, 2, 3), (1, 2, 4)))
    assert index.first_tokens == (1, 1, 1, 6) and index.lengths == (3, 3, 2, 1)


def run(classifier, texts, config):
    """Predictions and token log-probs [N, L, D], by ticket; and the label nodes this run fed."""
    before = classifier.method.label_nodes.fed, classifier.method.label_nodes.full
    predictions, tokens = {}, {}
    for batch in classifier.run(texts, config):
        predictions.update({p.index: p for p in batch.predictions})
        tokens.update({p.index: lp for p, lp in zip(batch.predictions, batch.token_logprobs)})
    nodes = classifier.method.label_nodes
    return predictions, tokens, (nodes.fed - before[0], nodes.full - before[1])


def assert_pruned_like(whole, pruned):
    """Same labels; whatever the pruned run scored is the whole trie's; the top two are finished, so
    the log-margin is exact; an unfinished label's summed log-prob is an upper bound; the confidence
    is never overstated."""
    (w_pred, w_tok, _), (p_pred, p_tok, _) = whole, pruned
    assert w_pred.keys() == p_pred.keys()
    for i, w in w_pred.items():
        p = p_pred[i]
        assert p.label == w.label, f"ticket {i}"
        scored = ~p_tok[i].isnan()                                                # [L, D]
        assert torch.allclose(p_tok[i][scored], w_tok[i][scored], atol=TOLERANCE), f"ticket {i}"
        assert scored.sum() <= (~w_tok[i].isnan()).sum()
        top2 = torch.tensor(w.scores).topk(2).indices
        assert torch.equal(scored[top2], ~w_tok[i][top2].isnan()), f"ticket {i}: the top two are finished"
        assert p.log_margin == pytest.approx(w.log_margin, abs=TOLERANCE)
        assert p.confidence <= w.confidence + TOLERANCE
        assert (p_tok[i].nan_to_num(0).sum(1) >= w_tok[i].nan_to_num(0).sum(1) - TOLERANCE).all()


@pytest.mark.skipif(not BANKING77.is_file(), reason="BANKING77 (../shared/data/) is not beside this checkout")
def test_many_labels_pruned_give_the_whole_tries_labels_with_far_fewer_label_tokens(smollm2):
    work = many_labels(4)
    assert len(work.label_set.names) == 77
    classifier = Classifier(smollm2, work.label_set, work.style, scoring=Scoring(method="direct"))
    whole = run(classifier, work.texts, WHOLE)
    pruned = run(classifier, work.texts, PRUNED)
    assert_pruned_like(whole, pruned)
    fed, full = pruned[2]
    assert whole[2] == (full, full)
    free = 3 * classifier.method.tree.size    # the content-free tickets always get the whole trie
    # finishing the likeliest labels first, then the rest a token at a round: well under half the trie
    assert fed - free < 0.4 * (full - free)


@pytest.fixture(scope="module")
def shared_run(tiny_qwen, sample_rows):
    """Random weights, labels sharing leading tokens, 60 tickets: near-ties, every label's nodes fed
    over the rounds (a random model's labels all stay in reach: the pruning is the 77-label test's)."""
    classifier = Classifier(tiny_qwen, LabelSet.from_names(SHARED), scoring=Scoring(calibrate=False, method="direct"))
    texts = [r["text"] for r in sample_rows[:60]]
    return classifier, texts


def test_pruned_labels_are_the_reference_loops(shared_run):
    classifier, texts = shared_run
    ids = classifier.prompt.label_ids
    assert ids[0][0] == ids[1][0] and ids[4][:2] == ids[5][:2]    # "card ...", "cash withdrawal ..."
    reference = collect(classifier, texts, RunConfig(reference=True))
    pruned = run(classifier, texts, PRUNED)
    assert {i: p.label for i, p in reference.items()} == {i: p.label for i, p in pruned[0].items()}
    assert_pruned_like(run(classifier, texts, WHOLE), pruned)


def test_pruned_without_the_prefix_cache_reads_whole_prompts_to_the_same_labels(shared_run):
    classifier, texts = shared_run
    no_cache = RunConfig(prune=True, prefix_cache=False, batch_size=8)
    assert_pruned_like(run(classifier, texts[:24], WHOLE), run(classifier, texts[:24], no_cache))


def test_calibration_prior_comes_from_the_whole_trie(tiny_qwen):
    classifier = Classifier(tiny_qwen, LabelSet.from_names(SHARED), scoring=Scoring(method="direct"))
    whole, pruned = classifier.content_free(WHOLE), classifier.content_free(PRUNED)
    assert torch.equal(whole.isnan(), pruned.isnan())
    assert torch.allclose(whole.nan_to_num(0), pruned.nan_to_num(0), atol=TOLERANCE)


@pytest.mark.parametrize("length", ["mean", "first"])
def test_only_summed_scores_are_pruned(tiny_qwen, sample_rows, length):
    names = SHARED if length == "mean" else ["billing", "technical", "account"]
    classifier = Classifier(tiny_qwen, LabelSet.from_names(names), scoring=Scoring(length=length, method="direct"))
    _, tokens, (fed, full) = run(classifier, [r["text"] for r in sample_rows[:8]], PRUNED)
    assert fed == full and not any(t.isnan().all(dim=1).any() for t in tokens.values())


@pytest.mark.skipif(not BANKING77.is_file(), reason="BANKING77 (../shared/data/) is not beside this checkout")
def test_bench_times_many_labels_against_few(tiny_qwen):
    from triage_app.bench.throughput import many_labels_table, run_many_labels

    results = run_many_labels(tiny_qwen, 6, (12, 4), log=lambda line: None)
    assert [(r.labels, r.prune) for r in results] == [(12, False), (12, True), (4, False), (4, True)]
    assert all(r.same_labels for r in results)
    assert results[1].label_nodes <= results[1].full_nodes == results[0].label_nodes == results[0].full_nodes
    assert "12 labels / 4 labels, pruned trie:" in many_labels_table(results)


def test_a_pruned_runs_bounds_are_never_resumed_as_scores(tiny_qwen, sample_rows, tmp_path):
    """A pruned answer holds bounds for the labels that could not win: stored apart, so a run that reads
    every label's score (the export's p_<label>, learning) scores those tickets itself; a pruned run
    resumes what either stored."""
    from triage_app.files.store import ResultStore
    from triage_app.run.job import run_job

    classifier = Classifier(tiny_qwen, LabelSet.from_names(SHARED), scoring=Scoring(method="direct"))
    texts = [r["text"] for r in sample_rows[:8]]

    def job(config, store):
        steps = list(run_job(classifier, store, texts, config))
        return steps[0].resumed, {p.index: p.scores for step in steps for p in step.predictions}

    with ResultStore(tmp_path / "r.db") as store:
        resumed, pruned = job(PRUNED, store)
        assert resumed == 0
        resumed, whole = job(WHOLE, store)
        assert resumed == 0                                                  # the bounds were not read back
        assert any(pruned[i] != pytest.approx(whole[i], abs=TOLERANCE) for i in whole)   # some were bounds
        assert job(PRUNED, store)[0] == len(texts) and job(WHOLE, store)[0] == len(texts)


def test_classify_refuses_to_learn_from_a_pruned_run(tmp_path, capsys, tiny_model):
    from cli_helpers import run_main

    path = tmp_path / "t.csv"
    path.write_text("text,queue\ninvoice,billing\ncrash,technical\n", encoding="utf-8")
    code, _, err = run_main(capsys, "classify", path, "-o", tmp_path / "out.csv", "--db", tmp_path / "r.db",
                            "--labels", "billing,technical", "--method", "direct", "--prune", "--person-labels", "queue")
    assert code != 0 and any("--prune leaves the labels that cannot win unfinished" in line for line in err), err

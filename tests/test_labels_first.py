"""labels_first() (run/labels_first.py) on real features: which tickets it sends to the language model and
the answers it gives, held to learn()'s own on the same scores. The model's scores are numbers with a known
signal here (an informative scorer, and one that is noise), so that each of its two paths is taken for
certain; the command line runs it with the bundled model (tests/test_cli_embeddings.py)."""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax
from test_cli_learn import NAMES, tickets

from triage_app.engine.classifier import Prediction
from triage_app.learn import TicketFeatures, learn
from triage_app.run.labels_first import labels_first, model_counts, unsure_rows

N, TAUGHT, SURE = 60, 6, 0.9


def scorer(gold: list[str], signal: float):
    """A language model whose log-probabilities lean `signal` towards the right label, plus noise; the
    rows it was asked, call by call; its table of every row's scores (the run of every ticket's)."""
    right = np.eye(len(NAMES))[[NAMES.index(g) for g in gold]]                          # [N, L]
    table = log_softmax(signal * right + np.random.default_rng(7).normal(size=right.shape), axis=1)
    calls: list[list[int]] = []

    def score(rows: list[int]) -> list[Prediction]:
        calls.append(list(rows))
        return [Prediction(r, NAMES, table[r].tolist()) for r in rows]
    return score, calls, table


def taught_file():
    texts, gold = tickets(N, seed=3)
    return TicketFeatures(texts), gold, {r: gold[r] for r in range(TAUGHT)}


def labels_alone(features, table, labels):
    """learn() with the model's scores of the labelled rows only: what answers before anything is sent."""
    alone = np.full_like(table, np.nan)
    alone[:TAUGHT] = table[:TAUGHT]
    return learn(features, alone, labels, NAMES)


def test_a_model_that_counts_reads_only_the_unsure_and_answers_them_as_the_run_of_every_ticket():
    features, gold, labels = taught_file()
    score, calls, table = scorer(gold, signal=2.0)
    out = labels_first(features, NAMES, labels, score, threshold=SURE)
    first = labels_alone(features, table, labels)
    unsure = unsure_rows(first, SURE)
    assert model_counts(first) and 0 < len(unsure) < N - TAUGHT
    assert calls == [list(range(TAUGHT)), unsure.tolist()]
    assert np.flatnonzero(out.read).tolist() == [*range(TAUGHT), *unsure.tolist()] and out.unsure == len(unsure)
    every = learn(features, table, labels, NAMES)
    answers = np.array([p.scores for p in out.predictions])
    np.testing.assert_allclose(answers[unsure], every.scores[unsure], atol=1e-9)
    kept = np.flatnonzero(~out.read)
    np.testing.assert_allclose(answers[kept], first.scores[kept], atol=1e-9)


def test_a_model_the_weighing_leaves_out_reads_only_the_labelled_and_no_answer_changes():
    features, gold, labels = taught_file()
    score, calls, table = scorer(gold, signal=0.0)        # noise: cross-validation leaves it out (a = 0)
    said: list[str] = []
    out = labels_first(features, NAMES, labels, score, threshold=SURE, log=said.append)
    first = labels_alone(features, table, labels)
    unsure = unsure_rows(first, SURE)
    assert not model_counts(first) and len(unsure) > 0
    assert calls == [list(range(TAUGHT))] and out.read.sum() == TAUGHT and out.unsure == 0
    every = learn(features, table, labels, NAMES)        # reading every ticket gives the same answers
    scores = np.array([p.scores for p in out.predictions])
    np.testing.assert_allclose(scores[TAUGHT:], every.scores[TAUGHT:], atol=1e-9)
    np.testing.assert_allclose(scores[:TAUGHT], table[:TAUGHT])   # a person's row: the model's scores, as the window
    assert f"the {len(unsure)} under 90% sure are not sent" in said[-1]

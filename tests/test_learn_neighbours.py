"""The file's tickets as a graph (learn/neighbours.py): each ticket's nearest, the learned part smoothed over
them, and learn() taking the smoothing only where cross-validation says it helps."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import log_softmax
from test_learn_embeddings import NAMES, clustered, lm_scores

from triage_app.learn import TicketFeatures, learn
from triage_app.learn import neighbours as graph
from triage_app.learn.neighbours import nearest, smoothed


def brute_force(x: np.ndarray, among: np.ndarray, k: int) -> list[set[int]]:
    out = []
    for r in range(len(x)):
        others = [j for j in among if j != r]
        similarity = x[others] @ x[r]
        out.append({others[j] for j in np.argsort(-similarity)[:k]})
    return out


def test_each_tickets_nearest_are_the_most_similar_others():
    x, _ = clustered(120, seed=3)
    near = nearest(x, k=5)
    assert near.shape == (120, 5) and not (near == np.arange(120)[:, None]).any()
    assert [set(row) for row in near] == brute_force(x, np.arange(120), 5)


def test_past_the_pool_the_nearest_are_searched_among_a_seeded_sample():
    x, _ = clustered(200, seed=4)
    near = nearest(x, k=4, pool=50)
    among = np.sort(np.random.default_rng(0).permutation(200)[:50])
    assert set(near.ravel()) <= set(among)
    assert [set(row) for row in near] == brute_force(x, among, 4)
    assert np.array_equal(near, nearest(x, k=4, pool=50))          # seeded: one graph per file


def test_a_file_too_small_has_no_neighbours():
    assert nearest(np.ones((1, 4), np.float32)) is None
    assert nearest(clustered(3)[0]).shape == (3, 2)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_smoothing_some_rows_is_the_whole_files_smoothing_read_there(data):
    """Cross-validation smooths only the held-out rows' neighbourhood: the same numbers as the whole file's."""
    n = data.draw(st.integers(3, 40))
    k = data.draw(st.integers(1, min(4, n - 1)))
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    near = np.array([rng.choice([j for j in range(n) if j != r], k, replace=False) for r in range(n)])
    p = rng.dirichlet(np.ones(3), n)
    held = rng.choice(n, data.draw(st.integers(0, n // 2)), replace=False)
    targets = rng.integers(0, 3, len(held))
    rows = rng.choice(n, data.draw(st.integers(1, n)), replace=False)
    asked = []

    def probabilities(which):
        asked.append(len(which))
        return p[which]
    whole = smoothed(probabilities, np.arange(n), near, held, targets, 3)
    np.testing.assert_allclose(smoothed(probabilities, rows, near, held, targets, 3), whole[rows], rtol=1e-12)
    assert asked[0] == n


def test_a_held_row_reads_its_label_and_the_rest_move_halfway_to_their_neighbours():
    near = np.array([[1], [0], [1]])
    p = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    out = np.exp(smoothed(lambda r: p[r], np.arange(3), near, np.array([1]), np.array([0]), 2))
    # round 1, row 1 held at [1, 0]: row 0 -> (0.2 + 1) / 2, row 2 -> (0.5 + 1) / 2; round 2 from those
    first = np.array([[0.6, 0.4], [1.0, 0.0], [0.75, 0.25]])
    first[1] = [1.0, 0.0]
    np.testing.assert_allclose(out, 0.5 * first + 0.5 * first[near[:, 0]])


def test_learn_smooths_on_the_files_graph_and_answers_with_it():
    x, gold = clustered(300, seed=5, spread=0.9)
    features = TicketFeatures([""] * 300, embeddings=x)
    z = lm_scores(gold, 0.5)
    taught = {r: NAMES[gold[r]] for r in range(6)}
    learned = learn(features, z, taught, NAMES)
    assert learned.smoothed
    p = smoothed(lambda r: np.exp(learned.text_model.log_probs(features.matrix)), np.arange(300),
                 features.neighbours(), learned.teaching.rows, learned.teaching.targets, len(NAMES))
    w = learned.weights
    np.testing.assert_allclose(learned.scores, log_softmax(w.lm * z + w.learned * p, axis=1), atol=1e-9)


def test_a_graph_that_joins_unlike_tickets_is_not_taken():
    """Cross-validation judges the smoothing: neighbours drawn at random only blur the answers."""
    x, gold = clustered(300, seed=5, spread=0.9)

    class RandomGraph(TicketFeatures):
        def neighbours(self):
            rng = np.random.default_rng(0)
            return np.array([rng.choice([j for j in range(300) if j != r], graph.NEAREST, replace=False)
                             for r in range(300)])
    taught = {r: NAMES[gold[r]] for r in range(30)}
    assert not learn(RandomGraph([""] * 300, embeddings=x), lm_scores(gold, 0.5), taught, NAMES).smoothed


def test_words_are_never_smoothed():
    texts = [f"invoice refund {k}" if k % 2 else f"crash error {k}" for k in range(40)]
    features = TicketFeatures(texts)
    assert features.neighbours() is None
    learned = learn(features, np.zeros((40, 2)), {0: "b", 1: "a", 2: "b", 3: "a", 4: "b", 5: "a"}, ["a", "b"])
    assert not learned.smoothed


def copied(copies_of_first: int = 15, n: int = 60, seed: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """A file whose first ticket comes `copies_of_first` times (a queue's "where is my card?"), then the rest."""
    x, gold = clustered(n, seed=seed)
    return np.vstack([np.repeat(x[:1], copies_of_first, axis=0), x[1:]]), np.r_[[gold[0]] * copies_of_first, gold[1:]]


def test_a_tickets_copies_are_one_node_of_the_graph():
    """Among a dozen copies tied at cosine 1, which ones were neighbours would be the rows' order: none is."""
    matrix, _ = copied()
    same = graph.copies(matrix)
    assert same[:15].tolist() == [0] * 15 and same[15:].tolist() == list(range(15, len(matrix)))
    near = nearest(matrix, k=5)
    assert all(set(near[r]) == set(near[0]) for r in range(15)) and not set(near[0]) & set(range(15))
    distinct = nearest(matrix[14:], k=5)          # the copies' neighbours are their one ticket's
    assert set(near[0]) == {r + 14 for r in distinct[0]}
    assert nearest(np.repeat(matrix[:1], 5, axis=0)) is None     # one ticket five times: no neighbours


def test_labels_given_to_a_tickets_copies_count_whichever_copies_hold_them():
    """Two copies labelled one way and two the other: every copy answers the same, whichever rows they are."""
    matrix, gold = copied()
    texts = [f"ticket {r}" for r in range(len(matrix))]
    others = {r: NAMES[gold[r]] for r in range(15, len(matrix), 4)}
    answers = []
    for first, second in ((NAMES[1], NAMES[2]), (NAMES[2], NAMES[1])):
        labels = {0: first, 1: first, 12: second, 13: second, **others}
        learned = learn(TicketFeatures(texts, matrix), lm_scores(gold, 0.6), labels, NAMES)
        answers.append(np.exp(learned.scores[:15]))
    np.testing.assert_allclose(answers[0], answers[1], atol=0.01)     # the folds are drawn by row: a little apart
    np.testing.assert_allclose(answers[0], answers[0][[2]].repeat(15, axis=0), atol=1e-9)

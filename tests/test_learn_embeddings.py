"""The learned part on sentence embeddings: the same guarantees as on TF-IDF (no labels is the model's
own answer, a cross-validated estimate, fast on a big file), and paraphrases told apart from a few labels."""

from __future__ import annotations

import time

import numpy as np
import pytest

from triage_app.learn import MODEL, TicketFeatures, learn, next_to_label

NAMES = ["card delivery", "change PIN", "refund request"]


def unit_rows(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def clustered(n: int, seed: int = 0, spread: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """[N, 384] unit vectors around one centre per label (as an encoder puts one intent's messages), gold [N]."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(NAMES), 384))
    gold = np.arange(n) % len(NAMES)
    return unit_rows(centres[gold] + spread * rng.normal(size=(n, 384)) * np.sqrt(1 / 384) * 20), gold


def lm_scores(gold: np.ndarray, right: float, seed: int = 1) -> np.ndarray:
    """[N, L] log-probabilities right on `right` of the rows, the next label elsewhere."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 0.3, (len(gold), len(NAMES)))
    wrong = rng.random(len(gold)) >= right
    logits[np.arange(len(gold)), np.where(wrong, (gold + 1) % len(NAMES), gold)] += 1.5
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


@pytest.fixture(scope="module")
def embedded_file():
    vectors, gold = clustered(300)
    texts = [f"ticket {r}" for r in range(300)]
    return TicketFeatures(texts, embeddings=vectors), gold, lm_scores(gold, 0.6)


def test_no_labels_is_exactly_the_zero_shot_answer(embedded_file):
    features, _, z = embedded_file
    learned = learn(features, z, {}, NAMES)
    assert features.are_embeddings
    assert np.array_equal(learned.scores, z) and set(learned.sources) == {MODEL}


def test_a_few_labels_on_embeddings_are_learned_and_cross_validated(embedded_file):
    features, gold, z = embedded_file
    taught = {r: NAMES[gold[r]] for r in range(15)}        # five labels per label
    learned = learn(features, z, taught, NAMES)
    assert learned.weights.is_learning
    assert learned.estimate.n == 15 and learned.estimate.learned_only is not None
    rest = np.arange(15, 300)
    assert np.mean(learned.labels[rest] == gold[rest]) > np.mean(z[rest].argmax(axis=1) == gold[rest]) + 0.2


def test_next_to_label_reads_embedding_likeness(embedded_file):
    features, gold, z = embedded_file
    learned = learn(features, z, {r: NAMES[gold[r]] for r in range(15)}, NAMES)
    queue = next_to_label(learned, features, n=6)
    assert len(set(queue)) == 6 and not set(queue) & set(range(15))


def test_embeddings_must_match_the_tickets_in_one_line():
    with pytest.raises(ValueError, match="one row per ticket"):
        TicketFeatures(["a", "b", "c"], embeddings=np.zeros((2, 384), np.float32))


@pytest.mark.slow      # its bounds are speed goals, a benchmark's (scripts/test -m slow), not the suite's
def test_a_retrain_on_100000_embedded_tickets_stays_fast():
    vectors, gold = clustered(100_000, seed=2)
    features = TicketFeatures([""] * len(gold), embeddings=vectors)
    z = lm_scores(gold, 0.5)
    # CPU seconds, not the clock's: on a CPU shared by many jobs the clock measures the others
    start = time.process_time()
    features.neighbours()       # once per file, before its first retrain (learn/neighbours.py)
    graph = time.process_time() - start
    start = time.process_time()
    learned = learn(features, z, {r: NAMES[gold[r]] for r in range(0, 100_000, 1000)}, NAMES)
    seconds = time.process_time() - start
    assert learned.weights.is_learning and np.mean(learned.labels == gold) > 0.9
    assert seconds < 10 and graph < 15


@pytest.mark.model
def test_paraphrases_told_apart_from_two_labels_each_where_words_cannot():
    """Real messages, the real encoder: two labels per intent, and messages that share no word with them."""
    from encoder_helpers import bundled_encoder

    taught = ["My card still hasn't arrived", "When will my new card be delivered?",
              "How can I change my PIN?", "I want to set a different PIN",
              "I'd like my money back for this purchase", "Please refund the order I returned"]
    asked = ["The plastic you promised never showed up in the post", "Still waiting for the mail with it",
             "Need new digits for the cash machine code", "Can the four-number code be updated",
             "Give back what I paid", "Reimburse that payment, I sent the item back"]
    gold = np.array([0, 0, 1, 1, 2, 2] * 2)
    texts = taught + asked
    encoder = bundled_encoder()
    z = np.full((len(texts), len(NAMES)), np.log(1 / 3))   # a model with no opinion
    labels = {r: NAMES[gold[r]] for r in range(6)}
    on_embeddings = learn(TicketFeatures(texts, embeddings=encoder.embed(texts)), z, labels, NAMES)
    assert np.mean(on_embeddings.labels[6:] == gold[6:]) >= 5 / 6


def test_the_learning_curve_can_learn_on_embeddings():
    from triage_app.quality.curve import learning_curve

    vectors, gold = clustered(120, seed=4)
    names = [NAMES[g] for g in gold]
    z = lm_scores(gold, 0.4)
    texts = [f"ticket {r}" for r in range(120)]     # words that tell nothing: only the embeddings can
    on_words = learning_curve(texts, names, z, NAMES, ks=(5,), draws=2)
    on_embeddings = learning_curve(texts, names, z, NAMES, ks=(5,), draws=2, embeddings=vectors)
    assert on_embeddings.points[0].mean("learned") > 0.9 > (on_words.points[0].mean("learned") or 0)

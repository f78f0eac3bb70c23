"""The encoder as a zero-shot scorer: a ticket's cosine to what each label says, combined with the
language model by a fixed rule with no labels, and weighed by cross-validation once there are some."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax

from triage_app.engine.labels import Example, Label, LabelSet
from triage_app.learn import (LEARNED, MODEL, TicketFeatures, label_texts, label_vectors, learn,
                              similarity_scores, zero_shot)
from triage_app.learn.model import ZERO_SHOT
from triage_app.learn.similarity import ZERO_SHOT_WEIGHT

NAMES = ["card delivery", "change PIN", "refund request"]


def unit_rows(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def clustered(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[N, 64] unit vectors around one centre per label, gold [N], and [L, 64] the label centres
    (what a label's name embeds to, near its tickets)."""
    rng = np.random.default_rng(seed)
    centres = unit_rows(rng.normal(size=(len(NAMES), 64)))
    gold = np.arange(n) % len(NAMES)
    return unit_rows(centres[gold] + 0.15 * rng.normal(size=(n, 64))), gold, centres


def lm_scores(gold: np.ndarray, right: float, seed: int = 1) -> np.ndarray:
    """[N, L] log-probabilities right on `right` of the rows, the next label elsewhere."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 0.3, (len(gold), len(NAMES)))
    wrong = rng.random(len(gold)) >= right
    logits[np.arange(len(gold)), np.where(wrong, (gold + 1) % len(NAMES), gold)] += 1.5
    return log_softmax(logits, axis=1)


def test_a_label_says_what_it_is_in_its_name_description_and_examples():
    label_set = LabelSet((Label("card delivery", "the card has not arrived"), Label("change PIN")),
                         (Example("my card never came", "card delivery"),))
    texts, owners = label_texts(label_set)
    assert texts == ["card delivery", "the card has not arrived", "change PIN", "my card never came"]
    assert owners.tolist() == [0, 0, 1, 0]
    vectors = label_vectors(np.array([[1, 0], [0, 1], [0, 1], [1, 0]], float), owners, 2)
    # the label's prototype is the normalised mean of its texts: two of x, one of y
    assert np.allclose(vectors, [[2 / np.sqrt(5), 1 / np.sqrt(5)], [0, 1]])


def test_similarity_is_cosine_over_the_temperature_as_log_probabilities():
    tickets, labels = unit_rows(np.array([[1.0, 0.2], [0.1, 1.0]])), unit_rows(np.array([[1.0, 0.0], [0.0, 1.0]]))
    s = similarity_scores(tickets, labels, temperature=0.1)
    assert np.allclose(np.exp(s).sum(axis=1), 1)
    assert np.allclose(s[:, 0] - s[:, 1], (tickets[:, 0] - tickets[:, 1]) / 0.1)
    with pytest.raises(ValueError, match="temperature"):
        similarity_scores(tickets, labels, temperature=0)


@pytest.fixture(scope="module")
def similar_file():
    vectors, gold, centres = clustered(300)
    s = similarity_scores(vectors, centres)
    return TicketFeatures([f"ticket {r}" for r in range(300)], embeddings=vectors), gold, s


def test_no_labels_with_a_similarity_is_the_fixed_rule(similar_file):
    features, gold, s = similar_file
    z = lm_scores(gold, 0.5)
    learned = learn(features, z, {}, NAMES, similarity=s)
    assert np.array_equal(learned.scores, zero_shot(z, s))
    assert np.array_equal(learned.scores, log_softmax(z + ZERO_SHOT_WEIGHT * s, axis=1))
    # said as what it is: the model's answer moved by the similarity, not the model's own (exported as "model")
    assert set(learned.sources) == {ZERO_SHOT} and learned.source == ZERO_SHOT and learned.estimate is None
    # a checked run reads these answers with the same rule: the part is fixed, not a guess
    lm, rest = learned.part
    assert lm == 1.0 and np.allclose(rest, ZERO_SHOT_WEIGHT * s)
    assert np.mean(learned.labels == gold) > np.mean(z.argmax(axis=1) == gold)


def test_no_labels_and_no_similarity_is_still_the_model_itself(similar_file):
    features, gold, _ = similar_file
    z = lm_scores(gold, 0.5)
    learned = learn(features, z, {}, NAMES)
    assert np.array_equal(learned.scores, z) and learned.part is None
    assert set(learned.sources) == {MODEL} and learned.source == MODEL


def test_a_ticket_the_model_has_not_scored_waits_for_it_under_the_fixed_rule(similar_file):
    features, gold, s = similar_file
    z = lm_scores(gold, 0.5)
    z[:10] = np.nan
    learned = learn(features, z, {}, NAMES, similarity=s)
    assert (learned.labels[:10] == -1).all() and (learned.labels[10:] >= 0).all()


def test_a_stronger_language_model_counts_for_more_when_the_labels_say_so(similar_file):
    features, gold, s = similar_file
    # a label with no example: every part is weighed (with every label taught, the learned part alone
    # tells these clusters apart, and no language model is needed: tests/test_learn_weighing.py)
    taught = {r: NAMES[gold[r]] for r in range(30) if gold[r] != 2}
    weak = learn(features, lm_scores(gold, 0.4), taught, NAMES, similarity=s)
    strong = learn(features, lm_scores(gold, 0.97), taught, NAMES, similarity=s)
    assert strong.weights.lm > weak.weights.lm
    assert strong.weights.lm / strong.weights.similarity > weak.weights.lm / weak.weights.similarity


def test_cross_validation_weighs_the_similarity_up_where_the_model_is_wrong(similar_file):
    _, gold, s = similar_file
    z = lm_scores(gold, 0.3)
    # what two labels per label teach from these features is unsure (each ticket's own vector mostly noise),
    # where the similarity to the labels' names is right: a learned part that answered every labelled row
    # right already would need no similarity beside it (learn/weights.py: the simplest parts that do)
    _, _, centres = clustered(300)
    noisy = unit_rows(centres[gold] + np.random.default_rng(0).normal(size=(300, 64)))
    features = TicketFeatures([f"ticket {r}" for r in range(300)], embeddings=noisy)
    taught = {r: NAMES[gold[r]] for r in range(6)}                                  # two labels per label
    learned = learn(features, z, taught, NAMES, similarity=s)
    assert learned.weights.similarity > 0 and learned.estimate is not None
    rest = np.arange(6, 300)
    assert np.mean(learned.labels[rest] == gold[rest]) > 0.95 > np.mean(z[rest].argmax(axis=1) == gold[rest])
    # the part a checked run reads holds the similarity as weighed
    assert np.allclose(learned.combine(rest, z[rest]), learned.scores[rest])


def test_labelled_tickets_the_model_has_not_scored_learn_from_labels_and_similarity(similar_file):
    features, gold, s = similar_file
    z = np.full((300, len(NAMES)), np.nan)
    learned = learn(features, z, {r: NAMES[gold[r]] for r in range(30)}, NAMES, similarity=s)
    assert learned.weights.lm == 0 and learned.weights.is_learning
    assert set(learned.sources[30:]) == {LEARNED} and np.mean(learned.labels == gold) > 0.95
    assert learned.part is None                                                      # a guess: nothing to check against


def test_a_similarity_of_the_wrong_shape_is_refused_in_one_line(similar_file):
    features, gold, s = similar_file
    with pytest.raises(ValueError, match="similarity's scores are"):
        learn(features, lm_scores(gold, 0.5), {}, NAMES, similarity=s[:, :2])


@pytest.mark.model
def test_real_messages_near_their_label_names_and_descriptions():
    """The real encoder: label names and a description, no labels, messages that share few words with them."""
    from encoder_helpers import bundled_encoder

    label_set = LabelSet((Label("card delivery", "my new bank card has not arrived in the post"),
                          Label("change PIN"), Label("refund request")))
    asked = ["The plastic you promised never showed up in the mail", "Where is the card you sent me?",
             "How do I set different digits for the cash machine code", "I forgot my PIN and want a new one",
             "Give back what I paid for the broken item", "I want my money back for this purchase"]
    gold = np.array([0, 0, 1, 1, 2, 2])
    encoder = bundled_encoder()
    texts, owners = label_texts(label_set)
    s = similarity_scores(encoder.embed(asked), label_vectors(encoder.embed(texts), owners, 3))
    assert np.mean(s.argmax(axis=1) == gold) >= 5 / 6

"""Next to label on sentence embeddings: the least certain of each region of the space, the regions the
person's labels cover least first, so near-duplicates are never offered together."""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

from triage_app.learn import TicketFeatures, learn, next_to_label

NAMES = ["card delivery", "change PIN", "refund request"]


def unit_rows(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def kinds_of_tickets(n: int, kinds: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[N, 64] unit vectors around `kinds` centres, [N] each row's kind, [N] its label (kind mod 3)."""
    rng = np.random.default_rng(seed)
    centres = unit_rows(rng.normal(size=(kinds, 64)))
    kind = np.arange(n) % kinds
    return unit_rows(centres[kind] + 0.1 * rng.normal(size=(n, 64))), kind, kind % len(NAMES)


def scores(gold: np.ndarray, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 0.3, (len(gold), len(NAMES)))
    logits[np.arange(len(gold)), gold] += 2.0
    return log_softmax(logits, axis=1)


def test_near_duplicates_are_not_offered_together():
    vectors, kind, gold = kinds_of_tickets(300, kinds=12)
    z = scores(gold)
    # 20 near-copies of one ticket, the least certain of the file, split between the labels:
    # by certainty alone (and by label turns) the queue would be mostly them
    copies = np.arange(280, 300)
    rng = np.random.default_rng(3)
    vectors[copies] = unit_rows(vectors[280] + 0.001 * rng.normal(size=(20, 64)))
    z[copies] = log_softmax(np.log([0.34, 0.33, 0.33])[None, :] + 0.01 * rng.normal(size=(20, 3)), axis=1)
    features = TicketFeatures([""] * 300, embeddings=vectors)
    learned = learn(features, z, {}, NAMES)
    queue = next_to_label(learned, features, n=10)
    assert len(queue) == len(set(queue)) == 10
    assert sum(r in copies for r in queue) == 1
    assert queue[0] in copies                                         # led by the least certain, still
    assert queue == next_to_label(learned, features, n=10)


def test_kinds_nobody_has_labelled_come_before_well_taught_ones():
    vectors, kind, gold = kinds_of_tickets(240, kinds=6, seed=2)
    z = scores(gold)
    features = TicketFeatures([""] * 240, embeddings=vectors)
    taught = {int(r): NAMES[gold[r]] for r in np.flatnonzero(kind < 3)[:30]}      # kinds 0-2 taught, 3-5 not
    learned = learn(features, z, taught, NAMES)
    queue = next_to_label(learned, features, n=3)
    assert sorted(kind[queue].tolist()) == [3, 4, 5]


def test_before_any_answer_the_queue_offers_unanswered_tickets_spread_over_the_space_never_a_blank_one():
    # a hunt's finding: before a run, with labels that answered nothing, Next to label emptied the table
    vectors, _, _ = kinds_of_tickets(120, kinds=6, seed=4)
    vectors[0] = 0.0                                   # a blank ticket: no vector (files.embeddings.embedded)
    features = TicketFeatures([""] * 120, embeddings=vectors)
    learned = learn(features, np.full((120, len(NAMES)), np.nan), {1: NAMES[0]}, NAMES)
    assert (learned.labels[2:] < 0).all()              # one label taught: nothing answered
    queue = next_to_label(learned, features, n=6)
    assert len(queue) == 6 and 0 not in queue and 1 not in queue
    region = features.regions(12)                      # the queue's regions for n = 6
    assert len(set(region[queue].tolist())) == 6 and region[1] not in region[queue]   # spread, the taught last

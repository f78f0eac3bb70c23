"""None of these: a threshold on the combined probability, fitted on the person's labels by
cross-validation, that tells tickets no label fits from the rest."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax

from triage_app.learn import TicketFeatures, learn, similarity_scores
from triage_app.learn.none_of_these import NoneOfThese, fit_none_of_these

NAMES = ["card delivery", "change PIN", "refund request"]


def unit_rows(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def file_with_misfits():
    """300 tickets of the three labels around their centres, then 60 of two kinds no label names."""
    rng = np.random.default_rng(0)
    centres = unit_rows(rng.normal(size=(5, 64)))
    kind = np.arange(360) % 3
    kind[300:] = 3 + np.arange(60) % 2
    vectors = unit_rows(centres[kind] + 0.12 * rng.normal(size=(360, 64)))
    s = similarity_scores(vectors, centres[:3])
    z = np.full((360, 3), np.log(1 / 3))                         # a language model with no opinion
    features = TicketFeatures([""] * 360, embeddings=vectors)
    learned = learn(features, z, {r: NAMES[kind[r]] for r in range(30)}, NAMES, similarity=s)
    return learned, kind


def test_with_no_misfit_given_it_keeps_all_but_a_few_right_answers_and_catches_misfits(file_with_misfits):
    learned, kind = file_with_misfits
    none = fit_none_of_these(learned.cross_validated)
    assert none.caught is None and none.kept >= 0.95
    flagged = none.fits_none(learned.confidence)
    fits = np.arange(30, 300)
    assert np.mean(flagged[300:]) > 0.8                           # most tickets of no label's kind
    assert np.mean(flagged[fits]) < 0.15                          # few of the rest
    assert not flagged[learned.teaching.rows].any()               # the person's own: probability 1


def test_misfits_the_person_marked_say_how_many_of_their_kind_it_catches(file_with_misfits):
    learned, kind = file_with_misfits
    misfits = learned.confidence[300:310]                          # ten the person said fit no label
    none = fit_none_of_these(learned.cross_validated, misfits)
    assert none.threshold == fit_none_of_these(learned.cross_validated).threshold
    assert none.caught == pytest.approx(np.mean(misfits < none.threshold)) and none.caught > 0.8
    assert "of your misfits caught" in none.line() and "cross-validated" in none.line()


def test_too_few_labels_fit_no_threshold():
    z = log_softmax(np.random.default_rng(1).normal(size=(20, 3)), axis=1)
    learned = learn(TicketFeatures([f"t {r}" for r in range(20)]), z, {0: NAMES[0], 1: NAMES[1]}, NAMES)
    assert learned.cross_validated is None and fit_none_of_these(learned.cross_validated) is None


def test_no_answer_is_never_none_of_these_and_a_bad_threshold_is_refused():
    assert NoneOfThese(0.5, 1.0, None).fits_none(np.array([np.nan, 0.4, 0.6])).tolist() == [False, True, False]
    with pytest.raises(ValueError, match="threshold is a probability"):
        NoneOfThese(1.5, 1.0, None)

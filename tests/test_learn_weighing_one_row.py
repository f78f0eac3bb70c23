"""The parts' weighing with one labelled row the language model has scored (a run has just begun): no
row to hold out, so every part is fitted on that row, as before the weighing chose parts, never a
cross-validation of one fold (it raised in the learning thread)."""

from __future__ import annotations

import numpy as np

from triage_app.learn.weights import fit_weights, fitted


def test_one_scored_labelled_row_fits_every_part_on_it():
    rng = np.random.default_rng(0)
    z, p, s = (np.log(rng.dirichlet(np.ones(3), size=1)) for _ in range(3))     # [1, 3] log-probabilities each
    targets = np.array([1])
    weights = fit_weights(z, p, targets, 10.0, s)
    assert weights == fitted((z, p, s), (0, 1, 2), targets, 10.0)
    assert fit_weights(z, p, targets, 10.0) == fitted((z, p, None), (0, 1), targets, 10.0)

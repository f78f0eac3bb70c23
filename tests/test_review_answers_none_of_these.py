"""A file's answers with "none of these" offered, and after a labels-first run, without a window: the
rules live in review/answers.FileAnswers, the table and the export only read them."""

from __future__ import annotations

import math

import numpy as np

from triage_app.engine.prediction import Prediction
from triage_app.files.export import results_frame
from triage_app.learn import NONE_OF_THESE, NoneOfThese
from triage_app.review.answers import FileAnswers

NAMES = ["billing", "technical", "account"]
SURE = [[0.9, 0.05, 0.05], [0.2, 0.45, 0.35], [0.1, 0.3, 0.6], [0.3, 0.55, 0.15]]   # rows 1 and 3 under 0.58


def answered(rows: list[int]) -> FileAnswers:
    out = FileAnswers(len(SURE), NAMES)
    out.apply_predictions([Prediction(r, NAMES, [math.log(p) for p in SURE[r]]) for r in rows])
    return out


def test_answers_under_the_threshold_are_none_of_these_and_a_persons_label_wins():
    file = answered([0, 1, 2, 3])
    labels = [file.label_of(r) for r in range(4)]
    file.none_of_these = NoneOfThese(0.58, 0.95, None)
    under = [float(np.exp(max(math.log(p) for p in SURE[r]))) < 0.58 for r in range(4)]
    assert [file.label_of(r) for r in range(4)] == [NONE_OF_THESE if u else k for u, k in zip(under, labels)]
    assert file.misfit_mask().tolist() == under and file.label_column.tolist() == file.predicted_labels
    assert [a.label for a in file.answers] == [file.label_of(r) for r in range(4)]
    assert not file.labelled_as("technical").any()       # both its rows are "none of these" now
    assert file.set_person_label(1, "technical")
    assert file.label_of(1) == "technical" and not file.fits_none(1) and file.misfit_mask().tolist() == [
        False, False, False, True]
    frame = results_frame(_frame(4), file.answers, NAMES, file.person_labels, sources=file.sources)
    assert frame["label"].tolist() == ["billing", "technical", "account", NONE_OF_THESE]
    file.none_of_these = None
    assert [file.label_of(r) for r in range(4)] == ["billing", "technical", "account", "technical"]


def test_after_a_labels_first_run_the_rows_the_model_read_are_known_and_after_any_other_none():
    file = answered([0, 2])
    assert file.read_by_model() is None               # a run of every ticket: no such column
    file.labels_first = True
    assert file.read_by_model().tolist() == [True, False, True, False]
    assert [file.was_read(r) for r in range(4)] == [True, False, True, False]
    file.clear_predictions()
    assert file.read_by_model() is None and file.none_of_these is None


def _frame(n: int):
    import pandas as pd

    return pd.DataFrame({"text": [f"ticket {k}" for k in range(n)]})

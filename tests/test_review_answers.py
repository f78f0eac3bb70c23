"""The answers of a file without a window: the model's, the learned ones and the person's, on small
frames (the Qt table only presents them: tests/test_ui_ticket_model.py)."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from triage_app.engine.prediction import Answers, Prediction
from triage_app.learn import LEARNED, MODEL, PERSON, TicketFeatures, learn
from triage_app.review.answers import FileAnswers

NAMES = ["billing", "technical", "account"]
WORDS = {"billing": "invoice charge refund price receipt", "technical": "error crash bug outage timeout",
         "account": "login password user profile email"}


def prediction(row, probabilities):
    return Prediction(row, NAMES, [math.log(p) for p in probabilities])


def answers(n=4) -> FileAnswers:
    out = FileAnswers(n, NAMES)
    out.apply_predictions([prediction(0, [0.9, 0.05, 0.05]), prediction(1, [0.2, 0.45, 0.35]),
                           prediction(2, [0.1, 0.3, 0.6]), prediction(3, [0.3, 0.55, 0.15])][:n])
    return out


def test_a_run_answers_and_never_overwrites_a_persons_label():
    file = answers()
    assert [file.label_of(r) for r in range(4)] == ["billing", "technical", "account", "technical"]
    assert file.confidence(0) == pytest.approx(0.9) and file.margin(1) == pytest.approx(0.1)
    assert file.set_person_label(0, "account") and not file.set_person_label(0, "account")      # the same again: no change
    assert not file.set_person_label(1, "sales")                                          # not a label
    file.apply_predictions([prediction(0, [0.99, 0.005, 0.005])])
    assert file.label_of(0) == "account" and file.predicted_label(0) == "billing" and file.source(0) == PERSON
    assert file.sources == [PERSON, MODEL, MODEL, MODEL]


def test_new_label_names_drop_answers_and_another_text_keeps_the_persons_labels():
    file = answers()
    file.set_person_label(1, "billing")
    file.clear_predictions()
    assert file.rows_answered == 0 and file.person_labels == {1: "billing"}
    assert file.set_label_names(["sales", "support"]) and file.person_labels == {}
    assert not file.set_label_names(["sales", "support"])
    assert file.show_person_labels({0: "sales", 1: "billing"}) == {0, 1} and file.person_labels == {0: "sales"}


def test_blank_tickets_are_answered_with_no_label():
    file = FileAnswers(2, NAMES)
    file.apply_predictions([Prediction(0, NAMES, None), prediction(1, [0.5, 0.3, 0.2])])
    assert file.rows_answered == 2 and file.label_of(0) is None and file.source(0) is None
    assert [a.index for a in file.answers] == [0, 1] and file.answers[0].probabilities == []
    assert file.prediction(0).is_blank and file.prediction(1).label == "billing"


def test_answers_are_kept_as_columns_not_objects():
    """20,000 answers leave no object per row behind, and each row's Prediction comes back equal."""
    n = 20_000
    file = FileAnswers(n, NAMES)
    scores = np.log(np.random.default_rng(0).dirichlet([1, 1, 1], n))                 # [N, L]

    def made(r):
        return Prediction(r, list(NAMES), scores[r].tolist() if r % 5 else None, r % 7 == 0, r % 11 == 0)

    gc.collect()
    before = len(gc.get_objects())
    for start in range(0, n, 64):
        file.apply_predictions([made(r) for r in range(start, min(n, start + 64))])
    gc.collect()
    assert len(gc.get_objects()) - before < 100
    assert all(file.prediction(r) == made(r) for r in range(n))


def test_learned_answers_show_on_open_rows_and_a_run_shows_through_them():
    rng = np.random.default_rng(0)
    gold = [NAMES[r % 3] for r in range(60)]
    texts = [" ".join(rng.choice(WORDS[g].split(), 3).tolist() + ["please", "help"]) for g in gold]
    file = FileAnswers(60, NAMES)
    file.apply_predictions([prediction(r, [0.5, 0.3, 0.2]) for r in range(40)])       # the model: billing
    file.show_person_labels({r: gold[r] for r in range(12)})
    features = TicketFeatures(texts)
    learned = learn(features, file.lm_scores, file.person_labels, NAMES)
    changed = file.apply_learned(learned)
    assert changed is not None and set(changed) <= set(range(12, 60))
    assert [file.label_of(r) for r in range(60)] == gold                              # the words won
    assert {file.source(r) for r in range(12, 60)} == {LEARNED}
    assert len(file.apply_learned(learned)) == 0                                      # nothing new
    file.apply_predictions([prediction(r, [0.5, 0.3, 0.2]) for r in range(40, 60)])
    assert file.prediction(50).label == "billing" and file.label_of(50) == gold[50]   # raw kept, learned shown
    other = FileAnswers(60, ["sales", "support"])
    assert other.apply_learned(learned) is None and other.learned is None


@given(st.lists(st.lists(st.floats(-30, 0), min_size=3, max_size=3), min_size=1, max_size=20))
def test_one_rule_reads_an_answer_for_a_row_and_for_a_whole_file(rows):
    """Prediction's label, confidence and margin are the file's, row by row: one rule, Answers.of."""
    scores = np.array(rows)                                                           # [R, L]
    file = FileAnswers(len(rows), NAMES)
    file.apply_predictions([Prediction(r, NAMES, row) for r, row in enumerate(rows)])
    read = Answers.of(scores)
    for r, row in enumerate(rows):
        p = Prediction(r, NAMES, row)
        assert p.label == file.label_of(r) == NAMES[read.index[r]]
        assert p.confidence == file.confidence(r) and p.margin == file.margin(r)

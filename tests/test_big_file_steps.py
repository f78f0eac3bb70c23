"""The steps of opening a big file that no longer hold the GIL in one long call give what the long
calls gave: the TF-IDF built a slice at a time is TfidfTransformer's bit for bit, a JSON list parsed
an element at a time is json.loads's (values and errors), a fresh FileAnswers is as before, and the
accuracy read from the answered rows alone is the accuracy over every row (issue 32 item 7)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer

from triage_app.engine.prediction import Prediction
from triage_app.files import json_records
from triage_app.learn import features as features_module
from triage_app.learn.features import TicketFeatures
from triage_app.learn.model import MODEL
from triage_app.quality.metrics import evaluate
from triage_app.review.answers import FileAnswers
from triage_app.ui.table.summary import TableSummary

WORDS = ["refund", "card", "login", "error", "the", "my", "app", "crash", "password", "invoice", "é", "x"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join), min_size=2, max_size=30),
       st.integers(min_value=1, max_value=7))
def test_tfidf_a_slice_at_a_time_is_the_transformers_bit_for_bit(texts, slice_rows):
    original = features_module.SLICE
    features_module.SLICE = slice_rows
    try:
        ours = TicketFeatures(texts).matrix
        slices, width = features_module._counts(texts)
    finally:
        features_module.SLICE = original
    found = np.asarray(sparse.vstack(slices).astype(bool).sum(axis=0)).ravel()
    kept = np.where(found >= 2, np.cumsum(found >= 2) - 1, -1)
    if not (found >= 2).any():
        assert ours.shape == (len(texts), 0)
        return
    counts = sparse.vstack([features_module._columns(s, kept, int((found >= 2).sum())) for s in slices], format="csr")
    theirs = TfidfTransformer(sublinear_tf=True).fit_transform(counts)
    assert ours.dtype == theirs.dtype == np.float32 and ours.shape == theirs.shape
    assert np.array_equal(ours.indptr, theirs.indptr) and np.array_equal(ours.indices, theirs.indices)
    assert np.array_equal(ours.data, theirs.data)


def test_embeddings_and_both_are_untouched():
    texts = ["refund my card", "refund the card", "login error", "login crash"]
    vectors = np.eye(4, 3, dtype=np.float32)
    assert np.array_equal(TicketFeatures(texts, vectors).matrix, vectors)
    both = TicketFeatures.both(texts, vectors).matrix
    assert both.shape == (4, TicketFeatures(texts).matrix.shape[1] + 3)
    assert np.array_equal(both.toarray()[:, -3:], vectors)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12)
documents = st.one_of(st.lists(json_values, max_size=6), json_values,
                      st.dictionaries(st.text(max_size=3), st.lists(json_values, max_size=4), max_size=2))


def read_both(text: str):
    """(value or (error message, position)) as json.loads gives it, and as json_records.loads does."""
    out = []
    for read in (lambda t: json.loads(t, parse_float=json_records.Number, parse_int=json_records.Number),
                 json_records.loads):
        try:
            out.append(("value", read(text)))
        except json.JSONDecodeError as exc:
            out.append(("error", exc.msg, exc.pos))
    return out


@settings(max_examples=300, deadline=None)
@given(documents, st.sampled_from(["", " ", "\n  ", "\t"]), st.integers(min_value=0, max_value=60),
       st.sampled_from(["", ",", "]", "}", "[", ":", '"', " ", "x", "1"]), st.booleans())
def test_a_list_parsed_an_element_at_a_time_is_what_json_loads_reads(document, space, cut, inserted, mangle):
    """Well-formed, or mangled at any place (a character dropped or put in), with the same value, or the
    same error at the same place, and numbers spelled as written."""
    text = json.dumps(document, indent=space or None)
    if mangle:
        cut = min(cut, len(text))
        text = text[:cut] + inserted + text[cut + 1:]
    ours, theirs = read_both(text)[1], read_both(text)[0]
    assert ours == theirs
    if ours[0] == "value":
        assert json.dumps(ours[1]) == json.dumps(theirs[1])


def test_numbers_keep_their_spelling_inside_the_streamed_list():
    data = json_records.loads('{"tickets": [ {"id": 0.30000000000000004, "n": 1e5}, {"id": -0} ] }')
    assert data == {"tickets": [{"id": "0.30000000000000004", "n": "1e5"}, {"id": "-0"}]}
    assert isinstance(data["tickets"][0]["id"], json_records.Number)


def test_a_fresh_file_answers_shows_nothing_and_its_sources_are_the_models():
    answers = FileAnswers(5, ["a", "b"])
    assert answers.predicted_labels == [None] * 5 and answers.sources == [MODEL] * 5
    assert [answers.source(r) for r in range(5)] == [None] * 5
    assert answers.answered_rows().tolist() == [] and answers.label_indexes().tolist() == [-1] * 5
    answers.apply_predictions([Prediction(3, ["a", "b"], [-0.1, -2.5])])
    assert answers.answered_rows().tolist() == [3] and answers.label_column[3] == "a"
    answers.clear(4)
    assert answers.sources == [MODEL] * 4 and answers.predicted_labels == [None] * 4


class _Model:
    """What TableSummary reads of the table: a frame, the current field's answers, its label names."""

    def __init__(self, frame, state):
        self.frame, self.state, self.label_names = frame, state, state.label_names


def test_accuracy_from_the_answered_rows_is_the_accuracy_over_every_row():
    names = ["billing", "shipping", "login"]
    rng = np.random.default_rng(3)
    gold = rng.choice(names + ["Other", " billing ", ""], 300).tolist()
    state = FileAnswers(300, names)
    rows = rng.choice(300, 170, replace=False)
    state.apply_predictions([Prediction(int(r), names, np.log(rng.dirichlet([1, 1, 1])).tolist()) for r in rows])
    state.apply_predictions([Prediction(7, names, None)])                                   # a blank ticket
    model = _Model(pd.DataFrame({"queue": gold}, dtype=object), state)
    ours = TableSummary._scores(model, "queue")
    theirs = evaluate(gold, state.predicted_labels, names, state.confidences)
    assert ours.to_dict() == theirs.to_dict() and ours.n == len(set(rows.tolist()) - {7}) - gold_blank(gold, rows)


def gold_blank(gold, rows) -> int:
    return sum(1 for r in set(rows.tolist()) - {7} if not gold[r].strip())

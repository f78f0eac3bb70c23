"""The table model and its proxy on a 4-row DataFrame, no window (after napari's PandasModel tests)."""

import math

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from triage_app.engine.classifier import Prediction
from triage_app.learn import LEARNED, MODEL, PERSON, TicketFeatures, learn
from triage_app.engine.prediction import Answers
from triage_app.ui.table.model import CONFIDENCE, LABEL, LOW_CONFIDENCE, MARGIN, SORT_ROLE, TicketTableModel
from triage_app.ui.table.proxy import TicketFilterProxy
from triage_app.ui.table.row_order import contiguous_runs

NAMES = ["billing", "technical", "account"]
DISPLAY = Qt.ItemDataRole.DisplayRole


def prediction(row, probabilities):
    return Prediction(row, NAMES, [math.log(p) for p in probabilities])


@pytest.fixture
def model():
    frame = pd.DataFrame({"id": ["a", "b", "c", "d"],
                          "text": ["refund my invoice", "app crashes on start", "reset my password",
                                   "line one\nline two"]}, dtype=object)
    model = TicketTableModel(frame)
    model.set_label_names(NAMES)
    return model


@pytest.fixture
def answered(model):
    model.apply_predictions([prediction(0, [0.9, 0.05, 0.05]), prediction(1, [0.2, 0.45, 0.35]),
                             prediction(2, [0.1, 0.3, 0.6]), prediction(3, [0.3, 0.55, 0.15])])
    return model


def test_shape_headers_and_cells(model):
    assert (model.rowCount(), model.columnCount()) == (4, 5)
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(5)]
    assert headers == ["label", "confidence", "margin", "id", "text"]
    assert model.data(model.index(1, 4)) == "app crashes on start"
    assert model.data(model.index(3, 4)) == "line one ⏎ line two"      # one line per row in the table
    assert model.data(model.index(0, LABEL)) is None                   # no answer yet


def test_answers_show_by_role(answered):
    m = answered
    assert m.data(m.index(0, LABEL)) == "billing"
    assert m.data(m.index(0, CONFIDENCE)) == "0.90"
    assert m.data(m.index(0, MARGIN)) == "0.85"
    assert m.data(m.index(0, CONFIDENCE), SORT_ROLE) == pytest.approx(0.9)
    assert m.data(m.index(0, CONFIDENCE), Qt.ItemDataRole.TextAlignmentRole)
    assert "billing 0.90" in m.data(m.index(0, LABEL), Qt.ItemDataRole.ToolTipRole)


def test_low_confidence_rows_are_tinted(answered):
    background = Qt.ItemDataRole.BackgroundRole
    assert answered.confidence(1) < LOW_CONFIDENCE
    assert answered.data(answered.index(1, 4), background) is not None
    assert answered.data(answered.index(0, 4), background) is None


def test_a_delegate_painting_cell_after_cell_gets_each_cells_own_look(qtbot, answered):
    """Views paint through multiData (all a cell's roles in one call), and Qt's delegate hands it the
    same slots for every cell: a role one cell has must not show on the next, which has none."""
    proxy = TicketFilterProxy()
    proxy.setSourceModel(answered)
    delegate = QStyledItemDelegate()
    looks = {}
    for row, column in [(0, CONFIDENCE), (0, 4), (1, 4), (0, 4)]:     # right-aligned, then text; tinted, then not
        option = QStyleOptionViewItem()
        delegate.initStyleOption(option, proxy.index(row, column))
        looks[row, column] = (option.text, option.displayAlignment & Qt.AlignmentFlag.AlignRight,
                              option.backgroundBrush.style() != Qt.BrushStyle.NoBrush)
    assert looks[0, CONFIDENCE] == ("0.90", Qt.AlignmentFlag.AlignRight, False)
    assert looks[1, 4] == ("app crashes on start", Qt.AlignmentFlag(0), True)        # low confidence: tinted
    assert looks[0, 4] == ("refund my invoice", Qt.AlignmentFlag(0), False)


def test_the_proxy_never_reads_a_row_at_a_time(answered, monkeypatch):
    """Sorts and filters read the model's columns whole: a batch on a 100k-row table sorted by margin
    must not call Python once per row or per comparison (docs/bench/table_updates.txt)."""
    proxy = TicketFilterProxy()
    proxy.setSourceModel(answered)
    for one_row in ("label_of", "sort_key", "margin", "confidence", "is_person_label", "cell", "data"):
        monkeypatch.setattr(answered, one_row, lambda *args, name=one_row: pytest.fail(f"{name} read a row"))
    assert not proxy.filtering
    for column in range(5):
        proxy.sort(column, Qt.SortOrder.DescendingOrder)
    proxy.set_search("password")
    assert proxy.rowCount() == 1
    proxy.set_search("")
    proxy.set_label_filter("technical")
    proxy.set_review_queue(True)
    answered.apply_predictions([prediction(0, [0.2, 0.7, 0.1])])
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == [1, 3, 0]     # smallest margin first


def test_a_batch_is_one_data_changed_per_run_of_rows(model):
    changed = []
    model.dataChanged.connect(lambda top, bottom, *_: changed.append((top.row(), top.column(),
                                                                      bottom.row(), bottom.column())))
    model.apply_predictions([prediction(3, [0.1, 0.8, 0.1]), prediction(0, [0.1, 0.1, 0.8]),
                             prediction(1, [0.8, 0.1, 0.1])])
    assert changed == [(0, LABEL, 1, MARGIN), (3, LABEL, 3, MARGIN)]   # row 2 is not part of it
    changed.clear()
    model.show_person_labels({3: "billing", 1: "account"})
    assert changed == [(1, LABEL, 1, MARGIN), (3, LABEL, 3, MARGIN)]
    assert contiguous_runs([9, 5, 1, 2, 3, 2]) == [(1, 3), (5, 5), (9, 9)] and contiguous_runs([]) == []


def test_a_batch_joins_the_review_queue_in_one_insertion():
    """A batch's rows are spread over a big file: one dataChanged per run, but the sorted proxy
    re-sorts once, after the last of them."""
    model = TicketTableModel(pd.DataFrame({"text": [f"ticket {k}" for k in range(2000)]}, dtype=object))
    model.set_label_names(NAMES)
    proxy = TicketFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_review_queue(True)
    inserted = []
    proxy.rowsInserted.connect(lambda parent, first, last: inserted.append((first, last)))
    model.apply_predictions([prediction(k, p) for k, p in ((3, [0.5, 0.3, 0.2]), (700, [0.4, 0.35, 0.25]),
                                                           (1999, [0.8, 0.1, 0.1]))])
    assert inserted == [(0, 2)]
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == [700, 3, 1999]   # in the queue now


def test_set_data_reports_and_signals(qtbot, answered):
    m = answered
    index = m.index(1, LABEL)
    with qtbot.waitSignals([m.dataChanged, m.person_label_changed]):
        assert m.setData(index, "account") is True
    assert m.label_of(1) == "account" and m.is_person_label(1)
    assert m.data(index) == "account  ✎"
    assert m.predicted_label(1) == "technical"                         # the model's answer is kept
    assert m.setData(index, "account") is False                        # no change, no signal
    assert m.setData(index, "not a label") is False
    assert m.setData(m.index(1, 4), "edited text") is False            # the file's cells are read-only
    with qtbot.waitSignal(m.person_label_changed, check_params_cb=lambda row, label, axis: (row, label, axis) == (1, None, "label")):
        assert m.setData(index, None) is True
    assert m.label_of(1) == "technical"


def test_a_run_never_overwrites_a_person_label(answered):
    answered.set_person_label(0, "account")
    answered.apply_predictions([prediction(0, [0.99, 0.005, 0.005])])
    assert answered.label_of(0) == "account"
    assert answered.predicted_label(0) == "billing"


def test_new_label_names_drop_old_answers(answered):
    answered.set_person_label(0, "account")
    answered.set_label_names(["sales", "support"])
    assert answered.rows_answered == 0 and answered.person_labels == {}
    assert answered.flags(answered.index(0, LABEL)) & Qt.ItemFlag.ItemIsEditable


def test_proxy_filters_by_label_and_text(answered):
    proxy = TicketFilterProxy()
    proxy.setSourceModel(answered)
    proxy.set_label_filter("technical")
    assert sorted(proxy.source_row(r) for r in range(proxy.rowCount())) == [1, 3]
    proxy.set_search("CRASHES")
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == [1]
    proxy.set_label_filter(None)
    proxy.set_search("my")
    assert sorted(proxy.source_row(r) for r in range(proxy.rowCount())) == [0, 2]


def test_proxy_sorts_by_confidence_and_review_queue_by_margin(answered):
    proxy = TicketFilterProxy()
    proxy.setSourceModel(answered)
    proxy.sort(CONFIDENCE, Qt.SortOrder.DescendingOrder)
    assert [proxy.source_row(r) for r in range(4)] == [0, 2, 3, 1]
    answered.set_person_label(3, "billing")
    proxy.set_review_queue(True)
    margins = [answered.margin(proxy.source_row(r)) for r in range(proxy.rowCount())]
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == [1, 2, 0]   # person's row 3 left
    assert margins == sorted(margins)


# learned answers (triage_app.learn), shown in place

WORDS = {"billing": "invoice charge refund price receipt", "technical": "error crash bug outage timeout",
         "account": "login password user profile email"}


def worded(n: int, scored: int, seed: int = 0):
    """n tickets whose words say their label; the model answers billing, a little unsure, on the first `scored`."""
    rng = np.random.default_rng(seed)
    gold = [NAMES[r % 3] for r in range(n)]
    texts = [" ".join(rng.choice(WORDS[g].split(), 3).tolist() + ["please", "help"]) for g in gold]
    model = TicketTableModel(pd.DataFrame({"text": texts}, dtype=object))
    model.set_label_names(NAMES)
    model.apply_predictions([prediction(r, [0.5, 0.3, 0.2]) for r in range(scored)])
    return model, gold, texts


@pytest.fixture
def taught():
    """60 tickets whose words say the label; the model answers billing for every one; 12 labelled by a person."""
    model, gold, texts = worded(60, scored=40)                                         # rows 40-59: not run yet
    model.show_person_labels({r: gold[r] for r in range(12)})
    return model, gold, TicketFeatures(texts)


def relearn(model, features):
    return learn(features, model.lm_scores, model.person_labels, NAMES)


def test_learned_answers_show_in_place_but_never_on_a_persons_rows(taught):
    model, gold, features = taught
    learned = relearn(model, features)
    assert learned.weights.is_learning
    changed = []
    model.dataChanged.connect(lambda top, bottom, *_: changed.append((top.row(), bottom.row())))
    assert model.apply_learned(learned)
    assert [model.label_of(r) for r in range(12, 60)] == gold[12:]                    # the words won
    assert [model.label_of(r) for r in range(12)] == gold[:12] and model.is_person_label(0)
    assert model.confidence(20) == pytest.approx(float(np.exp(learned.scores[20]).max()))
    assert {model.source(r) for r in range(12, 60)} == {LEARNED} and model.source(0) == PERSON
    assert changed == [(12, 59)]                                                       # one run, person's rows left out
    tip = model.data(model.index(20, LABEL), Qt.ItemDataRole.ToolTipRole)
    assert "learned from your labels: " in tip and "model: billing 0.50" in tip
    changed.clear()
    assert model.apply_learned(learned) and changed == []                              # nothing new: no signal
    assert model.apply_learned(learn(features, model.lm_scores, {}, NAMES))           # every label taken back
    assert model.label_of(20) == "billing" and model.source(20) == MODEL and model.label_of(50) is None
    model.set_label_names(["sales", "support", "other"])
    assert not model.apply_learned(learned) and model.learned is None                # another label set: refused


def test_a_runs_new_batch_is_shown_through_the_active_learned_not_raw(taught):
    model, gold, features = taught
    learned = relearn(model, features)
    model.apply_learned(learned)
    assert model.label_of(50) == gold[50] and model.source(50) == LEARNED               # the words alone, unscored
    model.apply_predictions([prediction(r, [0.5, 0.3, 0.2]) for r in range(40, 60)])
    assert model.prediction(50).label == "billing"                                     # the raw answer is kept...
    assert [model.label_of(r) for r in range(40, 60)] == gold[40:]                     # ...but not shown
    assert model.confidence(50) == pytest.approx(float(np.exp(relearn(model, features).scores[50]).max()))
    assert model.source(50) == LEARNED


def test_a_retrain_shows_its_own_reading_where_the_scores_it_read_still_hold(taught):
    """A retrain's answers are read on its thread; rows a run scored while it trained are combined
    again here. Either way every row shows exactly what combining it here with today's scores gives."""
    model, gold, features = taught
    # the model right on every row, sure of every other one: the words say what it is unsure of, so both count
    # (a model as sure of every labelled row as the words needs no words: learn/weights.py)
    sure = lambda r: 0.6 if r % 2 == 0 else 0.4                                        # noqa: E731
    model.apply_predictions([prediction(r, [sure(r) if n == gold[r] else (1 - sure(r)) / 2 for n in NAMES])
                             for r in range(40)])
    learned = relearn(model, features)                                                 # rows 40-59 not scored
    assert learned.weights.lm > 0 and learned.weights.is_learning                      # both parts count
    model.apply_predictions([prediction(r, [0.2, 0.2, 0.6]) for r in range(40, 50)])   # scored while it trained
    model.set_person_label(3, None)                                                          # a label taken back
    assert model.apply_learned(learned)
    rows = np.r_[3, 12:60]
    expected = learned.combine(rows, model.lm_scores[rows])                             # [R, L]
    read = Answers.of(expected)
    assert [model.label_of(r) for r in rows] == [NAMES[k] for k in read.index]
    assert [model.confidence(r) for r in rows] == read.confidence.tolist()
    assert [model.margin(r) for r in rows] == read.margin.tolist()
    shown = {a.index: a.probabilities for a in model.answers}
    assert [shown[r] for r in rows] == np.exp(expected).tolist()
    assert not np.array_equal(expected[29:39], learned.scores[40:50])                  # those did need combining


def test_a_retrain_changing_rows_in_many_runs_signals_once_and_the_sorted_proxy_follows():
    model, gold, texts = worded(300, scored=300, seed=1)
    model.show_person_labels({r: gold[r] for r in range(0, 300, 4)})                   # open rows: 75 runs
    proxy = TicketFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(CONFIDENCE)
    changed = []
    model.dataChanged.connect(lambda top, bottom, *_: changed.append((top.row(), bottom.row())))
    assert model.apply_learned(learn(TicketFeatures(texts), model.lm_scores, model.person_labels, NAMES))
    assert len(changed) == 1 and sum(model.label_of(r) != "billing" for r in range(300)) > 130
    fresh = TicketFilterProxy()
    fresh.setSourceModel(model)
    fresh.sort(CONFIDENCE)
    assert [proxy.source_row(r) for r in range(300)] == [fresh.source_row(r) for r in range(300)]


def test_a_batch_of_many_spread_rows_still_signals_each_run():
    """Under the share of the table that the proxy re-sorts whole, each run keeps its own signal:
    one span would make it place every row in between."""
    model = TicketTableModel(pd.DataFrame({"text": [f"ticket {r}" for r in range(3000)]}, dtype=object))
    model.set_label_names(NAMES)
    changed = []
    model.dataChanged.connect(lambda top, bottom, *_: changed.append((top.row(), bottom.row())))
    model.apply_predictions([prediction(r, [0.5, 0.3, 0.2]) for r in range(0, 3000, 30)])  # 100 runs, 3%
    assert changed == [(r, r) for r in range(0, 3000, 30)]


def test_the_export_writes_what_the_table_shows_and_its_source(taught):
    from triage_app.files.export import results_frame

    model, gold, features = taught
    model.apply_learned(relearn(model, features))
    model.apply_predictions([prediction(59, [0.2, 0.3, 0.5])])
    out = results_frame(model.frame, model.answers, NAMES, model.person_labels, sources=model.sources)
    assert out["label"].tolist() == [model.label_of(r) for r in range(60)] == gold
    assert out["source"].tolist() == [PERSON] * 12 + [LEARNED] * 48
    assert out["confidence"].tolist() == [model.confidence(r) for r in range(60)]
    assert out["p_account"][59] == pytest.approx(float(np.exp(model.learned.combine(np.array([59]),
                                                                                     model.lm_scores[[59]]))[0, 2]))
    fresh = TicketTableModel(model.frame)
    fresh.set_label_names(NAMES)
    assert fresh.sources == [MODEL] * 60 and fresh.answers == []


def test_confirming_makes_the_shown_answer_a_persons_label(qtbot, answered):
    with qtbot.waitSignal(answered.person_label_changed, check_params_cb=lambda row, label, axis: (row, label, axis) == (2, "account", "label")):
        assert answered.confirm(2)
    assert answered.is_person_label(2) and answered.source(2) == PERSON
    assert not answered.confirm(2)                                                     # already theirs
    empty = TicketTableModel(answered.frame)
    empty.set_label_names(NAMES)
    assert not empty.confirm(0) and not empty.is_person_label(0)                             # no answer to agree with


def test_next_to_label_shows_the_queue_in_its_order_until_each_is_labelled(answered):
    proxy = TicketFilterProxy()
    proxy.setSourceModel(answered)
    proxy.sort(CONFIDENCE, Qt.SortOrder.DescendingOrder)
    shown = lambda: [proxy.source_row(r) for r in range(proxy.rowCount())]
    proxy.set_next_to_label([3, 0, 2])
    assert shown() == [3, 0, 2] and proxy.filtering
    answered.set_person_label(0, "billing")
    assert shown() == [3, 2]
    proxy.set_next_to_label([2, 1])                                                    # after a retrain
    assert shown() == [2, 1]
    proxy.set_next_to_label(None)
    assert shown() == [0, 2, 3, 1]                                                     # the sort before
    assert (proxy.sortColumn(), proxy.sortOrder()) == (CONFIDENCE, Qt.SortOrder.DescendingOrder)
    assert "filterAcceptsRow" not in vars(proxy)

"""A key acts on the ticket the person sees selected, and then on the next one down: after a sort, a retrain's
new order, or a label that moves its row (a hunt's findings: a key labelled a ticket scrolled out of sight, and
in a table sorted by label the cursor went back to a ticket already passed)."""

from __future__ import annotations

import csv

import numpy as np
from PySide6.QtCore import Qt

from triage_app.engine.labels import LabelSet
from triage_app.engine.prediction import Prediction
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

NAMES = ["alpha", "beta", "gamma"]


def opened(qtbot, make_window, tmp_path, texts: list[str]):
    path = tmp_path / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["text"], *[[t] for t in texts]])
    window = make_window(autoload=False)
    window.labels_panel.set_label_set(LabelSet.from_names(NAMES))
    open_file(qtbot, window, path)
    window.show()
    qtbot.waitExposed(window)
    return window


def shown(window) -> list[int]:
    return [window.proxy.source_row(r) for r in range(window.proxy.rowCount())]


def test_a_sort_keeps_the_selected_ticket_in_sight(qtbot, make_window, tmp_path):
    texts = [f"{'zz' if r == 0 else 'aa'} ticket {r:03d}" for r in range(300)]       # row 0 sorts last
    window = opened(qtbot, make_window, tmp_path, texts)
    window.view.setFocus()
    window.view.selectRow(0)
    window.view.sortByColumn(window.model.columnCount() - 1, Qt.SortOrder.AscendingOrder)   # by text
    qtbot.wait(50)
    place = window.proxy.mapFromSource(window.model.index(0, 0)).row()
    assert place == 299 and window.view.selected_source_rows() == [0]
    assert window.view.viewport().rect().intersects(window.view.visualRect(window.proxy.index(place, 0)))


def test_in_a_table_sorted_by_label_a_key_moves_on_to_the_next_ticket_down(qtbot, make_window, tmp_path):
    window = opened(qtbot, make_window, tmp_path, [f"ticket {r}" for r in range(8)])
    scores = {r: [-1.6, -0.4, -2.3] if r < 4 else [-0.4, -1.6, -2.3] for r in range(8)}   # 0-3 beta, 4-7 alpha
    window.model.apply_predictions([Prediction(r, NAMES, s) for r, s in scores.items()])
    window.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert shown(window) == [4, 5, 6, 7, 0, 1, 2, 3]
    window.view.setFocus()
    window.view.selectRow(5)                                      # ticket 1, beta; ticket 2 is below it
    qtbot.keyClick(window.view, Qt.Key.Key_1)                     # alpha: ticket 1 moves up among the alphas
    assert window.model.label_of(1) == "alpha" and window.view.selected_source_rows() == [2]


def test_next_to_label_keeps_its_order_after_the_review_queue_is_turned_off(qtbot, make_window, tmp_path):
    window = opened(qtbot, make_window, tmp_path, [f"ticket {r}" for r in range(8)])
    window.model.apply_predictions([Prediction(r, NAMES, [-0.4 - r / 10, -1.6, -2.3]) for r in range(8)])
    window.proxy.set_next_to_label([5, 2, 7, 0])                  # the queue's order: best first
    assert shown(window) == [5, 2, 7, 0]
    window.tickets.review_button.setChecked(True)
    window.tickets.review_button.setChecked(False)
    assert shown(window) == [5, 2, 7, 0]


def test_sorted_by_label_the_none_of_these_rows_sit_together(qtbot, make_window, tmp_path):
    from triage_app.learn.none_of_these import NONE_OF_THESE, NoneOfThese

    window = opened(qtbot, make_window, tmp_path, [f"ticket {r}" for r in range(9)])
    sure, unsure = [0.9, 0.05, 0.05], [0.4, 0.35, 0.25]
    p = [sure, unsure, sure[::-1], sure, unsure, sure[::-1], unsure[::-1], sure, sure[::-1]]
    window.model.apply_predictions([Prediction(r, NAMES, np.log(s).tolist()) for r, s in enumerate(p)])
    window.model.set_none_of_these(NoneOfThese(threshold=0.5, kept=1.0, caught=None))
    window.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    shown_labels = [window.proxy.data(window.proxy.index(r, 0)) for r in range(window.proxy.rowCount())]
    assert shown_labels == sorted(shown_labels) and shown_labels.count(NONE_OF_THESE) == 3


def test_a_batch_landing_in_a_sorted_table_leaves_a_person_reading_elsewhere_where_they_are(qtbot, make_window,
                                                                                            tmp_path):
    from triage_app.ui.table.decisions import CONFIDENCE

    window = opened(qtbot, make_window, tmp_path, [f"ticket {r:03d}" for r in range(300)])
    window.model.apply_predictions([Prediction(r, NAMES, [-0.4 - r / 1000, -1.6, -2.3]) for r in range(0, 300, 2)])
    window.view.sortByColumn(window.model.column_of(kind=CONFIDENCE), Qt.SortOrder.DescendingOrder)
    window.view.selectRow(0)
    bar = window.view.verticalScrollBar()
    bar.setValue(bar.maximum())                                   # reading the bottom, the top row selected
    window.model.apply_predictions([Prediction(r, NAMES, [-0.3 - r / 1000, -1.6, -2.3]) for r in range(1, 40, 2)])
    qtbot.wait(20)
    assert bar.value() == bar.maximum()


def test_labelling_the_last_row_moves_on_to_where_it_went_not_to_a_ticket_passed(qtbot, make_window, tmp_path):
    window = opened(qtbot, make_window, tmp_path, [f"ticket {r}" for r in range(8)])
    scores = {r: [-1.6, -0.4, -2.3] if r < 4 else [-0.4, -1.6, -2.3] for r in range(8)}   # 0-3 beta, 4-7 alpha
    window.model.apply_predictions([Prediction(r, NAMES, s) for r, s in scores.items()])
    window.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    window.view.setFocus()
    window.view.selectRow(7)                                      # ticket 3, the last row
    qtbot.keyClick(window.view, Qt.Key.Key_1)
    assert window.view.selected_source_rows() == [3]

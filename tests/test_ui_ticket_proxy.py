"""The proxy's numpy sorts and filters against the plain Python reading of the same rows: sort_key,
label_of, is_person_label, margin and the row's text, one row at a time, as Qt's proxy used to read them."""

import math

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, QPoint, Qt

from triage_app.engine.classifier import Prediction
from triage_app.ui.table.model import CONFIDENCE, LABEL, MARGIN, RESULT_HEADERS, TicketTableModel
from triage_app.ui.table.proxy import TicketFilterProxy
from triage_app.ui.table.view import TicketView

NAMES = ["technical", "account", "billing"]          # not alphabetical: the label sort is by name
ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
ROWS_SELECTED = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows


def prediction(row, probabilities):
    return Prediction(row, NAMES, None if probabilities is None else [math.log(p) for p in probabilities])


def random_answers(rng, rows):
    """Coarse probabilities, so that confidences, margins and labels tie."""
    out = []
    for row in rows:
        p = rng.choice([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5], [0.6, 0.2, 0.2], [0.4, 0.4, 0.2]])
        out.append(prediction(int(row), None if rng.random() < 0.05 else p))           # a few blank tickets
    return out


@pytest.fixture
def tickets():
    """200 rows: half answered, some labelled by a person; a file column full of ties and case."""
    rng = np.random.default_rng(7)
    n = 200
    frame = pd.DataFrame({"queue": rng.choice(["Billing", "billing", "Tech", "  ", "Äpfel", "zeta"], n),
                          "text": [f"ticket {k} {rng.choice(['refund', 'crash', 'Login'])}" for k in range(n)],
                          "count": rng.integers(0, 12, n)}, dtype=object)
    model = TicketTableModel(frame)
    model.set_label_names(NAMES)
    model.apply_predictions(random_answers(rng, rng.permutation(n)[:100]))
    for row in rng.choice(n, 15, replace=False):
        model.set_person_label(int(row), str(rng.choice(NAMES)))
    proxy = TicketFilterProxy()
    proxy.setSourceModel(model)
    return model, proxy, rng


def shown(proxy):
    return [proxy.source_row(r) for r in range(proxy.rowCount())]


def expected(model, proxy):
    """The rows and order a row-at-a-time proxy shows: filterAcceptsRow, then a stable sort on sort_key."""
    def accepted(row):
        if proxy.label_filter and model.label_of(row) != proxy.label_filter:
            return False
        if proxy.review_queue and (model.is_person_label(row) or model.margin(row) is None):
            return False
        if proxy.next_to_label is not None and (row not in proxy.next_to_label or model.is_person_label(row)):
            return False
        text = " ".join(model.cell(row, c) for c in model.columns).lower()
        return not proxy.search or proxy.search in text

    rows = [r for r in range(model.rowCount()) if accepted(r)]
    column, descending = proxy.sortColumn(), proxy.sortOrder() == DESC
    if column < 0:
        return rows
    if proxy.next_to_label is not None:
        return sorted(rows, key=proxy.next_to_label.get, reverse=descending)
    return sorted(rows, key=lambda r: model.sort_key(r, column), reverse=descending)   # stable both ways


@pytest.mark.parametrize("column", range(len(RESULT_HEADERS) + 3))
def test_each_column_sorts_as_pythons_sorted_on_its_keys(tickets, column):
    model, proxy, _ = tickets
    for order in (ASC, DESC, ASC):
        proxy.sort(column, order)
        assert shown(proxy) == expected(model, proxy), (column, order)
        assert (proxy.sortColumn(), proxy.sortOrder()) == (column, order)
    proxy.sort(-1)
    assert shown(proxy) == list(range(model.rowCount()))


def test_filters_combine_and_follow_new_answers(tickets):
    model, proxy, rng = tickets
    proxy.sort(CONFIDENCE, DESC)
    steps = [lambda: proxy.set_label_filter("account"), lambda: proxy.set_search(" Refund "),
             lambda: proxy.set_review_queue(True), lambda: model.apply_predictions(random_answers(rng, range(100, 200))),
             lambda: proxy.set_label_filter(None), lambda: model.set_person_label(int(shown(proxy)[0]), "billing"),
             lambda: proxy.set_search("crash"), lambda: proxy.sort(LABEL, DESC),
             lambda: model.show_person_labels({k: "technical" for k in range(0, 200, 3)}),
             lambda: proxy.set_review_queue(False), lambda: proxy.set_search(""),
             lambda: proxy.set_label_filter("technical"), lambda: proxy.set_label_filter("no such label")]
    for step in steps:
        step()
        assert shown(proxy) == expected(model, proxy)
        assert all(proxy.mapFromSource(model.index(row, 2)).row() == place for place, row in enumerate(shown(proxy)))
    assert shown(proxy) == [] and proxy.filtering


@pytest.mark.parametrize("column", [LABEL, CONFIDENCE, MARGIN, 3])
def test_small_batches_land_where_a_full_sort_puts_them(tickets, column):
    """A few changed rows are placed by binary search, ties (coarse answers) by file order."""
    model, proxy, rng = tickets
    for k, (order, queue) in enumerate([(ASC, False), (DESC, False), (ASC, True), (DESC, True)] * 3):
        proxy.sort(column, order)
        proxy.set_review_queue(queue)
        proxy.sort(column, order)
        model.apply_predictions(random_answers(rng, rng.choice(200, 4, replace=False)))
        assert shown(proxy) == expected(model, proxy), k
        model.set_person_label(int(rng.integers(200)), str(rng.choice(NAMES)) if k % 2 else None)
        assert shown(proxy) == expected(model, proxy), k


def test_next_to_label_keeps_its_order_whatever_else_is_on(tickets):
    model, proxy, rng = tickets
    proxy.set_search("ticket 1")
    queue = [int(r) for r in rng.permutation(200)[:30]]
    proxy.set_next_to_label(queue)
    assert shown(proxy) == expected(model, proxy) and shown(proxy)
    proxy.sort(MARGIN, DESC)                                           # a header click: the queue, reversed
    assert shown(proxy) == expected(model, proxy)
    model.set_person_label(shown(proxy)[0], "account")
    assert shown(proxy) == expected(model, proxy)


def test_the_selection_and_current_row_follow_their_rows_through_re_sorts(tickets):
    model, proxy, rng = tickets
    selection = QItemSelectionModel(proxy)
    proxy.sort(MARGIN, ASC)
    row = shown(proxy)[150]
    selection.setCurrentIndex(proxy.index(150, 4), ROWS_SELECTED)
    selected = lambda: [proxy.source_row(i.row()) for i in selection.selectedRows()]

    proxy.sort(4, DESC)                                                # by the file's text
    assert selected() == [row] and proxy.source_row(selection.currentIndex().row()) == row
    assert selection.currentIndex().column() == 4
    proxy.sort(CONFIDENCE, ASC)
    model.apply_predictions(random_answers(rng, range(200)))          # every answer moves
    assert selected() == [row] and proxy.source_row(selection.currentIndex().row()) == row
    proxy.set_search(model.cell(row, "text").split()[1])              # other rows leave
    assert selected() == [row] and proxy.rowCount() < 200
    proxy.set_search("")                                               # and come back
    assert selected() == [row] and shown(proxy) == expected(model, proxy)
    proxy.set_search("no ticket says this")                            # the row itself leaves
    assert selected() == [] and not selection.currentIndex().isValid()


def test_a_batch_re_sorts_once_and_an_unsorted_table_only_repaints_its_rows(tickets):
    """A batch is a dataChanged per run of rows; the sorted proxy waits for the last of them."""
    model, proxy, rng = tickets
    signals = []
    for name in ("layoutChanged", "rowsInserted", "rowsRemoved", "dataChanged"):
        getattr(proxy, name).connect(lambda *args, name=name: signals.append(name))
    batch = random_answers(rng, [3, 4, 77, 150, 199])
    model.apply_predictions(batch)
    assert signals == ["dataChanged"] * 4                              # runs 3-4, 77, 150, 199: passed on as they are
    signals.clear()
    proxy.set_review_queue(True)
    signals.clear()
    coming = [r for r in range(200) if not model.is_person_label(r) and model.margin(r) is None][::30][:3]   # spread
    model.apply_predictions([prediction(r, [0.34, 0.33, 0.33]) for r in coming])
    assert signals.count("layoutChanged") <= 1 and signals.count("rowsInserted") == 1
    assert shown(proxy) == expected(model, proxy) and set(coming) <= set(shown(proxy))
    signals.clear()
    proxy.sort(4, ASC)                                                 # by a file column: answers move nothing
    signals.clear()
    model.set_person_label(shown(proxy)[0], "account")                       # ...but leave the review queue
    assert "rowsRemoved" in signals and shown(proxy) == expected(model, proxy)


def test_headers_and_a_new_file(tickets):
    model, proxy, _ = tickets
    proxy.sort(MARGIN, DESC)
    assert proxy.headerData(0, Qt.Orientation.Vertical) == str(shown(proxy)[0] + 1)   # the file's row number
    proxy.set_search("nothing matches this")
    assert proxy.headerData(1, Qt.Orientation.Horizontal) == "confidence"           # with no rows shown too
    assert proxy.columnCount() == 6 and not proxy.hasChildren()
    model.set_frame(pd.DataFrame({"text": ["nothing matches this", "b", "nothing matches this too"]}, dtype=object))
    assert shown(proxy) == [0, 2] and proxy.columnCount() == 4
    proxy.setSourceModel(None)
    assert proxy.rowCount() == 0


def test_the_row_numbers_fit_the_files_largest_without_asking_the_model(qtbot, tickets, monkeypatch):
    """Qt's own header re-reads the numbers of the first and last 100 rows shown whenever the row
    count changes (each batch into a filtered table); the table's is as wide as the file's largest."""
    model, proxy, _ = tickets
    view = TicketView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.show()
    proxy.set_search("ticket 1 ")                                    # row 2 only: a one-digit number
    asked = []
    monkeypatch.setattr(TicketTableModel, "headerData", lambda *a: asked.append(a))
    header = view.verticalHeader()
    assert header.sizeHint().width() > header.fontMetrics().horizontalAdvance(str(model.rowCount()))
    assert asked == []
    monkeypatch.undo()
    # a click on a row's number still selects the row
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(5, header.sectionViewportPosition(0) + 3))
    assert view.selected_source_rows() == [shown(proxy)[0]]

"""The ticket table's first show asks Python for the cells and row numbers it paints, never once per
row of the file (issue 32 item 7). A header sized to its contents, a column resized to its contents or
a per-row check in the proxy would call Python for every row: at the row limit, seconds on the UI
thread. What each show calls is counted with sys.setprofile, on a small file and on a big one: the big
one may not cost more calls (docs/files.md says what the stalls that remain are)."""

import sys

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHeaderView

from triage_app.ui.table.pane import TicketPane

SMALL, BIG = 2_000, 200_000


def frame(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"id": np.arange(rows), "text": [f"Ticket {k}: order {k * 7} charged twice" for k in range(rows)],
                         "queue": np.array(["Billing", "Shipping", "Login"])[np.arange(rows) % 3]})


def empty_pane(qtbot) -> TicketPane:
    pane = TicketPane()
    qtbot.addWidget(pane)
    pane.resize(1000, 600)
    pane.show()
    qtbot.waitExposed(pane)
    pane.set_axes({"queue": ["Billing", "Shipping", "Login"]})
    return pane


def calls_to_show(qtbot, rows: int, prepare=lambda pane: None) -> int:
    """Python calls, at any depth, while a pane shows a file of `rows` rows and paints it."""
    pane = empty_pane(qtbot)
    prepare(pane)
    shown = frame(rows)
    calls = [0]

    def count(_frame, event, _arg):
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        pane.model.set_frame(shown)
        pane.show_table(True)
        pane.size_columns()
        for view in (pane.view, pane.view.frozen, pane.view.verticalHeader()):
            view.viewport().repaint()
        QApplication.processEvents()
    finally:
        sys.setprofile(None)
    assert pane.proxy.rowCount() == rows
    return calls[0]


@pytest.mark.window
def test_the_first_show_of_a_big_file_calls_python_no_more_than_a_small_ones(qtbot):
    small, big = calls_to_show(qtbot, SMALL), calls_to_show(qtbot, BIG)
    assert big <= small * 1.2 + 200, f"{big:,} Python calls to show {BIG:,} rows, {small:,} for {SMALL:,}"


@pytest.mark.window
def test_a_header_sized_to_its_rows_would_be_caught(qtbot):
    """The count above can fail: row numbers sized to their contents ask Python of every row."""
    def sized_to_contents(pane):
        pane.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    small, big = calls_to_show(qtbot, 20, sized_to_contents), calls_to_show(qtbot, 100, sized_to_contents)
    assert big > small * 1.2 + 200, f"{big:,} Python calls for 100 rows, {small:,} for 20"


def _inside_a_paint_begun_in_python(frame) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "paintEvent":
            return True
        frame = frame.f_back
    return False


@pytest.mark.window
def test_the_cells_and_row_numbers_a_paint_asks_for_find_the_gil_taken_once_for_the_whole_paint(qtbot):
    """Qt asks Python for each cell it paints (data, flags, the delegate). Within a paint that began in
    Python the GIL is already held for all of them; begun in C++, each call took the GIL anew and waited
    for any busy thread to let go of it (the learning thread preparing a big file): the table's first
    show stalled the window (docs/files.md). The paints here are the event loop's own, begun in C++."""
    pane = empty_pane(qtbot)
    pane.model.set_frame(frame(SMALL))
    pane.show_table(True)
    qtbot.wait(50)
    asked = {"multiData": [], "flags": [], "headerData": []}

    def note(called, event, _arg):
        if event == "call" and called.f_code.co_name in asked and called.f_code.co_filename.endswith("row_order.py"):
            asked[called.f_code.co_name].append(_inside_a_paint_begun_in_python(called.f_back))

    sys.setprofile(note)
    try:
        for view in (pane.view, pane.view.frozen, pane.view.verticalHeader()):
            view.viewport().update()
        qtbot.wait(100)
    finally:
        sys.setprofile(None)
    for kind, inside in asked.items():
        assert inside, f"the paint asked for no {kind}"
        assert all(inside), f"{inside.count(False)} of {len(inside)} {kind} calls came from a paint begun in C++"

"""The decision columns stay in view: a click on a wide ticket cell does not throw the table sideways,
and scrolled all the way right, label, confidence and margin are still on screen, where 1–9 act."""

import csv
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from triage_app.ui.table.model import CONFIDENCE, LABEL, MARGIN
from ui_helpers import make_window, open_file, save_shot, settings_file  # noqa: F401

BODY = ("Hello team,\\n\\nour invoices for March show the Premium plan twice and the card was charged "
        "both times. <br>Could you refund the second charge? &amp; please confirm by email. ") * 4


def wide_export(folder: Path) -> Path:
    """A helpdesk export as exported: subject, a long body, queue, priority."""
    path = folder / "helpdesk.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["subject", "body", "queue", "priority"])
        for k in range(6):
            writer.writerow([f"Charged twice ({k})", BODY, "Billing", "high"])
    return path


def on_screen(view, index) -> bool:
    return view.isVisible() and view.visualRect(index).intersects(view.viewport().rect())


def test_the_decision_columns_stay_in_view_and_keys_label_a_visible_row(qtbot, make_window, tmp_path):
    window = make_window(autoload=False)
    window.resize(1200, 700)
    window.splitter.setSizes([740, 460])
    open_file(qtbot, window, wide_export(tmp_path))
    view, proxy, names = window.view, window.proxy, window.label_set.names
    assert window.columns.text_column == "body"
    body = 3 + window.model.columns.index("body")
    h = view.horizontalScrollBar()
    assert h.value() == 0
    # the body cell runs past the right edge: a click on it must not scroll the table sideways
    cell = view.visualRect(proxy.index(2, body))
    assert cell.left() < view.viewport().width() < cell.right()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(cell.left() + 20, cell.center().y()))
    assert view.selected_source_rows() == [2]
    assert h.value() == 0

    # scrolled all the way right: the table's own decision columns have gone, the frozen ones have not
    h.setValue(h.maximum())
    assert h.maximum() > 0
    assert not on_screen(view, proxy.index(2, LABEL))
    frozen = view.frozen
    assert view.rect().contains(frozen.geometry())
    for column in (LABEL, CONFIDENCE, MARGIN):
        assert on_screen(frozen, proxy.index(2, column)), column
    assert all(frozen.isColumnHidden(c) for c in range(3, proxy.columnCount()))
    save_shot(window, "frozen_decision_columns.png", tmp_path)

    # 1–9 label the selected row, whose label is on screen
    QTest.keyClick(view, Qt.Key.Key_1)
    assert window.model.label_of(2) == names[0]
    # a click on a frozen label selects that row (one selection for both), and the keys work there too
    label_cell = frozen.visualRect(proxy.index(0, LABEL))
    qtbot.mouseClick(frozen.viewport(), Qt.MouseButton.LeftButton, pos=label_cell.center())
    assert view.selected_source_rows() == [0]
    QTest.keyClick(frozen, Qt.Key.Key_2)
    assert window.model.label_of(0) == names[1]
    assert h.value() == h.maximum() and on_screen(frozen, proxy.index(0, LABEL))
    # the table sorts from the frozen header, and both headers show it
    qtbot.mouseClick(frozen.horizontalHeader().viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(frozen.horizontalHeader().sectionViewportPosition(LABEL) + 10, 5))
    assert view.horizontalHeader().sortIndicatorSection() == LABEL
    assert frozen.horizontalHeader().sortIndicatorSection() == LABEL

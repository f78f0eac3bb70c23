"""The accuracy tab accounts for every row with a gold value, and its confusion matrix stays readable
(issue 32 items 19 and 21)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from triage_app.quality.metrics import evaluate
from triage_app.ui.panels.accuracy import AccuracyPanel

LABELS = ["Billing and Payments", "IT Helpdesk", "Account Access"]


def shown(panel) -> str:
    return " ".join(label.text() for label in panel.findChildren(QLabel) if label.isVisible())


def test_gold_values_that_match_no_label_are_named_with_their_rows(qtbot):
    # "IT Support" was renamed "IT Helpdesk" after the gold column was written
    gold = ["Billing and Payments"] * 5 + ["IT Support"] * 3 + ["Account Access"] * 2
    predicted = ["Billing and Payments"] * 5 + ["IT Helpdesk"] * 3 + ["Account Access"] * 2
    panel = AccuracyPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_scores(evaluate(gold, predicted, LABELS), "category")
    per_label = sum(int(panel.per_label.item(r, 2).text()) for r in range(panel.per_label.rowCount()))
    assert per_label == 7
    assert "3 of 10 rows" in shown(panel) and "“IT Support” (3)" in shown(panel)
    panel.show_scores(evaluate(gold[:5], predicted[:5], LABELS), "category")
    assert "matches no label" not in shown(panel)


def test_the_confusion_matrix_numbers_its_columns_and_names_them_in_its_rows(qtbot):
    panel = AccuracyPanel()
    qtbot.addWidget(panel)
    panel.show_scores(evaluate(["IT Support", "Account Access"], ["IT Helpdesk", "Account Access"], LABELS), "category")
    matrix = panel.matrix
    columns = [matrix.horizontalHeaderItem(c) for c in range(matrix.columnCount())]
    assert [c.text() for c in columns] == ["1", "2", "3"] and [c.toolTip() for c in columns] == LABELS
    rows = [matrix.verticalHeaderItem(r).text() for r in range(matrix.rowCount())]
    assert rows == ["1  Billing and Payments", "2  IT Helpdesk", "3  Account Access", "–  IT Support (no label)"]

"""Text from a file is shown as the file has it: a header, a cell or a label name that looks like
HTML is never laid out as HTML (a header of nested tables froze the window; a tooltip of a long
cell of them, for minutes), and a tooltip shows the head of a long cell, not all of it."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6 import QtGui

from triage_app.ui import plain_text
from triage_app.ui.learning.column_offer import LabelOfferDialog
from triage_app.ui.panels.message_bar import MESSAGE_CHARS, MessageBar
from triage_app.ui.table.model import TicketTableModel
from triage_app.ui.table.pane import TicketPane
from ui_helpers import save_shot

TABLES = "<table><tr><td>" * 16 + "cell" + "</td></tr></table>" * 16
ODD = "a < b && <b>c</b> &amp; d\n    indented\tand tabbed\n\nlast"


def shown(tip: str) -> str:
    """What a tooltip (or a label in Qt's automatic format) shows: Qt sniffs the text, as QToolTip does."""
    document = QTextDocument()
    if QtGui.Qt.mightBeRichText(tip):
        document.setHtml(tip)
    else:
        document.setPlainText(tip)
    return document.toPlainText()


def test_a_tooltip_shows_the_text_itself_and_only_its_head():
    assert shown(plain_text.tooltip(ODD)) == ODD
    assert shown(plain_text.tooltip(TABLES)) == TABLES
    long = "x" * 8_000_000
    tip = plain_text.tooltip(long)
    assert len(tip) < 6 * plain_text.TOOLTIP_CHARS and shown(tip) == "x" * plain_text.TOOLTIP_CHARS + "…"
    many_lines = "\n".join(f"line {k}" for k in range(500))
    assert shown(plain_text.tooltip(many_lines)).count("\n") == plain_text.TOOLTIP_LINES - 1
    assert plain_text.tooltip("") is None


def test_the_table_tooltips_show_cells_and_label_names_as_plain_text(qtbot):
    body = TABLES * 200                                   # a long body of nested tables
    model = TicketTableModel()
    model.set_frame(pd.DataFrame({"text": [body, ODD], "subject": ["short", "<i>" * 20 + "subject"]}))
    model.set_label_names(["<b>Billing</b>", "Tech"])
    model.show_person_labels({0: "<b>Billing</b>"})
    tip = model.data(model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert len(tip) < 6 * plain_text.TOOLTIP_CHARS
    assert shown(tip) == body[:plain_text.TOOLTIP_CHARS] + "…"
    assert shown(model.data(model.index(1, 3), Qt.ItemDataRole.ToolTipRole)) == ODD
    assert shown(model.data(model.index(1, 4), Qt.ItemDataRole.ToolTipRole)) == "<i>" * 20 + "subject"
    assert "labeled by you: <b>Billing</b>" in shown(model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole))


def test_the_message_bar_says_a_line_naming_a_column_as_plain_text(qtbot, tmp_path):
    bar = MessageBar()
    qtbot.addWidget(bar)
    message = f"No column “{TABLES * 200}” in this file."
    bar.say(message)
    assert bar.text.textFormat() == Qt.TextFormat.PlainText
    assert bar.minimumSizeHint().width() < 300                  # a long header does not widen the window
    assert bar.text.text() == message[:MESSAGE_CHARS] + "…" and shown(bar.text.toolTip()).startswith("No column")
    bar.resize(700, 80)
    bar.show()
    qtbot.waitExposed(bar)
    save_shot(bar, "plain_message_bar.png", tmp_path)


def test_label_names_from_a_file_are_plain_in_the_keys_hint(qtbot):
    pane = TicketPane()
    qtbot.addWidget(pane)
    pane.set_label_names(["<i>Billing</i>", "Tech & Co"])
    hint = shown(pane.keys_hint.text())
    assert "1 <i>Billing</i>" in hint and "2 Tech & Co" in hint


def test_the_offer_names_its_column_as_plain_text(qtbot):
    column = "<b>queue</b>" + TABLES
    dialog = LabelOfferDialog({column: ["a", "a", "b", "b", None]}, column)
    qtbot.addWidget(dialog)
    assert dialog.intro.textFormat() == Qt.TextFormat.PlainText and column in dialog.intro.text()


def test_a_gold_column_and_label_names_in_the_panels_are_plain(qtbot):
    from triage_app.engine.verify import Disagreement, VerifyReport
    from triage_app.quality.metrics import evaluate
    from triage_app.ui.panels.accuracy import AccuracyPanel
    from triage_app.ui.panels.run_progress import RunPanel

    panel = AccuracyPanel()
    qtbot.addWidget(panel)
    names = ["<b>Billing</b>", "Tech"]
    panel.show_scores(evaluate([names[0], "Tech"], [names[0], names[0]], names), "<i>queue</i>" + TABLES)
    assert "<i>queue</i>" + TABLES in shown(panel.headline.text())
    run = RunPanel()
    qtbot.addWidget(run)
    report = VerifyReport(2, 1, 0.5, 1e-3, [Disagreement(0, names[0], "<u>Tech</u>", 2.0, False)])
    run.show_verify(report)
    assert "reference <b>Billing</b>, fast path <u>Tech</u>" in shown(run.verify_result.text())


def test_the_accuracy_tab_shows_each_gate(qtbot):
    from triage_app.quality.metrics import evaluate
    from triage_app.ui.panels.accuracy import AccuracyPanel

    panel = AccuracyPanel()
    qtbot.addWidget(panel)
    panel.show_scores(evaluate(["a", "b", "a"], ["a", "a", "a"], ["a", "b"], [0.9, 0.65, 0.75]), "gold")
    rows = {panel.gates.verticalHeaderItem(r).text(): (panel.gates.item(r, 0).text(), panel.gates.item(r, 1).text())
            for r in range(panel.gates.rowCount())}
    assert rows["≥ 0.70"] == ("66.7% (2)", "100.0%") and rows["≥ 0.50"] == ("100.0% (3)", "66.7%")
    assert rows["≥ 0.95"] == ("0.0% (0)", "–")

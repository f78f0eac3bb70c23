"""A column of queues offered as the label set and as labels to learn from: the proposal, the
person's edits (untick, rename to merge, the rest merged or left out), the dialog offscreen."""

from PySide6.QtCore import Qt

from triage_app.ui.learning.column_offer import OTHER, LabelOfferDialog, best_column, column_values, proposed, take
from ui_helpers import save_shot

QUEUE = (["Billing"] * 5 + [" billing "] * 2 + ["Technical"] * 4 + ["Tech support"] * 2 + ["Account"] * 3
         + ["refunds"] * 2 + ["misc"] + [None, "", "  "] * 2)


def test_values_are_grouped_as_labels_are_read_and_the_frequent_ones_proposed():
    found = column_values(QUEUE)
    assert [(v.shown, v.rows) for v in found] == [("Billing", 7), ("Technical", 4), ("Account", 3),
                                                   ("refunds", 2), ("Tech support", 2), ("misc", 1)]
    assert [v.shown for v in proposed(found)] == ["Billing", "Technical", "Account", "refunds", "Tech support"]
    assert [v.shown for v in proposed(found, cap=2)] == ["Billing", "Technical"]


def test_taking_the_column_teaches_the_filled_rows():
    offer = take(QUEUE, {"billing": "Billing", "technical": "Technical", "tech support": "Technical",
                         "account": "Account", "refunds": None, "misc": None})
    assert offer.names == ["Billing", "Technical", "Account"]
    assert sum(1 for label in offer.labels.values() if label == "Technical") == 6      # merged by renaming
    assert offer.labels[5] == "Billing" and len(offer.labels) == 16                    # " billing " row
    assert offer.left_out == 3 and 17 not in offer.labels and 20 not in offer.labels   # refunds, misc; blanks
    assert offer.line() == ("3 labels from the column; learning from 16 tickets; 3 tickets with a value not "
                            "taken are left out")


def test_the_dialog_proposes_and_the_person_edits(qtbot):
    dialog = LabelOfferDialog({"queue": QUEUE}, "queue")
    qtbot.addWidget(dialog)
    assert dialog.offer().names == ["Billing", "Technical", "Account", "refunds", "Tech support"]
    assert dialog.offer().left_out == 1                                                # misc: one ticket
    dialog.table.item(4, 0).setText("Technical")                                       # merge Tech support
    dialog.table.item(3, 0).setCheckState(Qt.CheckState.Unchecked)                    # refunds out
    offer = dialog.offer()
    assert offer.names == ["Billing", "Technical", "Account"] and offer.left_out == 3
    assert dialog.summary.text() == offer.line()
    dialog.rest.setCurrentIndex(1)                                                     # the rest into "other"
    offer = dialog.offer()
    assert offer.names == ["Billing", "Technical", "Account", OTHER] and offer.left_out == 0
    assert [offer.labels[r] for r in (16, 17, 18)] == [OTHER, OTHER, OTHER]
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.grab().save("/tmp/offer.png")


def test_a_value_named_like_the_rest_merges_with_it():
    """A column with an "Other" value, and the values not ticked merged into "other": one label."""
    values = ["Billing"] * 3 + ["Other"] * 2 + ["misc"]
    offer = take(values, {"billing": "Billing", "other": "Other", "misc": OTHER})
    assert offer.names == ["Billing", "Other"]
    assert offer.labels == {0: "Billing", 1: "Billing", 2: "Billing", 3: "Other", 4: "Other", 5: "Other"}


FULL = ["Billing", "Technical"] * 100                                  # an answer key: every row
HALF = [q if r % 4 < 2 else "" for r, q in enumerate(FULL)]            # a queue filled in on half


def test_the_offer_starts_on_the_half_filled_column_and_the_person_may_change_it(qtbot, tmp_path):
    columns = {"text": [f"ticket {r}" for r in range(200)], "queue": FULL, "queue_known": HALF}
    assert best_column(columns, "queue") == "queue_known"
    assert best_column({"queue": FULL}, "queue") == "queue"
    assert best_column(columns, None) == "queue_known"
    dialog = LabelOfferDialog({c: v for c, v in columns.items() if c != "text"}, "queue_known")
    qtbot.addWidget(dialog)
    assert [dialog.column.itemText(k) for k in range(dialog.column.count())] == ["queue", "queue_known"]
    assert dialog.column.currentText() == "queue_known"
    assert len(dialog.offer().labels) == 100 and "100 of 200" in dialog.intro.text()
    dialog.column.setCurrentText("queue")
    assert len(dialog.offer().labels) == 200 and "200 of 200" in dialog.intro.text()
    assert dialog.summary.text() == dialog.offer().line() and dialog.chosen_column == "queue"
    dialog.show()
    qtbot.waitExposed(dialog)
    save_shot(dialog, "offer_columns.png", tmp_path)

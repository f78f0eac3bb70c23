"""What the window does with live learning: retrain when a person labels or a run ends, show the
answers and the status line, keep the Next-to-label queue, and take labels from a column.

LiveLearning (ui/learning.py) retrains off the UI thread; this object is its window side, so the
main window only tells it what happened.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QLabel

from triage_app.ui.label_offer import LabelOfferDialog, column_values, proposed
from triage_app.ui.learning import LiveLearning


class LearningSession(QObject):
    changed = Signal()          # answers in the table changed: counts and accuracy follow
    message = Signal(str)       # one line for the status bar
    failed = Signal(str)        # one line for the message bar

    def __init__(self, model, proxy, parent=None):
        """model, proxy: the ticket table's TicketTableModel and its TicketFilterProxy."""
        super().__init__(parent)
        self.model, self.proxy = model, proxy
        self.status = QLabel()
        self.learning = LiveLearning(model)
        self.learning.retrained.connect(self._retrained)
        self.learning.failed.connect(self.failed)
        self.queue: list[int] | None = None
        self.queue_shown = False

    def file_changed(self, texts: list[str], names: list[str]) -> None:
        """A new file, text column or label set: learning starts again from its labels."""
        self.queue = None
        self.status.clear()
        if texts and len(names) >= 2:
            self.learning.set_file(texts, names)

    def label_given(self) -> None:
        self.learning.request()

    def run_done(self) -> None:
        """The model's scores changed: the weights are fitted again on them."""
        self.learning.request()

    def show_queue(self, on: bool) -> None:
        """Next to label: the tickets a label would teach most, best first."""
        self.queue_shown = on
        if on and self.queue is None:
            self.learning.request()      # with no labels yet, the queue is the model's least sure
        self.proxy.set_next_to_label(self.queue if on else None)

    def offer_column(self, column: str, values: list, parent) -> tuple[list[str], dict[int, str]] | None:
        """Ask whether a column's values become the label set and its filled rows the person's labels;
        (names, {row: label}) when the person says yes."""
        dialog = LabelOfferDialog(column, values, parent)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        offer = dialog.offer()
        if len(offer.names) < 2:
            self.failed.emit(f"“{column}” gives fewer than two labels: nothing was changed.")
            return None
        self.message.emit(offer.line())
        return offer.names, offer.labels

    @staticmethod
    def worth_offering(values: list) -> bool:
        """A column of a few repeated values, filled on some rows: a helpdesk's queue half filled in."""
        found = column_values(values)
        return len(found) <= 50 and len(proposed(found)) >= 2      # the dialog would propose two labels

    def close(self, timeout_ms: int) -> bool:
        return self.learning.close(timeout_ms)

    def _retrained(self, result) -> None:
        if self.model.apply_learned(result.learned):
            self.status.setText(result.status())
            self.queue = result.queue
            if self.queue_shown:
                self.proxy.set_next_to_label(self.queue)
            advice = result.learned.skip_advice()
            if advice.offer:
                self.message.emit(f"Your labels alone now do as well as with the model ({advice.reason}).")
            self.changed.emit()

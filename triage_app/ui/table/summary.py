"""What follows from the table: the counts under it and the accuracy tab, refreshed at most a few
times a second however fast batches arrive, and never for more than a tenth of the UI thread's time
(on a big file one refresh is not cheap)."""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, QTimer

from triage_app.learn.none_of_these import NONE_OF_THESE
from triage_app.quality.metrics import evaluate

REFRESH_MS = 250        # counts and accuracy follow the table at most this often


class TableSummary(QObject):
    def __init__(self, tickets, accuracy_panel, parent=None):
        """tickets: the TicketPane (its counts, model and gold column); accuracy_panel: the AccuracyPanel."""
        super().__init__(parent)
        self.tickets, self.accuracy_panel = tickets, accuracy_panel
        self._throttle = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._throttle.timeout.connect(self.refresh)

    def schedule(self, *_) -> None:
        """Something in the table changed: refresh once the throttle allows."""
        if not self._throttle.isActive():
            self._throttle.start()

    def refresh(self) -> None:
        started = time.perf_counter()
        self.tickets.show_counts()
        model, gold = self.tickets.model, self.tickets.columns.gold_column
        if gold is None:        # also before a file is open: the gold column is picked from its columns
            self.accuracy_panel.show_scores(None, None)
        else:
            self.accuracy_panel.show_scores(self._scores(model, gold), gold)
        cost_ms = 1000 * (time.perf_counter() - started)
        self._throttle.setInterval(max(REFRESH_MS, int(10 * cost_ms)))

    @staticmethod
    def _scores(model, gold: str):
        """The accuracy on the rows with an answer, the only ones evaluate counts: a file just opened has
        none, and walking every row of a big one in Python held the UI thread (docs/files.md)."""
        state = model.state
        rows = state.answered_rows()                                                    # [R]
        confidences = state.confidence_column[rows]
        # "none of these" is an answer of no label: a column of its own, wrong wherever the gold names a label
        names = model.label_names + ([NONE_OF_THESE] if state.none_of_these is not None else [])
        return evaluate(model.frame[gold].to_numpy()[rows].tolist(), state.label_column[rows].tolist(),
                        names, np.where(np.isnan(confidences), None, confidences).tolist())

"""A run as it happens: progress and ETA, the engine's numbers, throughput over time, and what
Verify found (the fast path against the reference loop)."""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QProgressBar, QToolButton,
                               QVBoxLayout)

from triage_app.ui.words import duration
from triage_app.ui.panels.wrapped import show_wrapped

_STATS = (
    ("items_per_s", "Tickets/s", "how many tickets a second, over the run so far"),
    ("tokens_per_s", "Tokens/s", "tokens the model processed a second, padding included"),
    ("padding", "Padding", "share of processed tokens that were padding"),
    ("inflation", "Without buckets", "how many times the tokens padding every batch to the longest "
                                     "ticket would have cost"),
    ("prefix", "Prefix reused", "tokens of the static prompt prefix not recomputed"),
    ("resumed", "From earlier runs", "rows answered from the results store"),
    ("rescored", "Re-scored in float32", "a checked low precision (bfloat16-checked): the share of its answers "
                                         "whose margin was too narrow to trust, scored again in float32"),
)
_TIPS = {key: tip for key, _, tip in _STATS}
EVERY_TICKET, LABELS_FIRST = 0, 1       # how a run answers: the method picker's entries
METHODS = ("The model reads every ticket", "My labels first, the model for the unsure")


class RunPanel(QGroupBox):
    def __init__(self, actions=(), parent=None):
        """actions: the window's (Run, Cancel, Verify, Export), as buttons above the progress bar."""
        super().__init__("Run", parent)
        layout = QVBoxLayout(self)
        buttons = QHBoxLayout()
        for action in actions:
            button = QToolButton()
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        how = QHBoxLayout()
        how.addWidget(QLabel("Answer:"))
        self.method = QComboBox()
        self.method.addItems(METHODS)
        self.method.setItemData(LABELS_FIRST, "Every ticket is answered from your labels (and the encoder's "
                                "similarity to each label); only those they leave unsure, and the ones you "
                                "labelled, are read by the language model. Not the model's answers: a way "
                                "of answering of its own.", Qt.ItemDataRole.ToolTipRole)
        how.addWidget(self.method, 1)
        layout.addLayout(how)
        self.method_note = QLabel()          # why labels first cannot be chosen yet, or what it did
        self.method_note.setWordWrap(True)
        self.method_note.setTextFormat(Qt.TextFormat.PlainText)
        self.method_note.setStyleSheet("color: #555;")
        self.method_note.hide()
        self._why_not_shown = False
        layout.addWidget(self.method_note)
        self.bar = QProgressBar()
        self.bar.setFormat("No run yet")
        self.bar.setValue(0)
        layout.addWidget(self.bar)
        grid = QGridLayout()
        self.values: dict[str, QLabel] = {}
        self.titles: dict[str, QLabel] = {}
        for k, (key, title, tip) in enumerate(_STATS):
            name = QLabel(title + ":")
            name.setToolTip(tip)
            value = QLabel("–")
            value.setToolTip(tip)
            value.setTextFormat(Qt.TextFormat.PlainText)
            # wrapped, a longer number takes a second line: unwrapped, it widened the whole column mid-run
            value.setWordWrap(True)
            grid.addWidget(name, k // 2, (k % 2) * 2)
            grid.addWidget(value, k // 2, (k % 2) * 2 + 1)
            self.values[key], self.titles[key] = value, name
        self._show_rescored(None)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        layout.addLayout(grid)
        self.chart = pg.PlotWidget(background="w")
        self.chart.setMinimumHeight(130)
        self.chart.setMaximumHeight(170)
        self.chart.setLabel("left", "tickets/s")
        # rates are read as they are: no "(x0.001)" scaling, and never below zero; the title names the
        # unit, so the axis's own name, which long tick numbers overlap, is not shown
        self.chart.getAxis("left").enableAutoSIPrefix(False)
        self.chart.getAxis("left").showLabel(False)
        self.chart.setLimits(yMin=0)
        self.chart.setLabel("bottom", "seconds")
        self.chart.showGrid(x=True, y=True, alpha=0.3)
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.hideButtons()
        self.chart.setTitle("<span style='font-size:8pt; color:#444'>tickets/s: each batch (dots), "
                            "the run so far (line)</span>")
        self.batch_curve = self.chart.plot([], [], pen=pg.mkPen("#9ab", width=1), symbol="o", symbolSize=4,
                                           symbolBrush="#9ab", name="per batch")
        self.mean_curve = self.chart.plot([], [], pen=pg.mkPen("#1f6fb2", width=2))
        layout.addWidget(self.chart)
        self.verify_result = QLabel()
        self.verify_result.setWordWrap(True)
        self.verify_result.hide()
        layout.addWidget(self.verify_result)
        self._points: list[tuple[float, float, float]] = []
        self._first = self._last = (0.0, 0)    # (seconds, tickets done) at the first and the latest batch

    @property
    def labels_first(self) -> bool:
        """The person chose to answer from their labels first."""
        return self.method.currentIndex() == LABELS_FIRST

    def offer_labels_first(self, why_not: str) -> None:
        """Labels first may be chosen ("") or not yet, and why: said under the picker, and the picker goes
        back to every ticket."""
        self.method.model().item(LABELS_FIRST).setEnabled(not why_not)
        if why_not and self.labels_first:
            self.method.setCurrentIndex(EVERY_TICKET)
        if why_not or self._why_not_shown:      # what a labels-first run did stays until there is a why-not
            show_wrapped(self.method_note, f"Labels first: {why_not}" if why_not else "")
        self._why_not_shown = bool(why_not)

    def show_labels_first(self, line: str, short: str) -> None:
        """A labels-first run ended: how many tickets the model read (short: on the bar), and why (line)."""
        self.bar.setValue(self.bar.maximum())     # its last part counted the unsure alone: the run is whole
        self.bar.setFormat(short)
        show_wrapped(self.method_note, line)
        self._why_not_shown = False

    def forget_labels_first(self) -> None:
        """What a labels-first run read is gone (its field's labels were edited): its line goes too."""
        if not self._why_not_shown:
            show_wrapped(self.method_note, "")

    def start(self, rows_total: int) -> None:
        self.verify_result.hide()
        self._points.clear()
        self._first = self._last = (0.0, 0)
        self.batch_curve.setData([], [])
        self.mean_curve.setData([], [])
        self.bar.setRange(0, max(rows_total, 1))
        self.bar.setValue(0)
        self.bar.setFormat("Starting…")
        for value in self.values.values():
            value.setText("–")
        self._show_rescored(None)

    def clear(self) -> None:
        """Nothing run yet on these rows (another file or text column)."""
        self.start(0)
        self.bar.setFormat("No run yet")

    def update_progress(self, progress) -> None:
        """progress: a worker RunProgress (rows over the whole file, stats over the rows classified)."""
        stats = progress.stats
        self.bar.setRange(0, max(progress.rows_total, 1))
        self.bar.setValue(progress.rows_done)
        self._add_point(stats)
        eta = self._eta(progress.rows_total - progress.rows_done)
        eta_text = f" — about {duration(eta)} left" if eta else ""
        self.bar.setFormat(f"{progress.rows_done:,} / {progress.rows_total:,}{eta_text}")
        self.values["items_per_s"].setText(f"{stats.items_per_s:.1f}")
        self.values["tokens_per_s"].setText(f"{stats.tokens_per_s:,.0f}")
        self.values["padding"].setText(f"{100 * stats.padding_fraction:.1f}% of tokens")
        self.values["inflation"].setText(f"{stats.global_padding_inflation:.2f}× the tokens")
        self.values["prefix"].setText(f"{stats.prefix_tokens_saved:,} ({stats.prefix_tokens} a ticket)")
        self.values["resumed"].setText(f"{progress.resumed:,} rows")
        self._show_rescored(stats)

    def _eta(self, rows_left: int) -> float | None:
        """Seconds left at the pace since the first batch; None before a second one. The first carries
        the model's warm-up and the prompt's cache: from it alone, a 30-second run read as 16 minutes."""
        if len(self._points) < 2 or rows_left <= 0:
            return None
        (first_seconds, first_done), (seconds, done) = self._first, self._last
        return rows_left * (seconds - first_seconds) / (done - first_done)

    def _show_rescored(self, stats) -> None:
        """The re-scored share, shown for a checked run only (its stats carry one: engine/checked.py)."""
        checked = hasattr(stats, "rescored_share")
        self.titles["rescored"].setVisible(checked)
        self.values["rescored"].setVisible(checked)
        if not checked:
            return
        tried = stats.accepted + stats.rescored
        if tried:
            text = f"{100 * stats.rescored_share:.0f}% of {tried:,} answers"
        else:   # the decision comes after the probes; a float32 decision sends nothing back
            text = "none: the run is float32" if stats.check else "probing…"
        self.values["rescored"].setText(text)
        self.values["rescored"].setToolTip(stats.check or _TIPS["rescored"])

    def finish(self, text: str) -> None:
        self.bar.setFormat(f"{self.bar.value():,} / {self.bar.maximum():,} — {text}")

    def show_end(self, how: str, rows_answered: int) -> str:
        """how: "done", "cancelled" or "failed"; returns the line the status bar says it in ("" for failed:
        the failure's own message says it)."""
        if how == "done":
            self.finish("done")
            return f"Done: {rows_answered:,} rows answered."
        if how == "cancelled":
            self.finish(f"cancelled; {rows_answered:,} labeled rows kept")
            return f"Cancelled: the {rows_answered:,} rows labeled so far are kept."
        self.finish("stopped")
        return ""

    def show_verifying(self, probes: int) -> None:
        self._show_verify(f"Verifying {probes} tickets against the reference loop…", "")

    def show_verify_progress(self, progress) -> None:
        """progress: the engine's VerifyProgress; the bar counts the reference loop's model passes, whose
        number is known before the first: a verify of many labels is minutes of them."""
        self.bar.setRange(0, max(progress.passes, 1))
        self.bar.setValue(progress.passes_done)
        eta = progress.eta_seconds
        left = f" — about {duration(eta)} left" if eta else ""
        self.bar.setFormat(f"Verify: {progress.probes_done} of {progress.probes} tickets, "
                           f"{progress.passes_done:,} / {progress.passes:,} model passes{left}")
        self._show_verify(f"Verifying {progress.probes} tickets against the reference loop: {progress.passes:,} "
                          f"passes of the model over the whole prompt, up to one per label for each…", "")

    def verify_failed(self) -> None:
        """A verify that failed or never started (the message bar says why): nothing says it goes on."""
        self.verify_result.hide()
        if self.bar.format().startswith("Verify:"):
            self.bar.setFormat("Verify stopped")

    def show_verify(self, report) -> str:
        """report: the engine's VerifyReport, with up to five disagreements; returns its headline."""
        lines = [html.escape(report.summary())]     # label names come from the person or a file: plain
        for d in report.disagreements[:5]:
            kind = "near-tie" if d.near_tie else "DISAGREES"
            lines.append(html.escape(f"row {d.index + 1}: reference {d.reference}, fast path {d.fast} ({kind})"))
        if report.stopped:
            self.bar.setFormat(f"Verify stopped: {report.probes} of {report.planned} tickets checked")
        if report.ok:
            head, style = "✔ The fast path agrees with the reference loop.", "color: #14622b;"
            if report.stopped:
                head = f"■ Stopped: on the {report.probes} tickets checked, the fast path agrees with the reference loop."
        else:
            head = f"✘ The fast path DISAGREES with the reference loop on {len(report.failures)} ticket(s)."
            style = "color: #a00; font-weight: bold;"
        self._show_verify("<br>".join([head] + lines), style)
        return head

    def _show_verify(self, text: str, style: str) -> None:
        self.verify_result.setText(text)
        self.verify_result.setStyleSheet(style)
        self.verify_result.show()

    def _add_point(self, stats) -> None:
        seconds, done = stats.seconds, stats.done
        last_seconds, last_done = self._last
        if seconds <= last_seconds or done <= last_done:
            return
        self._points.append((seconds, (done - last_done) / (seconds - last_seconds), stats.items_per_s))
        self._last = (seconds, done)
        if len(self._points) == 1:
            self._first = (seconds, done)
        xs = [p[0] for p in self._points]
        self.batch_curve.setData(xs, [p[1] for p in self._points])
        self.mean_curve.setData(xs, [p[2] for p in self._points])
        # one point alone gets an axis of its own making (-200..400 around it): from zero to above it
        self.chart.setXRange(0, 1.05 * xs[-1], padding=0)
        self.chart.setYRange(0, 1.15 * max(max(p[1], p[2]) for p in self._points), padding=0)

    @property
    def points(self) -> list[tuple[float, float, float]]:
        """(seconds, tickets/s of the batch, tickets/s so far) for every batch charted."""
        return list(self._points)

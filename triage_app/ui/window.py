"""The main window: open a file, label it, review, export. Every slow step runs off the UI thread."""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QHBoxLayout, QLabel, QLineEdit, QMainWindow,
                               QMessageBox, QPushButton, QScrollArea, QSplitter, QTabWidget, QToolButton,
                               QVBoxLayout, QWidget)

from triage_app.engine import models
from triage_app.engine.labels import Example, LabelSet
from triage_app.files.clean import clean
from triage_app.files.reader import TicketTable
from triage_app.files.store import ResultStore
from triage_app.quality.metrics import evaluate
from triage_app.ui.accuracy_panel import AccuracyPanel
from triage_app.ui.column_picker import ColumnPicker
from triage_app.ui.file_reader import FileReader, OpenedFile
from triage_app.ui.labels_panel import LabelsPanel
from triage_app.ui.model_panel import ModelPanel
from triage_app.ui.prompt_preview import PromptPreview
from triage_app.ui.results_db import STORE_ERRORS, open_store, set_aside, store_file, store_line
from triage_app.ui.run_panel import RunPanel
from triage_app.ui.settings import Remembered, SettingsDialog, open_settings
from triage_app.ui.ticket_model import CONFIDENCE, LABEL, MARGIN, TicketFilterProxy, TicketTableModel
from triage_app.ui.ticket_view import TicketView
from triage_app.ui.worker import EngineThread

# measured with `triage-app eval --compare` and scripts/experiments/confident_examples.py (README)
CORRECTIONS_WARNING = (
    "With channel scoring (the default), corrected tickets made poor examples when measured: "
    "accuracy on the rest of the sample fell from 84% to 62%, on a helpdesk set from 58% to 54%. The "
    "tickets a model gets wrong are the ambiguous ones, and as a label's example one of them pulls "
    "unrelated tickets to that label.\n\n"
    "What helped on the sample: two ordinary tickets of each label, picked at random (Use as example "
    "of), 83% to 90%. Or switch to direct scoring (Model > Settings), where corrections helped (57% to 63%).\n\n"
    "Add them anyway?")

FILE_FILTER = "Ticket files (*.csv *.tsv *.txt *.xlsx *.xlsm *.json *.jsonl);;All files (*)"
EXPORT_FILTERS = {"csv": "CSV (*.csv)", "xlsx": "Excel workbook (*.xlsx)", "json": "JSON (*.json)"}
ALL_LABELS = "all labels"
REFRESH_MS = 250        # counts and accuracy follow the table at most this often
CLOSE_WAIT_MS = 10_000   # how long closing waits for the batch in flight before the window goes anyway


class MainWindow(QMainWindow):
    file_loaded = Signal(object)    # TicketTable, once it is in the table
    run_ended = Signal(str)         # "done", "cancelled" or "failed", once the window shows it
    error_shown = Signal(str)

    def __init__(self, settings: QSettings | None = None, store_path=None, autoload: bool = True):
        super().__init__()
        self.settings = settings or open_settings()
        self.remembered = Remembered.load(self.settings)
        self.store_path = store_path
        self._store = None
        self.store_problem: str | None = None   # the database's one line while it is unavailable
        self.table: TicketTable | None = None
        self._texts: list[str] = []
        self._read_request = 0
        # what the rows mean: changes with every new file or text column, so that a batch of a run
        # started before (it may already be on its way) never lands on rows that are now other tickets
        self._generation = 0
        self._run_generation = -1
        self._run_id = 0
        self.close_wait_ms = CLOSE_WAIT_MS
        self._run_label_set: LabelSet | None = None
        self._run_request: dict = {}           # run()'s arguments, to start it again on another model
        self._waiting_run: dict | None = None  # a run that did not start for want of a model
        self.running = False
        self.model_info = None
        self.model_loading = False
        self.last_verify = None
        self.label_set = self._remembered_label_set()

        self.engine = EngineThread(store_path)
        self.worker = self.engine.worker
        self.reader = FileReader()
        self.reader.read.connect(self._file_read)
        self.reader.failed.connect(self._file_failed)

        self._build()
        self._connect_worker()
        self._throttle = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._throttle.timeout.connect(self._refresh_derived)
        self.setAcceptDrops(True)
        self.setWindowTitle("Triage")
        self.resize(1440, 880)
        if self.remembered.geometry:
            self.restoreGeometry(self.remembered.geometry)
        if self.remembered.splitter:
            self.splitter.restoreState(self.remembered.splitter)
        self._start_on_a_local_model()
        if autoload and self.remembered.model_loaded_before:
            self.load_model()

    # layout
    def _build(self) -> None:
        self._build_actions()
        self.model = TicketTableModel(parent=self)
        self.model.set_label_names(self.label_set.names)
        self.model.manual_changed.connect(self._manual_changed)
        self.proxy = TicketFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = TicketView()
        self.view.setModel(self.proxy)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.proxy.rowsInserted.connect(self._schedule_refresh)
        self.proxy.rowsRemoved.connect(self._schedule_refresh)
        self.proxy.modelReset.connect(self._schedule_refresh)

        self.columns = ColumnPicker()
        self.columns.texts_changed.connect(self._texts_changed)
        self.columns.gold_changed.connect(self._schedule_refresh)
        self.label_filter = QComboBox()
        self.label_filter.currentTextChanged.connect(
            lambda text: self.proxy.set_label_filter(None if text == ALL_LABELS else text))
        self.search = QLineEdit(placeholderText="Search the tickets…", clearButtonEnabled=True)
        self.search.textChanged.connect(self.proxy.set_search)
        self.review_button = QPushButton("Review queue")
        self.review_button.setCheckable(True)
        self.review_button.setToolTip("Rows nobody has checked, least certain (smallest margin) first. "
                                      "Type 1–9 to label the selected row with the n-th label, 0 to undo.")
        self.review_button.toggled.connect(self.set_review_queue)
        self.counts = QLabel()
        filters = QHBoxLayout()
        self.show_label = QLabel("Show:")
        filters.addWidget(self.show_label)
        filters.addWidget(self.label_filter)
        filters.addWidget(self.search, 1)
        filters.addWidget(self.review_button)
        self.keys_hint = QLabel()
        self.keys_hint.setStyleSheet("color: #555;")
        self.keys_hint.setWordWrap(True)

        self.banner = QFrame()
        self.banner.setStyleSheet("QFrame { background: #fde2e1; border: 1px solid #e0a3a0; border-radius: 4px; }"
                                  "QLabel { border: none; color: #7a1712; }")
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(8, 4, 4, 4)
        self.banner_text = QLabel()
        self.banner_text.setWordWrap(True)
        self.banner_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fresh_store_button = QPushButton("Use a fresh database")
        self.fresh_store_button.setToolTip("Move the results database that cannot be used aside (it is kept, "
                                           "renamed) and start an empty one. Until then nothing is saved.")
        self.fresh_store_button.clicked.connect(self.use_fresh_store)
        self.fresh_store_button.hide()
        # offered where a Hugging Face model is not on this machine and cannot be fetched now
        self.bundled_button = QPushButton("Use the bundled model now")
        self.bundled_button.setToolTip("Load SmolLM2-135M, which comes with the app and needs no connection; "
                                       "a run that was waiting starts on it.")
        self.bundled_button.clicked.connect(self.use_bundled_model)
        self.later_button = QPushButton("Download later")
        self.later_button.setToolTip("Keep working; Load the model again once there is a connection.")
        self.later_button.clicked.connect(self._download_later)
        close = QToolButton(text="✕", autoRaise=True)
        close.clicked.connect(self.banner.hide)
        banner_layout.addWidget(self.banner_text, 1)
        banner_layout.addWidget(self.fresh_store_button)
        banner_layout.addWidget(self.bundled_button)
        banner_layout.addWidget(self.later_button)
        self._show_model_offer(False)
        banner_layout.addWidget(close)
        self.banner.hide()

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(6, 6, 0, 6)
        left_layout.addWidget(self.banner)
        left_layout.addWidget(self.columns)
        self.statusBar().addPermanentWidget(self.counts)
        left_layout.addLayout(filters)
        left_layout.addWidget(self.view, 1)
        left_layout.addWidget(self.keys_hint)
        self.empty_hint = QLabel("Drop a ticket file (CSV, TSV, XLSX, JSON, JSONL) anywhere on this window, "
                                 "or press Ctrl+O.")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setStyleSheet("color: #666; font-size: 15px; padding: 24px;")
        left_layout.addWidget(self.empty_hint)

        self.model_panel = ModelPanel()
        self.model_panel.load_requested.connect(
            lambda spec: self.load_model(spec, remember=self.model_panel.picked_by_user))
        self.run_panel = RunPanel()
        run_buttons = QHBoxLayout()
        for action in (self.run_action, self.cancel_action, self.verify_action, self.export_action):
            button = QToolButton()
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            run_buttons.addWidget(button)
        run_buttons.addStretch(1)
        self.verify_result = QLabel()
        self.verify_result.setWordWrap(True)
        self.verify_result.hide()
        self.run_panel.layout().insertLayout(0, run_buttons)
        self.run_panel.layout().addWidget(self.verify_result)
        self.labels_panel = LabelsPanel(self.label_set)
        self.labels_panel.changed.connect(self._labels_changed)
        self.labels_panel.preview_requested.connect(self.show_prompt)
        self.labels_panel.example_requested.connect(self._use_as_example)
        self.labels_panel.message.connect(self._panel_message)
        self.accuracy_panel = AccuracyPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.labels_panel, "Labels")
        self.tabs.addTab(self.accuracy_panel, "Accuracy")
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 6, 6, 6)
        right_layout.addWidget(self.model_panel)
        right_layout.addWidget(self.run_panel)
        right_layout.addWidget(self.tabs, 1)

        # a small screen scrolls the side panels instead of forcing a big window
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(right)
        right.setMinimumHeight(700)
        scroll.setMinimumWidth(460)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.splitter = QSplitter()
        self.splitter.addWidget(left)
        self.splitter.addWidget(scroll)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([900, 520])
        self.setCentralWidget(self.splitter)
        self.prompt_preview = PromptPreview(self)
        self._show_table(False)
        self._refill_label_filter()
        self._update_actions()

    def _build_actions(self) -> None:
        def action(text, slot, shortcut=None, tip=None):
            a = QAction(text, self)
            if shortcut:
                a.setShortcut(QKeySequence(shortcut))
            if tip:
                a.setToolTip(tip)
            a.triggered.connect(lambda *_: slot())
            return a

        self.open_action = action("Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.export_action = action("Export…", self.export_dialog, "Ctrl+E", "CSV, XLSX or JSON: every column "
                                    "and row of the file, plus the labels")
        self.quit_action = action("Quit", self.close, QKeySequence.StandardKey.Quit)
        self.run_action = action("Run", self.run, "Ctrl+R", "Label every ticket (Ctrl+R)")
        self.cancel_action = action("Cancel", self.cancel, "Esc", "Stop after the current batch; finished rows "
                                    "are kept (Esc)")
        self.verify_action = action("Verify", self.verify, None, "Check the fast path against the slow "
                                    "reference loop on a spread of tickets")
        self.load_action = action("Load model", lambda: self.load_model(), None)
        self.settings_action = action("Settings…", self.settings_dialog, None)
        self.prompt_action = action("Show prompt…", self.show_prompt, "Ctrl+P")
        self.promote_action = action("Add my corrections as examples", self.promote_corrections, None,
                                     "Every ticket you labeled by hand becomes a few-shot example")
        menus = self.menuBar()
        for title, actions in (("&File", (self.open_action, self.export_action, None, self.quit_action)),
                               ("&Run", (self.run_action, self.cancel_action, None, self.verify_action)),
                               ("&Labels", (self.promote_action, self.prompt_action)),
                               ("&Model", (self.load_action, None, self.settings_action))):
            menu = menus.addMenu(title)
            for a in actions:
                menu.addSeparator() if a is None else menu.addAction(a)

    def _connect_worker(self) -> None:
        w = self.worker
        w.model_loading.connect(self._model_loading)
        w.model_loaded.connect(self._model_loaded)
        w.model_failed.connect(self._model_failed)
        w.model_not_downloaded.connect(self._model_not_downloaded)
        w.started.connect(self._run_started)
        w.batch_done.connect(self._batch_done)
        w.progress.connect(self._progress)
        # bound methods of this window, never lambdas: a lambda would run on the worker's thread
        w.finished.connect(self._run_finished)
        w.cancelled.connect(self._run_cancelled)
        w.failed.connect(self._worker_failed)
        w.verify_done.connect(self._verify_done)
        w.prompt_ready.connect(self.prompt_preview.show_prompt)
        w.store_unavailable.connect(self._store_unavailable)

    # opening
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open tickets", self.remembered.last_folder, FILE_FILTER)
        if path:
            self.open_file(path)

    def open_file(self, path: str | Path) -> None:
        """Read in the background; the table fills when the file has been read."""
        if self.running:
            self.cancel()
        self._read_request += 1
        self.statusBar().showMessage(f"Reading {Path(path).name}…")
        self.reader.start(self._read_request, str(path), self.label_set.fingerprint, self.store_path,
                          use_store=self.store_problem is None)

    def _file_read(self, request: int, opened: OpenedFile) -> None:
        if request != self._read_request:
            return
        self._clear_error()
        self._generation += 1
        table = self.table = opened.table
        self.remembered.last_folder = str(Path(table.path).resolve().parent)
        self.columns.set_columns(table.columns, opened.text_column, opened.subject_column, opened.gold_column)
        self.model.set_frame(table.frame)
        self._texts = opened.texts
        self.model.set_manual_labels(opened.manual)
        self._show_table(True)
        self._size_columns()
        self.statusBar().showMessage(f"{table.path.name}: {len(table.frame):,} tickets", 10_000)
        if opened.notes:
            self.show_error(" ".join(opened.notes))
        if opened.store_error:
            self._store_unavailable(opened.store_error)
        self.setWindowTitle(f"Triage — {table.path.name}")
        self._update_actions()
        self._schedule_refresh()
        self.file_loaded.emit(table)

    def _file_failed(self, request: int, message: str) -> None:
        if request == self._read_request:
            self.show_error(message)

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event) -> None:
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.open_file(files[0])

    def _texts_changed(self) -> None:
        if self.table is None:
            return
        if self.running:
            self.cancel()
        self._generation += 1
        self._texts = self._current_texts()
        self.model.clear_predictions()
        self._load_manual_labels()
        self.statusBar().showMessage("The ticket text changed: Run to label it.", 8000)
        self._schedule_refresh()

    def _current_texts(self) -> list[str]:
        if self.table is None or not self.columns.text_column:
            return []
        return self.table.texts(self.columns.text_column, self.columns.subject_column)

    @property
    def texts(self) -> list[str]:
        return list(self._texts)

    # the model
    def _start_on_a_local_model(self) -> None:
        """Start on the remembered model if it is here, else on the bundled one: a first run works
        offline. The remembered choice stays the user's, so it is used once it is in the cache."""
        wanted = self.remembered.model
        start = models.first_available([wanted])
        self.model_panel.set_spec(start)
        if not models.is_local(wanted):
            self.model_panel.mark_not_downloaded(wanted)
        if start != wanted:
            self.model_panel.show_note(f"{_model_name(wanted)} is not on {models._THIS_MACHINE} yet: "
                                       f"starting on the bundled SmolLM2-135M.")

    def load_model(self, spec: str | None = None, remember: bool = True) -> None:
        """remember: the spec becomes the model to start on next time (an explicit pick, not a stand-in)."""
        if spec is None:
            spec, remember = self.model_panel.spec, False
        self.model_panel.set_spec(spec)
        if remember:
            self.remembered.model = spec
        self.model_loading = True
        self._update_actions()
        r = self.remembered
        self.worker.load_model(spec, r.device, r.dtype, r.allow_download, r.method)

    def use_model(self, loaded) -> None:
        """Adopt an already loaded engine model (tests, and callers that loaded one themselves)."""
        self.model_loading = True
        self.worker.use_model(loaded)

    def _model_loading(self, spec: str) -> None:
        self.model_loading = True
        self.model_panel.show_loading(spec)
        self._update_actions()

    def _model_loaded(self, info) -> None:
        self.model_loading = False
        self.model_info = info
        self.remembered.model_loaded_before = True
        self.model_panel.show_loaded(info)
        self.statusBar().showMessage(f"Model ready: {info.name}", 8000)
        self._update_actions()

    def _model_failed(self, message: str) -> None:
        self._load_failed(message)
        self.show_error(f"The model could not be loaded: {message}")

    def _model_not_downloaded(self, failure) -> None:
        """A Hub model not on this machine and not fetchable now: say why, and offer the bundled one."""
        self._load_failed(str(failure))
        self.model_panel.mark_not_downloaded(failure.spec)
        self.show_error(str(failure), offer_bundled=True)

    def _load_failed(self, message: str) -> None:
        self.model_loading = False
        self.model_info = None
        self.remembered.model_loaded_before = False
        self.model_panel.show_failed(message)
        if self.running:   # the run queued behind this load never starts: say so, not "cancelled"
            self.worker.cancel()
            self._waiting_run = dict(self._run_request)
            self.running = False
            self.run_panel.finish("did not start: no model loaded")
            self.statusBar().showMessage("The run did not start: no model is loaded.", 10_000)
            self.run_ended.emit("failed")
        self._update_actions()

    def use_bundled_model(self) -> None:
        """Load the bundled model now (not remembered as the user's choice); a waiting run starts on it."""
        waiting, self._waiting_run = self._waiting_run, None
        self._clear_error()
        self.load_model(models.SMOLLM2, remember=False)
        if waiting is not None and self.table is not None:
            self.run(**waiting)

    def _download_later(self) -> None:
        self._waiting_run = None
        self._clear_error()

    def settings_dialog(self) -> None:
        detected = f"{self.model_info.device}, {self.model_info.dtype} — {self.model_info.reason}" \
            if self.model_info else ""
        dialog = SettingsDialog(self.remembered, detected, self)
        if dialog.exec():
            if dialog.apply_to(self.remembered) and self.model_info is not None:
                self.load_model(self.model_info.spec, remember=False)   # the same model, placed anew
            self._save_settings()

    # running
    def run(self, fresh: bool = False, limit: int | None = None) -> int | None:
        """Label every ticket (or the first limit); returns the run id the worker's signals carry."""
        if self.table is None:
            self.show_error("Open a ticket file first (drop it on the window, or Ctrl+O).")
            return None
        if self.running:
            return None
        if not self._texts:
            self.show_error("Choose the column that holds the ticket text.")
            return None
        self._clear_error()
        if self.model_info is None and not self.model_loading:
            self.load_model()
        config = {"batch_size": self.remembered.batch_size, "token_budget": self.remembered.token_budget,
                  "method": self.remembered.method}
        self.running = True
        self._run_request = {"fresh": fresh, "limit": limit}
        self._waiting_run = None
        self._run_label_set = self.label_set
        self._run_generation = self._generation
        texts = self._texts[:limit] if limit else self._texts
        self._run_id = self.worker.run(texts, self.label_set, config, fresh, self.remembered.cleaning)
        self.run_panel.start(len(texts))
        self.verify_result.hide()
        self.statusBar().showMessage("Running…")
        self._update_actions()
        return self._run_id

    def cancel(self) -> None:
        if self.running:
            self.worker.cancel()
            self.run_panel.finish("cancelling after this batch…")
            self.statusBar().showMessage("Cancelling after the current batch…")

    def _run_started(self, run_id: int) -> None:
        if run_id == self._run_id:
            self.statusBar().showMessage("Running…")

    def _on_these_rows(self, run_id: int) -> bool:
        """The run is the latest and its rows are still the table's: same file, same text column, same labels."""
        return (run_id == self._run_id and self._run_generation == self._generation
                and self._run_label_set.names == self.model.label_names)

    def _batch_done(self, batch) -> None:
        if self._on_these_rows(batch.run_id):
            self.model.apply_predictions(batch.predictions)
            self._schedule_refresh()

    def _progress(self, progress) -> None:
        if self._on_these_rows(progress.run_id):
            self.run_panel.update_progress(progress)

    def _run_finished(self, run_id: int) -> None:
        self._run_ended(run_id, "done")

    def _run_cancelled(self, run_id: int) -> None:
        self._run_ended(run_id, "cancelled")

    def _run_ended(self, run_id: int, how: str) -> None:
        if run_id != self._run_id or not self.running:   # not running: ended already (its model failed)
            return
        self.running = False
        done = self.model.rows_answered
        if how == "done":
            self.run_panel.finish("done")
            self.statusBar().showMessage(f"Done: {done:,} rows answered.", 10_000)
        else:
            self.run_panel.finish(f"cancelled; {done:,} labeled rows kept")
            self.statusBar().showMessage(f"Cancelled: the {done:,} rows labeled so far are kept.", 10_000)
        self._update_actions()
        self._refresh_derived()
        self.run_ended.emit(how)

    def _worker_failed(self, message: str) -> None:
        was_running, self.running = self.running, False
        if was_running:
            self.run_panel.finish("stopped")
        self.show_error(message)
        self._update_actions()
        if was_running:
            self.run_ended.emit("failed")

    # verify and the prompt
    def verify(self, probes: int = 16) -> None:
        if self.table is None:
            self.show_error("Open a ticket file first: verify checks a spread of its tickets.")
            return
        if self.model_info is None and not self.model_loading:
            self.load_model()
        self.verify_result.setText(f"Verifying {probes} tickets against the reference loop…")
        self.verify_result.setStyleSheet("")
        self.verify_result.show()
        self.worker.verify(self._texts, self.label_set, {"method": self.remembered.method}, probes)

    def _verify_done(self, report) -> None:
        self.last_verify = report
        lines = [report.summary()]
        for d in report.disagreements[:5]:
            kind = "near-tie" if d.near_tie else "DISAGREES"
            lines.append(f"row {d.index + 1}: reference {d.reference}, fast path {d.fast} ({kind})")
        if report.ok:
            head = "✔ The fast path agrees with the reference loop."
            style = "color: #14622b;"
        else:
            head = f"✘ The fast path DISAGREES with the reference loop on {len(report.failures)} ticket(s)."
            style = "color: #a00; font-weight: bold;"
        self.verify_result.setText("<br>".join([head] + lines))
        self.verify_result.setStyleSheet(style)
        self.verify_result.show()
        self.statusBar().showMessage(head, 10_000)

    def show_prompt(self) -> None:
        self.prompt_preview.show_waiting(self.model_info is not None or self.model_loading)
        if self.model_info is not None or self.model_loading:
            rows = self.view.selected_source_rows()
            # what the model reads: the ticket cleaned as a run would clean it
            ticket = clean(self._texts[rows[0]], self.remembered.cleaning) if rows and self._texts else ""
            self.worker.preview_prompt(self.label_set, ticket, self.remembered.method)
        self.prompt_preview.show()
        self.prompt_preview.raise_()

    # labels
    def _labels_changed(self, label_set: LabelSet) -> None:
        old, self.label_set = self.label_set, label_set
        self.remembered.label_set = json.dumps(label_set.to_dict(), ensure_ascii=False)
        if label_set.names != old.names:
            if self.running:
                self.cancel()
            self.model.set_label_names(label_set.names)
            self._load_manual_labels()
            self._refill_label_filter()
            self.statusBar().showMessage("Labels changed: Run to label the tickets with the new set.", 10_000)
        else:
            # same names: a person's labels still mean the same, so they follow the new prompt
            for row, label in self.model.manual_labels.items():
                self._store_manual(label_set.fingerprint, self._texts[row], label)
            if self.model.rows_answered:
                self.statusBar().showMessage("The prompt changed: Run again to update the labels.", 10_000)
        self._update_keys_hint()
        self._schedule_refresh()

    def promote_corrections(self) -> None:
        """Tickets a person labeled become few-shot examples (the prefix is encoded once more, then reused)."""
        known = {e.text for e in self.label_set.examples}
        texts = {row: str(self._texts[row]).strip() for row in self.model.manual_labels}
        new = tuple(Example(texts[row], label) for row, label in sorted(self.model.manual_labels.items())
                    if texts[row] and texts[row] not in known)
        if not new:
            self.show_error("No new corrections to add: label tickets by hand first (keys 1–9).")
            return
        risky = self.remembered.method == "channel"    # where corrections were measured to hurt
        if risky and not self._confirm("Add corrections as examples?", CORRECTIONS_WARNING):
            return
        self.labels_panel.set_label_set(self.label_set.with_examples(self.label_set.examples + new), announce=True)
        self.statusBar().showMessage(f"{len(new)} correction(s) added as examples: Run again to use them.", 10_000)

    def _confirm(self, title: str, text: str) -> bool:
        yes, no = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
        box = QMessageBox(QMessageBox.Icon.Question, title, text, yes | no, self)
        box.setDefaultButton(no)
        box.exec()
        return box.clickedButton() is box.button(yes)

    def _use_as_example(self, label: str) -> None:
        rows = self.view.selected_source_rows()
        if not rows:
            self.show_error("Select a ticket in the table first, then “Use as example of”.")
            return
        self.labels_panel.add_example(self._texts[rows[0]], label)

    def _selection_changed(self, *_) -> None:
        rows = self.view.selected_source_rows()
        if rows:
            self.labels_panel.suggest_example_label(self.model.label_of(rows[0]))

    def _manual_changed(self, row: int, label: str | None) -> None:
        self._store_manual(self.label_set.fingerprint, self._texts[row], label)
        self._schedule_refresh()

    def _load_manual_labels(self) -> None:
        store = self.store
        if not self._texts or store is None:     # without the store, the labels in the table are all there is
            return
        try:
            self.model.set_manual_labels(store.manual_labels(self.label_set.fingerprint, self._texts))
        except STORE_ERRORS as exc:
            self._store_unavailable(store_line(exc, self.store_path))

    def _store_manual(self, label_set_key: str, text: str, label: str | None) -> None:
        """A person's label into the database; while it is unavailable the label lives in the table only."""
        store = self.store
        if store is None:
            return
        try:
            store.set_manual(label_set_key, text, label)
        except STORE_ERRORS as exc:    # read-only, full, or broken since it opened
            self._store_unavailable(store_line(exc, self.store_path))

    @property
    def store(self) -> ResultStore | None:
        """The results database for a person's labels; None while it is unavailable."""
        if self._store is None and self.store_problem is None:
            try:
                self._store = open_store(self.store_path)
            except STORE_ERRORS as exc:
                self._store_unavailable(store_line(exc, self.store_path))
        return self._store

    def _store_unavailable(self, message: str) -> None:
        """Shown once; the window goes on without the database: no resume, labels kept in memory."""
        if self._store is not None:
            self._store.close()
            self._store = None
        first = self.store_problem is None
        self.store_problem = message
        self.fresh_store_button.show()
        if first:
            self.show_error(f"{message.rstrip('. ')}. The window goes on without it: nothing is resumed or "
                            f"saved until you use a fresh database.")

    def use_fresh_store(self) -> Path | None:
        """Move the unusable database aside (kept, renamed) and start an empty one; returns where it went."""
        if self._store is not None:
            self._store.close()
            self._store = None
        try:
            moved = set_aside(store_file(self.store_path))
        except OSError as exc:
            self.show_error(f"Cannot move {store_file(self.store_path)} aside: {exc.strerror or exc}")
            return None
        self.store_problem = None
        self.fresh_store_button.hide()
        self.banner.hide()
        self.worker.retry_store()
        if self.store is None:          # the new one failed too (a read-only folder): said already
            return None
        for row, label in self.model.manual_labels.items():   # what was labeled meanwhile is not lost
            self._store_manual(self.label_set.fingerprint, self._texts[row], label)
        where = f" (the old one is {moved})" if moved else ""
        self.statusBar().showMessage(f"Using a fresh results database{where}.", 15_000)
        return moved

    # review
    def set_review_queue(self, on: bool) -> None:
        if self.review_button.isChecked() != on:
            self.review_button.setChecked(on)     # comes back here through toggled
            return
        self.proxy.set_review_queue(on)
        if not on:
            self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        else:
            self.view.horizontalHeader().setSortIndicator(MARGIN, Qt.SortOrder.AscendingOrder)
            self.view.setFocus()
            if self.proxy.rowCount():
                self.view.selectRow(0)
        self._schedule_refresh()

    # export
    def export_dialog(self) -> None:
        if self.table is None:
            self.show_error("Nothing to export yet: open a ticket file first.")
            return
        suggested = str(Path(self.remembered.last_folder or ".") / f"{self.table.path.stem}-labeled.csv")
        path, chosen = QFileDialog.getSaveFileName(self, "Export results", suggested, ";;".join(EXPORT_FILTERS.values()))
        if path:
            fmt = next((f for f, text in EXPORT_FILTERS.items() if text == chosen), None)
            if Path(path).suffix.lower().lstrip(".") not in EXPORT_FILTERS and fmt:
                path = f"{path}.{fmt}"
            self.export_to(path)

    def export_to(self, path: str | Path) -> Path | None:
        from triage_app.files.export import export, results_frame

        if self.table is None:
            self.show_error("Nothing to export yet: open a ticket file first.")
            return None
        try:
            frame = results_frame(self.table.frame, self.model.predictions, self.model.label_names,
                                  self.model.manual_labels)
            written = export(frame, path)
        except (OSError, ValueError) as exc:
            self.show_error(f"Export failed: {_first_line(exc)}")
            return None
        except Exception as exc:   # a writer's own error on content nobody foresaw: the table stays, say why
            traceback.print_exception(exc, file=sys.stderr)
            self.show_error(f"Export failed: {type(exc).__name__}: {_first_line(exc)}")
            return None
        self.statusBar().showMessage(f"Exported {len(frame):,} rows to {written}", 10_000)
        return written

    # what follows from the table
    def _schedule_refresh(self, *_) -> None:
        if not self._throttle.isActive():
            self._throttle.start()

    def _refresh_derived(self) -> None:
        """Counts and accuracy: at most a few times a second, however fast batches arrive, and never
        more than a tenth of the UI thread's time (on a big file one refresh is not cheap)."""
        started = time.perf_counter()
        self._show_derived()
        cost_ms = 1000 * (time.perf_counter() - started)
        self._throttle.setInterval(max(REFRESH_MS, int(10 * cost_ms)))

    def _show_derived(self) -> None:
        total = self.model.rowCount()
        labeled, manual = self.model.rows_answered, len(self.model.manual_labels)
        self.counts.setText(f"{self.proxy.rowCount():,} shown of {total:,} · {labeled:,} answered · {manual:,} by you")
        gold = self.columns.gold_column
        if self.table is None or gold is None:
            self.accuracy_panel.show_scores(None, None)
        else:
            self.accuracy_panel.show_scores(evaluate(self.table.frame[gold].tolist(), self.model.predicted_labels,
                                                     self.model.label_names, self.model.confidences), gold)

    def _refill_label_filter(self) -> None:
        current = self.label_filter.currentText()
        self.label_filter.blockSignals(True)
        self.label_filter.clear()
        self.label_filter.addItems([ALL_LABELS] + self.label_set.names)
        self.label_filter.blockSignals(False)
        self.label_filter.setCurrentText(current if current in self.label_set.names else ALL_LABELS)
        self.proxy.set_label_filter(None if self.label_filter.currentText() == ALL_LABELS
                                    else self.label_filter.currentText())
        self._update_keys_hint()

    def _update_keys_hint(self) -> None:
        keys = "  ".join(f"<b>{k + 1}</b> {name}" for k, name in enumerate(self.label_set.names[:9]))
        self.keys_hint.setText(f"Label the selected row: {keys}  <b>0</b> back to the model's answer · "
                               f"double-click a label for a list · tinted rows: confidence below 0.7")

    def _update_actions(self) -> None:
        has_file = self.table is not None
        self.run_action.setEnabled(has_file and not self.running)
        self.cancel_action.setEnabled(self.running)
        self.verify_action.setEnabled(has_file and not self.running)
        self.export_action.setEnabled(has_file)
        self.load_action.setEnabled(not self.model_loading)

    def _show_table(self, shown: bool) -> None:
        for widget in (self.view, self.columns, self.show_label, self.search, self.label_filter, self.review_button, self.counts,
                       self.keys_hint):
            widget.setVisible(shown)
        self.empty_hint.setVisible(not shown)

    def _size_columns(self) -> None:
        self.view.setColumnWidth(LABEL, 120)
        self.view.setColumnWidth(CONFIDENCE, 86)
        self.view.setColumnWidth(MARGIN, 70)
        text = self.columns.text_column
        for k, name in enumerate(self.model.columns, start=3):
            self.view.setColumnWidth(k, 520 if name == text else 110)

    # messages
    def show_error(self, message: str, offer_bundled: bool = False) -> None:
        """A plain message above the table; the window keeps working. offer_bundled: with the buttons
        to use the bundled model now or download later."""
        self._show_model_offer(offer_bundled)
        self.banner_text.setText(message)
        self.banner.show()
        self.statusBar().showMessage(message, 15_000)
        self.error_shown.emit(message)

    def _clear_error(self) -> None:
        """A new file or run clears the last message, except that the database is unavailable: that
        line, and its way out, stay until the user takes it."""
        self._show_model_offer(False)
        if self.store_problem:
            self.banner_text.setText(self.store_problem)
        else:
            self.banner.hide()

    def _show_model_offer(self, shown: bool) -> None:
        self.bundled_button.setVisible(shown)
        self.later_button.setVisible(shown)

    def _panel_message(self, message: str) -> None:
        if message.startswith("Cannot"):
            self.show_error(message)
        else:
            self.statusBar().showMessage(message, 8000)

    # remembering
    def _remembered_label_set(self) -> LabelSet:
        if self.remembered.label_set:
            try:
                return LabelSet.from_dict(json.loads(self.remembered.label_set))
            except ValueError:
                pass
        return LabelSet.default()

    def _save_settings(self) -> None:
        self.remembered.geometry = bytes(self.saveGeometry().data())
        self.remembered.splitter = bytes(self.splitter.saveState().data())
        self.remembered.save(self.settings)

    def shutdown(self) -> bool:
        """Remember, stop the worker and the reader, close the store. False: the engine was still busy
        after close_wait_ms (a model load cannot be interrupted); it is kept alive in
        EngineThread.outliving, and whoever ends the process waits for it (app.main)."""
        if self.engine is None:
            return True
        self._save_settings()
        stopped = self.engine.stop(self.close_wait_ms)
        self.engine = None
        if not self.reader.close(self.close_wait_ms):
            _outliving_readers.append(self.reader)     # its read still refers to it
        if self._store is not None:
            self._store.close()
            self._store = None
        return stopped

    def closeEvent(self, event) -> None:
        self.hide()       # gone for the user at once, even while the batch in flight finishes
        self.shutdown()
        super().closeEvent(event)


_outliving_readers: list[FileReader] = []


def _model_name(spec: str) -> str:
    """What a user calls a model: Qwen2.5-0.5B-Instruct, not qwen2.5-0.5b or Qwen/Qwen2.5-0.5B-Instruct."""
    return models.ALIASES.get(spec, spec).rsplit("/", 1)[-1]


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__

"""The main window: open a file, label it, review, export. Every slow step runs off the UI thread.

The parts have their own modules: the ticket pane (ticket_pane), the file reader (file_reader, over
files.opening), the results database (results_db), the engine worker (worker), the side panels.
The window wires them together and keeps what ties them: which rows a run's answers belong to.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (QFileDialog, QFrame, QMainWindow, QScrollArea, QSplitter, QTabWidget,
                               QVBoxLayout, QWidget)

from triage_app.engine import models
from triage_app.engine.labels import LabelSet
from triage_app.files.clean import clean
from triage_app.files.reader import TicketTable
from triage_app.quality.metrics import evaluate
from triage_app.ui.accuracy_panel import AccuracyPanel
from triage_app.ui.exporting import ExportFailed, ask_export_path, export_results
from triage_app.ui.file_reader import FileReader
from triage_app.ui.labels_panel import LabelsPanel
from triage_app.ui.menus import WindowActions
from triage_app.ui.message_bar import MessageBar
from triage_app.ui.model_panel import ModelPanel
from triage_app.ui.prompt_preview import PromptPreview
from triage_app.ui.results_db import ResultsDb, store_file
from triage_app.ui.run_panel import RunPanel
from triage_app.ui.settings import Remembered, SettingsDialog, open_settings
from triage_app.ui.ticket_pane import TicketPane
from triage_app.ui.worker import EngineThread

FILE_FILTER = "Ticket files (*.csv *.tsv *.txt *.xlsx *.xlsm *.json *.jsonl);;All files (*)"
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
        self.table: TicketTable | None = None
        self._texts: list[str] = []
        self._read_request = 0
        # what the rows mean: changes with every new file or text column, so that a batch of a run
        # started before (it may already be on its way) never lands on rows that are now other tickets
        self._generation = 0
        self._run_generation = -1
        self._run_id = 0
        self._asked = (0, 0)                   # the latest verify and prompt requests: their failures are shown
        self.close_wait_ms = CLOSE_WAIT_MS
        self._run_label_set: LabelSet | None = None
        self._run_request: dict = {}           # run()'s arguments, to start it again on another model
        self._waiting_run: dict | None = None  # a run that did not start for want of a model
        self.running = False
        self.model_info = None
        self.model_loading = False
        self.label_set = self._remembered_label_set()

        self.db = ResultsDb(store_path)        # the one owner of the results database
        self.db.unavailable.connect(self._store_unavailable)
        self.engine = EngineThread(self.db)
        self.worker = self.engine.worker
        self.reader = FileReader(self.db)
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
        self.model_panel.start_on_a_local_model(self.remembered.model)
        if autoload and self.remembered.model_loaded_before:
            self.load_model()

    # layout
    def _build(self) -> None:
        self.actions = WindowActions(self)
        self.tickets = TicketPane()
        self.model, self.proxy, self.view, self.columns = (self.tickets.model, self.tickets.proxy,
                                                           self.tickets.view, self.tickets.columns)
        self.tickets.set_label_names(self.label_set.names)
        self.tickets.shown_changed.connect(self._schedule_refresh)
        self.model.manual_changed.connect(self._manual_changed)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.columns.texts_changed.connect(self._texts_changed)
        self.columns.gold_changed.connect(self._schedule_refresh)
        self.statusBar().addPermanentWidget(self.tickets.counts)

        self.banner = MessageBar()
        self.banner_text, self.bundled_button = self.banner.text, self.banner.bundled_button
        self.fresh_store_button = self.banner.fresh_store_button
        self.fresh_store_button.clicked.connect(self.use_fresh_store)
        self.bundled_button.clicked.connect(self.use_bundled_model)
        self.banner.later_button.clicked.connect(self._download_later)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(6, 6, 0, 6)
        left_layout.addWidget(self.banner)
        left_layout.addWidget(self.tickets, 1)

        self.model_panel = ModelPanel()
        self.model_panel.load_requested.connect(
            lambda spec: self.load_model(spec, remember=self.model_panel.picked_by_user))
        self.run_panel = RunPanel(self.actions.run_panel_buttons)
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
        self._update_actions()

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
        self.reader.start(self._read_request, str(path), self.label_set.fingerprint)

    def _file_read(self, request: int, opened, manual: dict[int, str]) -> None:
        if request != self._read_request:
            return
        self._clear_error()
        self._generation += 1
        table = self.table = opened.table
        self.remembered.last_folder = str(Path(table.path).resolve().parent)
        self.columns.set_columns(table.columns, opened.text_column, opened.subject_column, opened.gold_column)
        self.model.set_frame(table.frame)
        self._texts = opened.texts
        self.model.set_manual_labels(manual)
        self.tickets.show_table(True)
        self.tickets.size_columns()
        self.statusBar().showMessage(f"{table.path.name}: {len(table.frame):,} tickets", 10_000)
        if opened.notes:
            self.show_error(" ".join(opened.notes))
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
        column = self.columns.text_column
        self._texts = self.table.texts(column, self.columns.subject_column) if column else []
        self.model.clear_predictions()
        self._load_manual_labels()
        self.statusBar().showMessage("The ticket text changed: Run to label it.", 8000)
        self._schedule_refresh()

    @property
    def texts(self) -> list[str]:
        return list(self._texts)

    # the model
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

    def _worker_failed(self, request: int, message: str) -> None:
        if request in self._asked:     # the latest verify or prompt preview: a message, nothing ends
            self.show_error(message)
        else:
            self._run_ended(request, "failed", message)

    def _run_ended(self, run_id: int, how: str, message: str = "") -> None:
        # not the latest run (its end is stale), or not running: ended already (its model failed)
        if run_id != self._run_id or not self.running:
            return
        self.running = False
        done = self.model.rows_answered
        if how == "done":
            self.run_panel.finish("done")
            self.statusBar().showMessage(f"Done: {done:,} rows answered.", 10_000)
        elif how == "cancelled":
            self.run_panel.finish(f"cancelled; {done:,} labeled rows kept")
            self.statusBar().showMessage(f"Cancelled: the {done:,} rows labeled so far are kept.", 10_000)
        else:
            self.run_panel.finish("stopped")
            self.show_error(message)
        self._update_actions()
        self._refresh_derived()
        self.run_ended.emit(how)

    # verify and the prompt
    def verify(self, probes: int = 16) -> None:
        if self.table is None:
            self.show_error("Open a ticket file first: verify checks a spread of its tickets.")
            return
        if self.model_info is None and not self.model_loading:
            self.load_model()
        self.run_panel.show_verifying(probes)
        request = self.worker.verify(self._texts, self.label_set, {"method": self.remembered.method}, probes)
        self._asked = (request, self._asked[1])

    def _verify_done(self, report) -> None:
        self.statusBar().showMessage(self.run_panel.show_verify(report), 10_000)

    def show_prompt(self) -> None:
        self.prompt_preview.show_waiting(self.model_info is not None or self.model_loading)
        if self.model_info is not None or self.model_loading:
            rows = self.view.selected_source_rows()
            # what the model reads: the ticket cleaned as a run would clean it
            ticket = clean(self._texts[rows[0]], self.remembered.cleaning) if rows and self._texts else ""
            request = self.worker.preview_prompt(self.label_set, ticket, self.remembered.method)
            self._asked = (self._asked[0], request)
        self.prompt_preview.show()
        self.prompt_preview.raise_()

    # labels
    def _labels_changed(self, label_set: LabelSet) -> None:
        old, self.label_set = self.label_set, label_set
        self.remembered.label_set = json.dumps(label_set.to_dict(), ensure_ascii=False)
        if label_set.names != old.names:
            if self.running:
                self.cancel()
            self.tickets.set_label_names(label_set.names)
            self._load_manual_labels()
            self.statusBar().showMessage("Labels changed: Run to label the tickets with the new set.", 10_000)
        else:
            # same names: a person's labels still mean the same, so they follow the new prompt
            self._store_manual_labels()
            if self.model.rows_answered:
                self.statusBar().showMessage("The prompt changed: Run again to update the labels.", 10_000)
        self._schedule_refresh()

    def promote_corrections(self) -> None:
        """Tickets a person labeled become few-shot examples (the prefix is encoded once more, then reused)."""
        corrections = [(self._texts[row], label) for row, label in sorted(self.model.manual_labels.items())]
        risky = self.remembered.method == "channel"    # where corrections were measured to hurt
        added = self.labels_panel.add_corrections(corrections, ask_first=risky)
        if added is None:
            self.show_error("No new corrections to add: label tickets by hand first (keys 1–9).")
        elif added:
            self.statusBar().showMessage(f"{added} correction(s) added as examples: Run again to use them.", 10_000)

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
        self.db.set_manual(self.label_set.fingerprint, self._texts[row], label)   # written off this thread
        self._schedule_refresh()

    def _store_manual_labels(self) -> None:
        for row, label in self.model.manual_labels.items():
            self.db.set_manual(self.label_set.fingerprint, self._texts[row], label)

    def _load_manual_labels(self) -> None:
        manual = self.db.manual_labels(self.label_set.fingerprint, self._texts) if self._texts else None
        if manual is not None:      # None: no database; the labels in the table are all there is
            self.model.set_manual_labels(manual)

    # the results database
    def _store_unavailable(self, message: str) -> None:
        """Said once; the window goes on without the database: no resume, labels kept in memory."""
        self.fresh_store_button.show()
        self.show_error(f"{message.rstrip('. ')}. The window goes on without it: nothing is resumed or "
                        f"saved until you use a fresh database.")

    def use_fresh_store(self) -> Path | None:
        """Move the unusable database aside (kept, renamed) and start an empty one; returns where it went."""
        try:
            moved = self.db.use_fresh()
        except OSError as exc:
            self.show_error(f"Cannot move {store_file(self.db.path)} aside: {exc.strerror or exc}")
            return None
        self.fresh_store_button.hide()
        self.banner.hide()
        if self.db.problem:             # the new one failed too (a read-only folder): said already
            return None
        self._store_manual_labels()     # what was labeled meanwhile is not lost
        where = f" (the old one is {moved})" if moved else ""
        self.statusBar().showMessage(f"Using a fresh results database{where}.", 15_000)
        return moved

    # review and export
    def set_review_queue(self, on: bool) -> None:
        self.tickets.set_review_queue(on)

    def export_dialog(self) -> None:
        if self.table is None:
            self.show_error("Nothing to export yet: open a ticket file first.")
            return
        suggested = Path(self.remembered.last_folder or ".") / f"{self.table.path.stem}-labeled.csv"
        path = ask_export_path(self, str(suggested))
        if path:
            self.export_to(path)

    def export_to(self, path: str | Path) -> Path | None:
        if self.table is None:
            self.show_error("Nothing to export yet: open a ticket file first.")
            return None
        try:
            written, rows = export_results(self.table, self.model, path)
        except ExportFailed as exc:
            self.show_error(str(exc))
            return None
        self.statusBar().showMessage(f"Exported {rows:,} rows to {written}", 10_000)
        return written

    # what follows from the table
    def _schedule_refresh(self, *_) -> None:
        if not self._throttle.isActive():
            self._throttle.start()

    def _refresh_derived(self) -> None:
        """Counts and accuracy: at most a few times a second, however fast batches arrive, and never
        more than a tenth of the UI thread's time (on a big file one refresh is not cheap)."""
        started = time.perf_counter()
        self.tickets.show_counts()
        gold = self.columns.gold_column
        if self.table is None or gold is None:
            self.accuracy_panel.show_scores(None, None)
        else:
            self.accuracy_panel.show_scores(evaluate(self.table.frame[gold].tolist(), self.model.predicted_labels,
                                                     self.model.label_names, self.model.confidences), gold)
        cost_ms = 1000 * (time.perf_counter() - started)
        self._throttle.setInterval(max(REFRESH_MS, int(10 * cost_ms)))

    def _update_actions(self) -> None:
        has_file, a = self.table is not None, self.actions
        a.run.setEnabled(has_file and not self.running)
        a.cancel.setEnabled(self.running)
        a.verify.setEnabled(has_file and not self.running)
        a.export.setEnabled(has_file)
        a.load.setEnabled(not self.model_loading)

    # messages
    def show_error(self, message: str, offer_bundled: bool = False) -> None:
        """A plain message above the table; the window keeps working. offer_bundled: with the buttons
        to use the bundled model now or download later."""
        self.banner.say(message, offer_bundled)
        self.statusBar().showMessage(message, 15_000)
        self.error_shown.emit(message)

    def _clear_error(self) -> None:
        """A new file or run clears the last message, except that the database is unavailable: that
        line, and its way out, stay until the user takes it."""
        self.banner.show_model_offer(False)
        if self.db.problem:
            self.banner_text.setText(self.db.problem)
        else:
            self.banner.hide()

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
        """Remember, stop the worker and the reader, write the labels still queued and close the
        database. False: the engine was still busy after close_wait_ms (a model load cannot be
        interrupted); it is kept alive in EngineThread.outliving, and whoever ends the process waits
        for it (app.main)."""
        if self.engine is None:
            return True
        self._save_settings()
        stopped = self.engine.stop(self.close_wait_ms)
        self.engine = None
        if not self.reader.close(self.close_wait_ms):
            _outliving_readers.append(self.reader)     # its read still refers to it
        self.db.close()
        return stopped

    def closeEvent(self, event) -> None:
        self.hide()       # gone for the user at once, even while the batch in flight finishes
        self.shutdown()
        super().closeEvent(event)


_outliving_readers: list[FileReader] = []

"""The main window: open a file, label it, review, export. Every slow step runs off the UI thread.

The parts live in rooms: the ticket table (table/), the side panels and the message bar (panels/),
learning from the person (learning/) and what runs off the UI thread (background/: the engine
worker, the file reader, the results database). Beside the window: the model it holds
(model_session), the way out of an unusable database (fresh_store), export (exporting) and the
fields a run classifies (fields: queue, priority, ...; the current one). The window wires them
together and keeps what ties them: which rows a run's answers belong to (background/run.Run).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QFileDialog, QMainWindow, QSplitter, QVBoxLayout, QWidget

from triage_app.engine import models
from triage_app.engine.config import METHOD_FACTS
from triage_app.engine.labels import LabelSet
from triage_app.files.reader import TicketTable
from triage_app.ui import ui_thread_gc
from triage_app.ui.background.file_reading import FileReader
from triage_app.ui.background.results_db import ResultsDb
from triage_app.ui.background.worker import EngineThread
from triage_app.ui.drops import FileDrops
from triage_app.ui.embedding import Embedding
from triage_app.ui.exporting import Exporting
from triage_app.ui.fields import Fields
from triage_app.ui.fresh_store import FreshStoreOffer
from triage_app.ui.labels_first import LabelsFirst
from triage_app.ui.learning.column_offer import column_hint
from triage_app.ui.learning.person_labelling import PersonLabelling
from triage_app.ui.learning.session import LearningSession
from triage_app.ui.menus import WindowActions
from triage_app.ui.model_session import ModelSession
from triage_app.ui.panels.message_bar import MessageBar
from triage_app.ui.panels.prompt_preview import PromptPreview
from triage_app.ui.panels.side import SidePanels
from triage_app.ui.running import Running
from triage_app.ui.settings import Remembered, open_settings
from triage_app.ui.table.pane import TicketPane
from triage_app.ui.table.summary import TableSummary

FILE_FILTER = "Ticket files (*.csv *.tsv *.txt *.xlsx *.xlsm *.json *.jsonl);;All files (*)"
CLOSE_WAIT_MS = 10_000   # how long closing waits for the batch in flight before the window goes anyway


class MainWindow(QMainWindow):
    file_loaded = Signal(object)    # TicketTable, once it is in the table
    run_ended = Signal(str)         # "done", "cancelled" or "failed", once the window shows it
    error_shown = Signal(str)
    _model_failure: str | None = None     # the banner's line of the latest model that failed to load

    def __init__(self, settings: QSettings | None = None, store_path=None, autoload: bool = True):
        super().__init__()
        ui_thread_gc.install()      # Qt objects die on this thread, never in a collection on the engine's
        self.settings = settings or open_settings()
        self.remembered = Remembered.load(self.settings)
        self.table: TicketTable | None = None
        self._texts: list[str] = []
        self._read_request = 0
        self.close_wait_ms = CLOSE_WAIT_MS
        self.axes = self.remembered.axes      # every field's label set (engine.axes); one for a plain set

        self.db = ResultsDb(store_path)        # the one owner of the results database
        self.banner = MessageBar()
        self.fresh_store = FreshStoreOffer(self.db, self.banner, self)   # before anything opens the database
        self.engine = EngineThread(self.db)
        self.worker = self.engine.worker
        self.reader = FileReader(self.db, hint=column_hint)
        self.reader.read.connect(self._file_read)
        self.reader.failed.connect(self._file_failed)

        self._build()
        self._connect_parts()
        self.session = ModelSession(self.worker, self.model_panel, self.remembered, self)
        self.session.busy.connect(self.update_actions)
        self.session.ready.connect(self._model_ready)
        self.session.failed.connect(self._model_failed)
        self._connect_worker()
        self.update_actions()
        if self.remembered.reverted:      # a setting that did not read: the person sees which, and why
            self.show_error(" ".join(self.remembered.reverted))
        FileDrops(self, self.open_file)
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
        self.tickets.set_axes({axis.name: axis.names for axis in self.axes})
        self.statusBar().addPermanentWidget(self.tickets.counts)
        self.learning = LearningSession(self.model, self.proxy, self)

        self.banner_text, self.bundled_button = self.banner.text, self.banner.bundled_button
        self.fresh_store_button = self.banner.fresh_store_button
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(6, 6, 0, 6)
        left_layout.addWidget(self.banner)
        left_layout.addWidget(self.tickets, 1)
        left_layout.addWidget(self.learning.bar)

        self.side = SidePanels(self.axes, self.actions.run_panel_buttons)
        self.model_panel, self.run_panel, self.tabs = self.side.model_panel, self.side.run_panel, self.side.tabs
        self.labels_panel, self.accuracy_panel = self.side.labels_panel, self.side.accuracy_panel
        self.summary = TableSummary(self.tickets, self.accuracy_panel, self)
        self.labelling = PersonLabelling(self.axes, self.model, self.view, self.db, self.labels_panel, self.learning, self)
        self.fields = Fields(self)
        self.fields.show(self.axes)
        self.exporting = Exporting(self.model, self, set_aside=self.labelling.set_aside, axes=lambda: self.axes)
        self.splitter = QSplitter()
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([900, 520])
        self.setCentralWidget(self.splitter)
        self.prompt_preview = PromptPreview(self)

    def _connect_parts(self) -> None:
        for change in (self.tickets.shown_changed, self.columns.gold_changed, self.learning.changed,
                       self.labelling.changed):
            change.connect(self.summary.schedule)
        self.columns.texts_changed.connect(self._texts_changed)
        self.labels_panel.preview_requested.connect(self.show_prompt)
        self.bundled_button.clicked.connect(self.use_bundled_model)
        self.banner.later_button.clicked.connect(self._download_later)
        self.fresh_store.fresh.connect(self.labelling.store)
        # the parts say things one way: failed -> the message bar, message -> the status bar
        for part in (self.learning, self.labelling, self.fresh_store, self.exporting):
            part.failed.connect(self.show_error)
        for part in (self.learning, self.labels_panel):          # a line, or "Cannot …" for the message bar
            part.message.connect(self._panel_message)
        for part in (self.labelling, self.fresh_store, self.exporting):
            part.message.connect(self.statusBar().showMessage)

    def _connect_worker(self) -> None:
        self.runs = Running(self)
        self.embedding = Embedding(self)     # the open file's tickets, embedded once for learning
        self.labels_first = LabelsFirst(self)     # a way of answering: the person's labels, the model for the unsure
        self.learning.unsettled.connect(self.runs.settle)
        self.learning.skip.connect(self.runs.skip)
        self.runs.ended.connect(self.run_ended)
        self.runs.ended.connect(self.say_what_an_edit_costs)
        self.worker.prompt_ready.connect(self.prompt_preview.show_prompt)

    # opening
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open tickets", self.remembered.last_folder, FILE_FILTER)
        if path:
            self.open_file(path)

    def open_file(self, path: str | Path) -> None:
        """Read in the background; the table fills when the file has been read."""
        if not self._unsaved_labels_settled("Open it"):
            return
        self.runs.cancel()
        self.embedding.cancel()
        self._read_request += 1
        self.labelling.reading()
        self.statusBar().showMessage(f"Reading {Path(path).name}…")
        self.reader.start(self._read_request, str(path), self.axes.names)

    def _file_read(self, request: int, opened, person, hint: str | None) -> None:
        if request != self._read_request:
            return
        self.clear_error()
        self.runs.rows_changed()
        table, self._texts = opened.table, opened.texts
        self.table = table
        self.remembered.last_folder = str(Path(table.path).resolve().parent)
        self.tickets.show_opened(opened)
        self.columns.set_axes(self.axes.names, self.fields.current)
        hidden = self.labelling.file_opened(self._texts, person)    # labels not shown: said before a hint
        self.embedding.file_opened(self._texts)
        self.statusBar().showMessage(f"{table.path.name}: {len(table.frame):,} tickets", 10_000)
        if opened.notes:
            self.show_error(" ".join(opened.notes))
        if hidden or (hint and not opened.notes):
            self.statusBar().showMessage(hidden or hint, 15_000)
        self.setWindowTitle(f"Triage — {table.path.name}")
        self.update_actions()
        self.say_what_an_edit_costs()
        self.summary.schedule()
        self.file_loaded.emit(table)
        ui_thread_gc.file_kept(len(self._texts))

    def _file_failed(self, request: int, message: str) -> None:
        if request == self._read_request:
            self.show_error(message)

    def _texts_changed(self) -> None:
        if self.table is None:
            return
        self.runs.rows_changed()
        column = self.columns.text_column
        self._texts = self.table.texts(column, self.columns.subject_column) if column else []
        self.model.clear_predictions()
        self.labelling.texts_changed(self._texts)
        self.embedding.file_opened(self._texts)
        self.statusBar().showMessage("The ticket text changed: Run to label it.", 8000)
        self.say_what_an_edit_costs()
        self.summary.schedule()

    @property
    def texts(self) -> list[str]:
        return list(self._texts)

    ticket_count = property(lambda self: len(self._texts))   # len(texts), no copy: a big file's copy is a stall

    # the model
    def load_model(self, spec: str | None = None, remember: bool = True) -> None:
        """remember: the spec becomes the model to start on next time (an explicit pick, not a stand-in)."""
        self.session.load(spec, remember)

    def use_model(self, loaded) -> None:
        """Adopt an already loaded engine model (tests, and callers that loaded one themselves)."""
        self.session.adopt(loaded)

    model_info = property(lambda self: self.session.info)

    def _model_ready(self, info) -> None:
        if self.banner_text.text() == self._model_failure:     # a model that failed before this one: mended
            self.clear_error()
        self.statusBar().showMessage(f"Model ready: {info.name}", 8000)
        self.update_actions()

    def _model_failed(self, message: str, offer_bundled: bool) -> None:
        self.runs.no_model()
        self.show_error(message, offer_bundled)
        self._model_failure = self.banner_text.text()

    def use_bundled_model(self) -> None:
        """Load the bundled model now (not remembered as the user's choice); a waiting run starts on it."""
        self.clear_error()
        self.session.load(models.SMOLLM2, remember=False)
        self.runs.start_waiting()

    def _download_later(self) -> None:
        self.runs.latest.waiting = False
        self.clear_error()

    def settings_dialog(self) -> None:
        if self.session.configure(self):
            self._save_settings()
            self.say_what_an_edit_costs()

    # running: ui/running.py
    def run(self, fresh: bool = False, limit: int | None = None) -> int | None:
        """Label every ticket (or the first limit); returns the run id the worker's signals carry."""
        run_id = self.runs.start(fresh, limit)
        self.embedding.resume()         # behind the run, where Cancel had stopped it
        self.say_what_an_edit_costs()
        return run_id

    @property
    def running(self) -> bool:
        return self.runs.running

    @property
    def latest(self):
        """The latest run (background/run.Run)."""
        return self.runs.latest

    def cancel(self) -> None:
        """Stop the run or verify and the tickets' embedding (Run picks it up again)."""
        self.runs.cancel()
        self.embedding.cancel()

    def verify(self, probes: int = 16) -> None:
        self.runs.verify(probes)

    def show_prompt(self) -> None:
        self.prompt_preview.show_waiting(self.session.asked)
        if self.session.asked:
            rows = self.view.selected_source_rows()
            self.runs.preview_prompt(rows[0] if rows else None)
        self.prompt_preview.show()
        self.prompt_preview.raise_()

    # labels: ui/fields.py follows an edit of them
    @property
    def label_set(self) -> LabelSet:
        """The current field's label set (the only one of a plain set)."""
        return self.fields.label_set(self.axes)

    def choose_axis(self, axis: str) -> None:
        """Work on this field (its decision column, the keys, review, accuracy, the label editor)."""
        self.fields.choose(axis)

    def method_of(self, axis: str) -> str:
        """The scoring method a field is run with: its own where its label set names one, else the run's."""
        return self.axes.named(axis).method_or(self.remembered.method)

    def say_what_an_edit_costs(self) -> None:
        """Before an edit: with answers in the table, what editing the current field's labels would re-score."""
        answered = self.running or self.model.rows_answered > 0
        note = METHOD_FACTS[self.method_of(self.fields.current)].edit_note
        self.labels_panel.set_edit_note(note if answered else "")

    def promote_corrections(self) -> None:
        """Tickets a person labeled (on the current field) become few-shot examples."""
        self.labelling.promote(ask_first=METHOD_FACTS[self.method_of(self.fields.current)].ask_before_corrections)

    def labels_from_column(self) -> None:
        """A column's values as the label set, and its filled rows as the person's labels: the dialog
        starts on the gold column, or the best half-filled one, and shows which it reads."""
        if self.table is None:
            self.show_error("Open a file with a column of labels (a queue or category) first.")
            return
        self.labelling.take_column(self.columns.gold_column)

    # the results database
    def use_fresh_store(self) -> Path | None:
        """Move the unusable database aside (kept, renamed) and start an empty one; returns where it went."""
        return self.fresh_store.use_fresh()

    # export
    def export_dialog(self) -> None:
        self.exporting.ask(self.table, self.remembered.last_folder)

    def export_to(self, path: str | Path) -> Path | None:
        return self.exporting.write(self.table, path)

    def update_actions(self) -> None:
        has_file, a, busy = self.table is not None, self.actions, self.running or bool(self.runs.verifying)
        a.run.setEnabled(has_file and not busy)
        a.cancel.setEnabled(busy or self.embedding.busy)
        a.verify.setEnabled(has_file and not busy)
        a.export.setEnabled(has_file)
        a.load.setEnabled(not self.session.loading)

    # messages
    def show_error(self, message: str, offer_bundled: bool = False) -> None:
        """A plain message above the table; the window keeps working. offer_bundled: with the buttons
        to use the bundled model now or download later."""
        self.banner.say(message, offer_bundled)
        self.statusBar().showMessage(message, 15_000)
        self.error_shown.emit(message)

    def clear_error(self) -> None:
        """A new file or run clears the last message, but not that the database cannot be used."""
        self.banner.clear()

    def _panel_message(self, message: str) -> None:
        if message.startswith("Cannot"):
            self.show_error(message)
        else:
            self.statusBar().showMessage(message, 8000)

    # remembering
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
        for part in (self.reader, self.learning):
            if not part.close(self.close_wait_ms):
                _outliving_readers.append(part)         # its work in flight still refers to it
        self.db.close()
        return stopped

    def closeEvent(self, event) -> None:
        if not self._unsaved_labels_settled():
            event.ignore()
            return
        self.hide()       # gone for the user at once, even while the batch in flight finishes
        self.shutdown()
        super().closeEvent(event)

    def _unsaved_labels_settled(self, going: str = "Close") -> bool:
        """Before the window closes or shows another file (going): labels the database could not take
        are offered a fresh one (fresh_store). False: the person chose to stay."""
        self.db.flush()     # the labels queued are written first: a write failing now is counted
        return self.fresh_store.settle(self.labelling.unsaved(), going, self)


_outliving_readers: list = []     # FileReader, LearningSession

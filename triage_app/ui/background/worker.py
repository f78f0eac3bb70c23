"""The one worker: owns the model on its own thread and turns engine progress into signals.

Requests are signals emitted on the main thread and served in order on the worker thread
(queued connections), so "load, then run" needs no bookkeeping: the run waits behind the load.
Cancel is a number, not a signal: a queued signal would only be seen after the run it should stop.
Every run up to that id stops between batches, so a new Run after Cancel is never cancelled itself.
A run classifies every field (axis) asked, in the parts run/fields.py decides (those that can share one
pass over each ticket first, then each other field alone); fields_started says which before their first
batch. A field whose labels were edited mid-run is dropped from it (drop):
its part stops after the batch in flight, or never starts; the run goes on with the others.
Closing is a flag for the same reason: every request still queued is skipped, and a run stops at
its next step (the engine's run is a generator: steps are the stored results read, then batches).
The sentence encoder shares this thread (background/embedding.py): it embeds the open file's tickets in
the gaps, and waiting() tells it a request came, so that it steps aside between two batches.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThread, Signal, Slot

from triage_app.ui.background.embedding import EmbeddingWorker
from triage_app.ui.background.failures import one_line


@dataclass(frozen=True, slots=True)
class ModelInfo:
    spec: str
    name: str
    device: str
    dtype: str
    reason: str


@dataclass(frozen=True, slots=True)
class RunProgress:
    run_id: int
    rows_done: int
    rows_total: int
    resumed: int        # rows answered from earlier runs (the results store)
    stats: object       # a RunStats snapshot: the engine's numbers over the rows it classified


@dataclass(frozen=True, slots=True)
class RunBatch:
    run_id: int
    predictions: list   # engine Predictions; .index is the row
    axis: str = "label"   # the field they answer (engine.axes; "label": a plain set's)


@dataclass(frozen=True, slots=True)
class RunFields:
    run_id: int
    names: list         # the fields a run classifies from now on; several: in one pass over each ticket


@dataclass(frozen=True, slots=True)
class PromptInfo:
    prefix: str         # the static part, computed once per run and reused for every ticket
    ticket: str         # the per-ticket part: the ticket text...
    tail: str           # ...and what follows it, up to where the model answers
    prefix_tokens: int
    label_tokens: dict
    warnings: list
    channel_label: str = ""   # channel scoring: the label whose prompt this is (one per label)


class EngineWorker(QObject):
    """Lives on its own QThread; the main thread only calls the request methods and cancel()."""

    # requests, served on the worker thread
    _load_requested = Signal(object, int)
    _adopt_requested = Signal(object)
    _run_requested = Signal(int, object, object, object, object, bool, int, object, object, object)
    _verify_requested = Signal(int, object, object, str, object, int, int)
    _prompt_requested = Signal(int, object, str, str, object)

    # reports
    model_loading = Signal(str)       # a model spec started loading
    model_loaded = Signal(object)     # ModelInfo
    model_failed = Signal(str)        # why the model could not be loaded, one line
    model_not_downloaded = Signal(object)   # engine ModelNotDownloaded: a Hub model not here; the bundled one is
    started = Signal(int)             # run id
    fields_started = Signal(object)   # RunFields: the fields a run classifies now, before their first batch
    progress = Signal(object)         # RunProgress, after every batch
    batch_done = Signal(object)       # RunBatch: the rows one batch finished, for one field
    finished = Signal(int)            # run id: every row has an answer
    cancelled = Signal(int)           # run id: stopped between batches; finished rows were kept
    failed = Signal(int, str)         # request id (a run's is its run id), one line: the request failed
    verify_progress = Signal(object)  # the engine's VerifyProgress: probes and reference passes so far
    verify_done = Signal(object)      # the engine's VerifyReport (report.stopped: Cancel came first)
    prompt_ready = Signal(object)     # PromptInfo

    def __init__(self, db):
        """db: the window's ResultsDb; each run opens its own connection to it (runs go on without one)."""
        super().__init__()
        self.db = db
        self._loaded = None
        self._field_classifiers: list = []   # the latest run's, one per field...
        self._fields_built_for = None        # ...built for (its fields, scoring, ticket limit)
        self._closing = False
        self._next_request = 0          # run, verify and prompt requests share one count: failed names one
        self._loads = 0                 # load requests so far; a run remembers the one it follows
        self._failed_loads: set[int] = set()
        self._served = 0                # requests (loads and the rest) this thread has begun serving
        self._cancelled_up_to = 0     # runs with an id up to this stop between batches
        self._dropped: tuple[int, frozenset] = (0, frozenset())   # a run's fields whose parts stop (drop)
        self._load_requested.connect(self._load)
        self._adopt_requested.connect(self._adopt_asked)
        self._run_requested.connect(self._run)
        self._verify_requested.connect(self._verify)
        self._prompt_requested.connect(self._prompt)

    # requests (call from the main thread)
    def load_model(self, choice) -> None:
        """choice: an engine.config ModelChoice; "auto" device and dtype are resolved on this machine."""
        self._loads += 1
        self._load_requested.emit(choice, self._loads)

    def use_model(self, loaded) -> None:
        """Adopt a model loaded elsewhere (tests share one across windows)."""
        self._loads += 1                # runs after this follow a load that cannot fail
        self._adopt_requested.emit(loaded)

    # settings: an engine.config RunSettings; its model is not read (the one loaded here is used)
    def run(self, texts: list[str], axes, settings, fresh: bool = False, cleaning=None,
            fields: list[str] | None = None, exact: dict[str, list[int]] | None = None,
            taught: dict | None = None) -> int:
        """Classify texts (the originals; the model reads them cleaned as cleaning, a files.clean
        TextCleaning, says; None: the default) on the fields of axes (an engine.axes Axes, every field
        of the window: a method's prompt may name them all) named in fields (None: every one); exact:
        per field, rows whose answers must be float32's own (job.run_job); taught: per field, what its
        learning weighs answers by, (a, [N, L] b x P) (learn.Learned), which a checked low precision reads
        its answers with. Returns the run id its signals will carry."""
        request = self._new_request()
        self._run_requested.emit(request, list(texts), axes, fields, settings, fresh, self._loads, cleaning,
                                 dict(exact or {}), dict(taught or {}))
        return request

    def verify(self, texts: list[str], axes, field: str, settings, probes: int = 16) -> int:
        """The fast path as settings.run batches it, against the reference loop, for the field named
        (scored as a run of axes scores it). Returns the request id a failure will carry."""
        request = self._new_request()
        self._verify_requested.emit(request, list(texts), axes, field, settings, probes, self._loads)
        return request

    def preview_prompt(self, axes, field: str, ticket: str, settings) -> int:
        """The field's prompt, as a run of axes builds it. Returns the request id a failure will carry."""
        request = self._new_request()
        self._prompt_requested.emit(request, axes, field, ticket, settings)
        return request

    def _new_request(self) -> int:
        self._next_request += 1
        return self._next_request

    new_request = _new_request     # for a request served beside this worker (background/labels_first.py)

    def serving(self, run_id: int) -> bool:
        """On this thread, a run served beside this worker begins: False where Cancel or close came first."""
        self._served += 1
        return not self._closing and run_id > self._cancelled_up_to

    def stopping(self, run_id: int) -> bool:
        """On this thread, between two batches: Cancel or close came for this run."""
        return self._closing or run_id <= self._cancelled_up_to

    def cancel(self) -> None:
        """Stop every run asked for so far after the batch in flight, and a verify after the model pass
        in flight; thread-safe."""
        self._cancelled_up_to = self._next_request

    def drop(self, run_id: int, fields: list[str]) -> None:
        """Stop run_id's part of these fields after the batch in flight, or skip it, and go on with the
        rest: their labels were edited, so what the run has left of them is stale; thread-safe (one tuple,
        replaced whole)."""
        before = self._dropped[1] if self._dropped[0] == run_id else frozenset()
        self._dropped = (run_id, before | set(fields))

    def _is_dropped(self, run_id: int, names: list[str]) -> bool:
        """Every field of a part dropped: a pass goes on while any of its fields still wants it."""
        dropped = self._dropped
        return dropped[0] == run_id and set(names) <= dropped[1]

    def close_down(self) -> None:
        """Stop the run in flight at its next step and skip every request still queued; thread-safe."""
        self._closing = True
        self.cancel()

    @property
    def has_model(self) -> bool:
        return self._loaded is not None

    @property
    def closing(self) -> bool:
        return self._closing

    def waiting(self) -> bool:
        """A request was asked for that this thread has not begun serving (each count is written by
        one thread only: the asking one, the serving one)."""
        return self._loads + self._next_request > self._served

    # served on the worker thread
    @Slot(object, int)
    def _load(self, choice, load_id):
        from triage_app.engine import models
        from triage_app.engine.build import load_model

        self._served += 1
        if self._closing:
            return
        self.model_loading.emit(choice.spec)
        try:
            loaded = load_model(choice)
        except models.ModelNotDownloaded as exc:   # its own signal: the window offers the bundled model there
            self._failed_loads.add(load_id)
            self.model_not_downloaded.emit(exc)
            return
        except Exception as exc:  # a broken model folder fails in many ways; the user needs one line
            self._failed_loads.add(load_id)   # runs asked for behind it never start
            known = isinstance(exc, (models.ModelNotAvailable, ValueError, OSError))
            self.model_failed.emit(str(exc) if known else one_line("cannot load the model", exc))
            return
        self._adopt(loaded)

    @Slot(object)
    def _adopt_asked(self, loaded):
        self._served += 1
        self._adopt(loaded)

    def _adopt(self, loaded):
        self._loaded = loaded
        self._field_classifiers, self._fields_built_for = [], None
        placement = loaded.placement
        self.model_loaded.emit(ModelInfo(loaded.spec, loaded.name, placement.device, placement.dtype_name,
                                         placement.reason))

    @Slot(int, object, object, object, object, bool, int, object, object, object)
    def _run(self, run_id, texts, axes, fields, settings, fresh, after_load, cleaning, exact, taught):
        from triage_app.engine.checked import Weighed
        from triage_app.files.clean import TextCleaning
        from triage_app.run.fields import PartStarted, run_fields

        from triage_app.ui.background.results_db import STORE_ERRORS

        self._served += 1
        if run_id <= self._cancelled_up_to or after_load in self._failed_loads:
            self.cancelled.emit(run_id)
            return
        store = None
        try:
            built = self._classifiers_for(axes, settings)
            asked = [k for k, axis in enumerate(axes) if fields is None or axis.name in fields]
            self.started.emit(run_id)
            store = self.db.open()      # None while the database is unavailable: nothing resumed or saved
            events = run_fields([axes.axes[k].name for k in asked], [built[k] for k in asked], store, texts,
                                settings.run, fresh, cleaning or TextCleaning(), exact,
                                {name: Weighed(*part) for name, part in taught.items()},
                                lambda names: self._is_dropped(run_id, names))
            for event in events:
                if not isinstance(event, PartStarted):
                    self._show_step(run_id, event)
                if run_id <= self._cancelled_up_to:     # after a batch, or between two fields: the next never starts
                    events.close()
                    self.cancelled.emit(run_id)
                    return
                if isinstance(event, PartStarted):
                    self.fields_started.emit(RunFields(run_id, list(event.names)))
        except STORE_ERRORS as exc:     # full or broken mid-run: the batches shown so far stay
            self.db.give_up_on(exc)
            self.failed.emit(run_id, "the run stopped: the results database failed; Run again to go on without it")
            return
        except Exception as exc:
            self.failed.emit(run_id, one_line("the run stopped", exc))
            return
        finally:
            if store is not None:
                store.close()
        # every field dropped (edited) ends the parts without another step: a Cancel that came meanwhile
        # still ends the run as cancelled, not done
        (self.cancelled if self.stopping(run_id) else self.finished).emit(run_id)

    def _show_step(self, run_id: int, event) -> None:
        """One step of a part (run/fields.py FieldsStep): each field's finished rows, then the progress."""
        # a finished batch is already saved, so it is shown even when Cancel came meanwhile
        # (the window drops it if its table was replaced since: a generation per table)
        for name, found in zip(event.names, event.steps):
            if found.predictions:
                self.batch_done.emit(RunBatch(run_id, found.predictions, name))
        slowest = event.slowest
        self.progress.emit(RunProgress(run_id, slowest.rows_done, slowest.rows_total,
                                       min(found.resumed for found in event.steps),
                                       dataclasses.replace(slowest.stats)))

    @Slot(int, object, object, str, object, int, int)
    def _verify(self, request, texts, axes, field, settings, probes, after_load):
        from triage_app.engine.verify import verify

        self._served += 1
        if self._closing or after_load in self._failed_loads:   # that failure is said; the verify never starts
            return
        stop = lambda: self._closing or request <= self._cancelled_up_to   # noqa: E731  (between model passes)
        fast, progress = None, self.verify_progress.emit
        try:
            classifier = self.field_classifier(axes, field, settings)
            self.verify_done.emit(verify(classifier, texts, probes, settings.run, fast, progress, stop))
        except Exception as exc:
            self.failed.emit(request, one_line("verify stopped", exc))

    @Slot(int, object, str, str, object)
    def _prompt(self, request, axes, field, ticket, settings):
        self._served += 1
        if self._closing:
            return
        try:
            classifier = self.field_classifier(axes, field, settings)
            self.prompt_ready.emit(PromptInfo(ticket=ticket.strip(), **classifier.method.preview()))
        except Exception as exc:
            self.failed.emit(request, one_line("cannot build the prompt", exc))

    def _classifiers_for(self, axes, settings) -> list:
        """Each field's classifier (build.axes_classifiers), built again only when the fields or the
        settings they are built for changed. Kept for the fields together, not per field: a method's
        prompt may name every field, so an edit of one may change another's classifier."""
        from triage_app.engine.build import axes_classifiers

        if self._loaded is None:
            raise RuntimeError("no model is loaded; pick one and press Load")
        wanted = (axes, settings.scoring, settings.max_ticket_tokens)
        if self._fields_built_for != wanted:
            self._field_classifiers, self._fields_built_for = axes_classifiers(self._loaded, axes, settings), wanted
        return self._field_classifiers

    def field_classifier(self, axes, field: str, settings):
        """The classifier of the field named, as a run of axes builds it (its own method, every field told)."""
        return self._classifiers_for(axes, settings)[axes.names.index(axes.named(field).name)]


class EngineThread:
    """The worker and the thread it lives on; stop() asks, waits, never kills.

    A QThread destroyed while it runs aborts the process ("QThread: Destroyed while thread is
    still running"), and a model load cannot be interrupted inside from_pretrained. So a thread
    that does not stop in time is kept (outliving) until it has: see wait_outliving().
    """

    outliving: list[EngineThread] = []   # stopped too late: kept alive here, never destroyed running

    def __init__(self, db):
        self.thread = QThread()
        self.thread.setObjectName("triage-engine")
        self.worker = EngineWorker(db)
        self.worker.moveToThread(self.thread)
        self.embedder = EmbeddingWorker(self.worker, db)    # the same thread: one model at a time
        self.embedder.moveToThread(self.thread)
        self.thread.start()

    def stop(self, timeout_ms: int = 10_000) -> bool:
        """Ask the worker to stop at its next step and wait up to timeout_ms. False: still busy, kept
        in outliving (a run closes its own connection to the results database when it stops)."""
        self.worker.close_down()
        self.thread.quit()
        if self.thread.wait(timeout_ms):
            return True
        EngineThread.outliving.append(self)
        return False

    @classmethod
    def wait_outliving(cls, timeout_ms: int) -> bool:
        """Wait (from the main thread) for threads that outlived their window; True if none is left."""
        for engine in list(cls.outliving):
            if not engine.thread.wait(timeout_ms):
                return False
            cls.outliving.remove(engine)
        return True


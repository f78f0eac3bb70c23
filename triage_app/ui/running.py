"""The window's runs: start one on the open file's texts, cancel or skip it, and show what the
worker reports, only where the answers still belong (background/run.Run.owns: the same run, file,
text column and label names). Verify and the prompt preview go through the same worker; their
failures are messages, never a run's end.

A label set of several fields (queue, priority) is one run on the worker: the fields that can share
one pass over each ticket run in it together (their columns fill batch by batch, side by side), every
other field after it in a run of its own; the worker says which before their first batch. The run
ends (ended) when its last field does, or when it is cancelled or fails. After an edit of one
field's labels only that field runs again (again, asked by fields.py); a run in flight goes on with the
other fields, whose answers do not depend on the edit, and the edited field runs once it has ended.

Where a checked low precision (bfloat16-checked) scored a field and the person has taught it, learning
names the rows whose learned answer its scores could still decide (Learned.unsettled); once a run has
finished, a short run of that field scores them again in float32 (settle) and learning follows it.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QObject, Signal

from triage_app.engine.config import RunConfig
from triage_app.files.clean import clean
from triage_app.run.settling import Settling
from triage_app.ui.background.run import Run
from triage_app.ui.fields import prompt_reads


class Running(QObject):
    ended = Signal(str)          # "done", "cancelled" or "failed", once the window shows it

    def __init__(self, window):
        """window: the MainWindow, whose open file, label set, parts and messages a run uses."""
        super().__init__(window)
        self.window = window
        self.latest = Run()
        self.generation = 0                 # what the rows mean: one more with every new file or text column
        self._asked = (0, 0)                # the latest verify and prompt requests: their failures are shown
        self._again: list[str] = []         # fields whose labels were edited mid-run: run once it has ended
        self._after: list[str] = []         # fields a labels-first run leaves to the model: run once it has ended
        self.settling = Settling()          # which rows go back to float32 next (run/settling.py)
        self.ended_how = ""                 # how the latest run ended: "done", "cancelled", "failed" ("": not yet)
        self.verifying = 0                  # the verify request in flight (0: none): Cancel stops it too
        self._asked_with = ("", {})         # the latest run's method, and per field the labels its prompt reads
        w = window.worker
        # bound methods of this object, never lambdas: a lambda would run on the worker's thread
        w.started.connect(self._started)
        w.fields_started.connect(self._fields_started)
        w.batch_done.connect(self._batch_done)
        w.progress.connect(self._progress)
        w.finished.connect(self._finished)
        w.cancelled.connect(self._cancelled)
        w.failed.connect(self._failed)
        w.verify_progress.connect(self._verify_progress)
        w.verify_done.connect(self._verify_done)

    @property
    def running(self) -> bool:
        return self.latest.running

    def rows_changed(self) -> None:
        """A new file or text column: a batch of an earlier one never lands on these rows, and a run
        asked for again on the old rows is not started on these."""
        self._again, self._after, self.ended_how = [], [], ""
        self.latest.waiting = False     # a run that waited for a model was of the rows before: never started on these
        self.settling = Settling()
        if not self.running:        # what the panel says of a run is of the rows before (one in flight: at its end)
            self.window.run_panel.clear()
        self.cancel()
        self.generation += 1

    def start(self, fresh: bool = False, limit: int | None = None, fields: list[str] | None = None,
              exact: dict[str, list[int]] | None = None) -> int | None:
        """Label every ticket (or the first limit) on every field (or those named in fields); exact: per
        field, rows whose answers must be float32's own (settle). Returns the run id the worker's signals
        carry."""
        win = self.window
        if win.table is None:
            win.show_error("Open a ticket file first (drop it on the window, or Ctrl+O).")
            return None
        if self.running:
            return None
        if not win.ticket_count:
            win.show_error("Choose the column that holds the ticket text.")
            return None
        axes = [axis for axis in win.axes if fields is None or axis.name in fields]
        if not axes:
            return None
        win.clear_error()
        if not win.session.asked:
            win.session.load()
        if win.run_panel.labels_first and not exact and win.fields.current in [axis.name for axis in axes]:
            return self._start_labels_first(fresh, limit, [axis.name for axis in axes if axis.name != win.fields.current])
        texts = win.texts[:limit] if limit else win.texts
        if not exact:   # a run may score those rows again in low precision (fresh): settled no more
            self.settling.scored_again(axis.name for axis in axes)
        run_id = win.worker.run(texts, win.axes, win.remembered.run_settings(), fresh, win.remembered.cleaning,
                                [axis.name for axis in axes], exact, self._taught([axis.name for axis in axes]))
        self.latest = Run(run_id, self.generation, {axis.name: axis.label_set for axis in axes}, fresh, limit,
                          running=True, exact=dict(exact or {}))
        self._asked_with = self._asked_now()
        win.run_panel.start(len(texts))
        win.statusBar().showMessage(self._running_line())
        win.update_actions()
        return run_id

    def _start_labels_first(self, fresh: bool, limit: int | None, rest: list[str]) -> int | None:
        """The current field answered from the person's labels first (ui/labels_first.py); the rest of the
        fields asked for run as any run does once it has ended."""
        win = self.window
        started = win.labels_first.start(limit)
        if started is None:
            return None
        run_id, axis = started
        self._after = rest
        self.settling.forget([axis])      # labels_first settles what it answers itself
        self.latest = Run(run_id, self.generation, {axis: win.axes.named(axis).label_set}, fresh,
                          limit, running=True, now=(axis,), started=1, labels_first=True)
        self._asked_with = self._asked_now()
        win.run_panel.start(len(win.texts[:limit] if limit else win.texts))
        win.statusBar().showMessage(f"Labels first: the model reads your labelled tickets of {axis}…{self._then()}")
        win.update_actions()
        return run_id

    def _taught(self, fields: list[str]) -> dict:
        """Per field its learning has taught, what it weighs answers by (a, b x P): a checked low precision
        reads its answers with them, so fewer go back to float32 (engine/checked.py, Weighed)."""
        learned = {axis: self.window.model.answers_of(axis).learned for axis in fields}
        return {axis: one.part for axis, one in learned.items() if one is not None and one.part is not None}

    def _running_line(self) -> str:
        """Running…, or with several fields which: the run panel's numbers are theirs."""
        run, now = self.latest, self.latest.now
        if run.exact:
            rows = sum(map(len, run.exact.values()))
            return f"Scoring {rows:,} answer(s) again in float32: their low-precision scores were too close to call…"
        then = self._then()
        if len(now) > 1:
            return f"Running {_and(now)} in one pass{self._why_float32()}…{then}"
        if not now or len(self.window.axes) == 1:
            return f"Running…{then}"
        if len(run.fields) == 1:
            return f"Running {now[0]}…{then}"
        return f"Running {now[0]} (field {run.started} of {len(run.fields)})…{then}"

    def _then(self) -> str:
        """What runs once this run has ended, said after it."""
        again = f" Then {_and(self._again)} again (labels edited)." if self._again else ""
        after = [axis for axis in self._after if axis not in self._again]
        return again + (f" Then {_and(after)}, read by the model as usual." if after else "")

    def _why_float32(self) -> str:
        """A checked low precision runs a pass in float32 (engine/checked.float32_twins): said, as it is
        not the model's dtype."""
        info = self.window.session.info
        dtype = info.dtype if info is not None else ""
        return f", in float32 (faster than each field alone in {dtype})" if dtype.endswith("-checked") else ""

    def cancel(self) -> None:
        """Stop after the batch in flight; a run asked for again is not started (the person said stop)."""
        self._again, self._after = [], []
        if self.running:
            self.window.worker.cancel()
            self.window.run_panel.finish("cancelling after this batch…")
            self.window.statusBar().showMessage("Cancelling after the current batch…")
        elif self.verifying:
            self.window.worker.cancel()
            self.window.statusBar().showMessage("Stopping verify after the current model pass…")

    def skip(self) -> None:
        """The person's labels answer as well as the model: stop it; learning answers what it did not reach."""
        if self.running:
            self.latest.skipped = True
            self.cancel()

    def worth_again(self) -> bool:
        """After a label edit: the run goes on, or had finished; one the person stopped stays stopped."""
        return self.running or (self.ended_how == "done" and not self.latest.skipped)

    def again(self, fields: list[str]) -> None:
        """A run of fields (those whose labels were edited) on their label sets as they are now: results
        stored for what the edit left alone come back from the store, and only what it changed is scored.
        A run in flight goes on with every other field (their answers do not depend on the edit); what
        it has left of these is dropped, stale, and they run once it has ended, as the status line says.
        Their answers so far were scored on the labels before the edit: they go now, and each comes back
        as the run scores it, so a run stopped part way never shows (nor exports) old answers among new."""
        self._forget_answers(fields)
        if not self.running:
            self.start(limit=self.latest.limit, fields=fields)
            return
        self._again += [axis for axis in fields if axis not in self._again]
        self.window.worker.drop(self.latest.id, fields)
        self.window.statusBar().showMessage(self._running_line())

    def _forget_answers(self, fields: list[str]) -> None:
        model = self.window.model
        with model.resetting():
            for axis in fields:
                model.answers_of(axis).clear_predictions()      # the person's labels stay

    def settle(self, axis: str, rows: list[int]) -> None:
        """Learning's answers on these rows of a field rest on low-precision scores closer than their drift:
        a short run scores them in float32 (every other row comes back from the store) and learning
        follows it. Only after a run that finished; asked while one goes, it waits for its end. Which
        rows each settling run takes is run/settling.py's to say."""
        if self.window.model.answers_of(axis).labels_first:
            return      # labels_first settled its answers; a settling run would read every ticket it left
        self.settling.ask(axis, rows)
        self._settle_next()

    def _settle_next(self) -> None:
        if self.running or self.ended_how != "done" or self.latest.skipped:
            return
        found = self.settling.next(self.window.model.axes)
        if found is not None:
            axis, rows = found
            self.start(limit=self.latest.limit, fields=[axis], exact={axis: rows})

    def no_model(self) -> None:
        """The model the run or verify waited for failed to load: the run never started (not "cancelled"),
        nor the verify (the worker skips both: the load's failure is the one message)."""
        self._again, self._after = [], []
        self._verify_ended(self.verifying, failed=True)
        if self.running:
            self.window.worker.cancel()
            self.latest.running, self.latest.waiting = False, True
            self.window.run_panel.finish("did not start: no model loaded")
            self.window.statusBar().showMessage("The run did not start: no model is loaded.", 10_000)
            self.ended.emit("failed")
        self.window.update_actions()

    def start_waiting(self) -> None:
        """The run that waited for a model, on the model now loading; forgotten when none waited."""
        waiting, self.latest.waiting = self.latest.waiting, False
        if waiting and self.window.table is not None:
            self.start(self.latest.fresh, self.latest.limit, list(self.latest.fields))

    def verify(self, probes: int) -> None:
        win = self.window
        if win.table is None:
            win.show_error("Open a ticket file first: verify checks a spread of its tickets.")
            return
        if not win.session.asked:
            win.session.load()
        win.run_panel.show_verifying(probes)
        # the fast path batched as RunConfig() does, not at the remembered batch size: as it always was here
        settings = dataclasses.replace(win.remembered.run_settings(), run=RunConfig())
        self.verifying = win.worker.verify(win.texts, win.axes, win.fields.current, settings, probes)
        self._asked = (self.verifying, self._asked[1])
        win.update_actions()

    def preview_prompt(self, row: int | None) -> None:
        """The prompt as the model reads it, for this row's ticket (cleaned as a run would clean it)."""
        win = self.window
        ticket = clean(win.texts[row], win.remembered.cleaning) if row is not None and win.texts else ""
        request = win.worker.preview_prompt(win.axes, win.fields.current, ticket, win.remembered.run_settings())
        self._asked = (self._asked[0], request)

    # what the worker says
    def _owns(self, run_id: int, axes) -> bool:
        names = self.window.model.names_of
        # any: a pass goes on for its fields whose labels were not edited meanwhile
        return any(self.latest.owns(run_id, self.generation, axis, names(axis)) for axis in axes)

    def _as_asked(self, axis: str) -> bool:
        """The labels the field's prompt reads are those the run was asked with: a description edited
        meanwhile (the names the same), of this field or of one its prompt names (direct-fields), leaves
        the batches still on their way stale (again)."""
        method, reads = self._asked_with
        return axis in reads and prompt_reads(self.window.axes, method).get(axis) == reads[axis]

    def _asked_now(self) -> tuple[str, dict]:
        method = self.window.remembered.method
        return method, prompt_reads(self.window.axes, method)

    def _started(self, run_id: int) -> None:
        if run_id == self.latest.id:
            self.window.statusBar().showMessage(self._running_line())

    def _fields_started(self, fields) -> None:
        """The worker moved on to these fields: the ones before are done, and the run panel starts over."""
        run = self.latest
        if fields.run_id != run.id or not run.running:
            return
        for axis in run.now:
            self.window.learning.run_done(axis)
        run.now, run.started = tuple(fields.names), run.started + len(fields.names)
        texts = self.window.texts
        self.window.run_panel.start(len(texts[:run.limit] if run.limit else texts))
        self.window.statusBar().showMessage(self._running_line())

    def _batch_done(self, batch) -> None:
        if self._owns(batch.run_id, [batch.axis]) and self._as_asked(batch.axis):
            self.window.model.apply_predictions(batch.predictions, batch.axis)
            self.window.summary.schedule()
            self.window.learning.batch_scored(batch.axis, [p.index for p in batch.predictions])

    def _progress(self, progress) -> None:
        if self._owns(progress.run_id, self.latest.now):
            self.window.run_panel.update_progress(progress)
            if not self.latest.labels_first:     # the offer to stop the model is for a run of every ticket
                self.window.learning.run_progress(progress)
            bar = self.window.statusBar()
            if not bar.currentMessage():    # a passing message has gone: what runs is said again
                bar.showMessage(self._running_line())

    def _finished(self, run_id: int) -> None:
        self._end(run_id, "done")

    def _cancelled(self, run_id: int) -> None:
        self._end(run_id, "cancelled")

    def _failed(self, request: int, message: str) -> None:
        if request in self._asked:     # the latest verify or prompt preview: a message, nothing ends
            self._verify_ended(request, failed=True)
            self.window.show_error(message)
        else:
            self._end(request, "failed", message)

    def _verify_progress(self, progress) -> None:
        if self.verifying:
            self.window.run_panel.show_verify_progress(progress)

    def _verify_done(self, report) -> None:
        self._verify_ended(self.verifying)
        self.window.statusBar().showMessage(self.window.run_panel.show_verify(report), 10_000)

    def _verify_ended(self, request: int, failed: bool = False) -> None:
        if request and request == self.verifying:
            self.verifying = 0
            if failed:      # its "Verifying…" would stay, as if it went on
                self.window.run_panel.verify_failed()
            self.window.update_actions()

    def _end(self, run_id: int, how: str, message: str = "") -> None:
        if not self.latest.end(run_id):   # a stale end, or ended already (its model failed)
            return
        win, run = self.window, self.latest
        if run.generation != self.generation:
            self._end_unseen(how)
            return
        if how == "done":
            self.settling.ran(run.exact)
            for axis in ([] if run.labels_first else [axis for axis in run.fields if axis in win.model.axes]):
                win.model.run_ended(axis)      # a run that read every row ends a labels-first run's marks
        ended = run.now or tuple(run.fields)[:1]
        self.settling.forget(ended)       # asked on their scores so far: the retrain that follows asks again
        for axis in ended:
            win.learning.run_done(axis)
        # the fields it ran last (fields removed meanwhile left out; all of them: the fields it ran before),
        # the slowest says how far it got; never a field it did not run (one added meanwhile is current)
        kept = [axis for axis in run.now if axis in win.model.axes] or \
            [axis for axis in run.fields if axis in win.model.axes]
        answered = [win.model.answers_of(axis) for axis in kept]
        model = min(answered, key=lambda a: a.rows_answered) if answered else win.model.answers_of(None)
        self.ended_how = how
        line = win.run_panel.show_end(how, model.rows_answered)
        if run.skipped:
            line = (f"The model stopped after {model.rows_answered:,} tickets: your labels answer "
                    f"the {model.rows - model.rows_answered:,} it did not reach.")
        if run.said and how == "done":
            line = run.said[1]      # the whole sentence stands under the answer picker; the bar holds a short one
            win.run_panel.show_labels_first(*run.said)
        if how == "failed":
            win.show_error(message)
        else:
            win.statusBar().showMessage(line, 10_000)
        win.update_actions()
        win.summary.refresh()
        self.ended.emit(how)
        fields = self._again + [axis for axis in self._after if axis not in self._again]
        self._again, self._after = [], []
        if fields and how == "done":     # a failed run says why; the person runs again once it is mended
            self.start(limit=run.limit, fields=[axis for axis in fields if axis in win.model.axes])
        self._settle_next()

    def _end_unseen(self, how: str) -> None:
        """A run of rows no longer shown (another file or text column came): nothing of it is said, as its
        count would be of the new rows, and the panel is as before any run of them."""
        for axis in self.latest.now or tuple(self.latest.fields)[:1]:
            self.window.learning.run_done(axis)     # its offer to stop the model goes
        self.window.run_panel.clear()
        self.window.update_actions()
        self.ended.emit(how)


def _and(names) -> str:
    """queue; queue and priority; queue, priority and type."""
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]

"""A labels-first run on the engine's thread: run/labels_first.py, the command line's own function, with
the language model's part scored through the results store and reported as any run's.

labels_first() asks for scores twice (the person's labelled tickets, then the tickets their labels leave
unsure) and, on a checked low precision, once more for answers to settle in float32: each time the rows
are scored as a run scores them (run/job.py, the store first), and every batch goes out as the engine
worker's batch_done and progress, so the table and the run panel follow it as they follow any run. Cancel
and closing are the engine worker's: between two batches the run stops, and what was shown stays.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot

from triage_app.ui.background.failures import one_line
from triage_app.ui.background.worker import RunBatch, RunProgress


@dataclass(frozen=True, slots=True)
class LabelsFirstDone:
    run_id: int
    field: str
    found: object        # run/labels_first.LabelsFirst: every row's answer, what the model read, how many unsure
    names: list          # the label names it answered with


class _Stopped(Exception):
    """Cancel or close came between two batches."""


class LabelsFirstWorker(QObject):
    """Lives on the engine's thread, beside the engine worker whose model and signals it uses."""

    _requested = Signal(int, object, object, str, object, object, object, object, object)

    said = Signal(int, str)          # run id, one line: what the run does now (scoring the labelled, the unsure)
    answered = Signal(object)        # LabelsFirstDone, just before the engine worker's finished

    def __init__(self, engine):
        """engine: the EngineWorker on the same thread."""
        super().__init__()
        self.engine = engine
        self._requested.connect(self._run)

    def run(self, texts: list[str], axes, field: str, settings, cleaning, labels: dict[int, str], embeddings,
            similarity) -> int:
        """Answer field labels first: labels {row: label} the person's, embeddings [N, D] the texts' sentence
        embeddings (None: learning reads words), similarity the encoder's part (a learn.LabelSimilarity;
        None: none). Returns the run id the engine worker's signals carry."""
        request = self.engine.new_request()
        self._requested.emit(request, list(texts), axes, field, settings, cleaning, dict(labels), embeddings,
                             similarity)
        return request

    @Slot(int, object, object, str, object, object, object, object, object)
    def _run(self, run_id, texts, axes, field, settings, cleaning, labels, embeddings, similarity):
        from triage_app.files.clean import TextCleaning, model_texts
        from triage_app.learn import TicketFeatures
        from triage_app.run.labels_first import labels_first

        from triage_app.ui.background.results_db import STORE_ERRORS

        engine = self.engine
        if not engine.serving(run_id):
            engine.cancelled.emit(run_id)
            return
        cleaning, store = cleaning or TextCleaning(), None
        try:
            classifier = engine.field_classifier(axes, field, settings)
            engine.started.emit(run_id)
            store = engine.db.open()
            features = TicketFeatures(texts, embeddings)
            blank = [row for row, text in enumerate(model_texts(texts, cleaning)) if not text.strip()]

            def score(rows: list[int], exact: bool = False) -> list:
                return self._scored(run_id, field, classifier, store, texts, rows, settings, cleaning, exact)

            self.said.emit(run_id, f"Labels first: the model reads your {len(labels):,} labelled tickets…")
            found = labels_first(features, classifier.label_set.names, labels, score, similarity, blank=blank,
                                 settle=lambda rows: score(rows, exact=True),
                                 log=lambda line: self.said.emit(run_id, line[0].upper() + line[1:]))
        except _Stopped:
            engine.cancelled.emit(run_id)
            return
        except STORE_ERRORS as exc:
            engine.db.give_up_on(exc)
            engine.failed.emit(run_id, "the run stopped: the results database failed; Run again to go on without it")
            return
        except Exception as exc:
            engine.failed.emit(run_id, one_line("the labels-first run stopped", exc))
            return
        finally:
            if store is not None:
                store.close()
        self.answered.emit(LabelsFirstDone(run_id, field, found, list(classifier.label_set.names)))
        engine.finished.emit(run_id)

    def _scored(self, run_id: int, field: str, classifier, store, texts: list[str], rows: list[int], settings,
                cleaning, exact: bool) -> list:
        """The language model's predictions of these rows (each index: its row), as a run scores them (the
        store first); exact: float32's own. Every batch is shown as it comes."""
        from triage_app.run.job import run_job

        out = []
        steps = run_job(classifier, store, [texts[r] for r in rows], settings.run, cleaning=cleaning,
                        exact=range(len(rows)) if exact else ())
        try:
            for step in steps:
                found = [dataclasses.replace(p, index=rows[p.index]) for p in step.predictions]
                out += found
                if found:
                    self.engine.batch_done.emit(RunBatch(run_id, found, field))
                self.engine.progress.emit(RunProgress(run_id, step.rows_done, step.rows_total, step.resumed,
                                                      dataclasses.replace(step.stats)))
                if self.engine.stopping(run_id):
                    raise _Stopped
        finally:
            steps.close()
        return out

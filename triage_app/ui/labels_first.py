"""Labels first in the window (issue 34, item 6): a way of answering the file chosen on the run panel, beside
the run of every ticket. The person's labels, learned on the sentence encoder's embeddings, answer every
ticket; the language model reads only the tickets they label and those the labels leave under SURE
(run/labels_first.py, the command line's own function, on the engine's thread: background/labels_first.py).

It is offered once the current field has labels of the person's on two labels at least and every ticket is
embedded, and says why not until then. A run of it answers the current field; the table marks the rows the
model read (table/cell_roles.READ_MARK, exported as read_by_model) and the run panel says how many.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from triage_app.engine.config import LABELS_FIRST_SURE as SURE   # run/labels_first.SURE, without its torch
from triage_app.ui.background.labels_first import LabelsFirstWorker


class LabelsFirst(QObject):
    def __init__(self, window):
        """window: the MainWindow whose run panel, learning, embedding and worker this follows."""
        super().__init__(window)
        self.window = window
        self.worker = LabelsFirstWorker(window.worker)     # on the engine's thread: its model, one request at a time
        self.worker.moveToThread(window.engine.thread)
        self.answered_field = None      # the field the run panel's line about a labels-first run is about
        self.worker.said.connect(self._said)
        self.worker.answered.connect(self._answered)
        for change in (window.learning.changed, window.embedding.handed, window.embedding.halted,
                       window.embedding.encoder_changed,
                       window.tickets.axis_changed, window.file_loaded, window.labelling.changed):
            change.connect(self.refresh)
        self.refresh()

    def why_not(self) -> str:
        """Why the current field cannot be answered labels first now; "" when it can."""
        win = self.window
        if win.table is None or not win.ticket_count:
            return "open a file first."
        axis = win.fields.current
        labelled = win.model.answers_of(axis).person_labels
        if len(set(labelled.values())) < 2:
            return (f"label a few tickets of {axis if len(win.axes) > 1 else 'this file'} first, on two labels "
                    f"at least ({len(labelled)} so far).")
        if win.embedding.on_words:
            return ""       # learning reads words, as the command line's labels first does without an encoder
        if win.embedding.halt and not win.embedding.complete:
            return (f"every ticket must be embedded first, and the embedding {win.embedding.halt}: Run (the model "
                    "reading every ticket) goes on with it, and so does opening the file again.")
        if not win.embedding.complete or win.learning.lives.get(axis) is None \
                or win.learning.lives[axis].encoded() is None:
            return "waiting for every ticket to be embedded (the model panel shows how far)."
        return ""

    def refresh(self, *_) -> None:
        win = self.window
        if win.running:
            return
        field = self.answered_field
        if field is not None and (field not in win.model.axes or win.model.answers_of(field).read_by_model() is None):
            # an edit of its labels dropped what the model read: the line about it would point at nothing
            self.answered_field = None
            win.run_panel.forget_labels_first()
        win.run_panel.offer_labels_first(self.why_not())

    def start(self, limit: int | None):
        """A labels-first run of the current field (ui/running.py asks); returns (run id, field), or None
        where it cannot run now (said on the message bar)."""
        win, why = self.window, self.why_not()
        if why:
            win.show_error(f"Labels first cannot run yet: {why}")
            return None
        axis = win.fields.current
        embeddings, similarity = (None, None) if win.embedding.on_words else win.learning.lives[axis].encoded()
        labels = win.model.answers_of(axis).person_labels
        texts = win.texts[:limit] if limit else win.texts
        if limit:
            embeddings = None if embeddings is None else embeddings[:limit]
            similarity = None if similarity is None else type(similarity)(similarity.scores[:limit],
                                                                          similarity.prototypes)
            labels = {row: label for row, label in labels.items() if row < limit}
        win.model.start_labels_first(axis)
        run_id = self.worker.run(texts, win.axes, axis, win.remembered.run_settings(), win.remembered.cleaning,
                                 labels, embeddings, similarity)
        return run_id, axis

    def _said(self, run_id: int, line: str) -> None:
        if run_id == self.window.latest.id and self.window.running:
            self.window.statusBar().showMessage(line)

    def _answered(self, done) -> None:
        """The run's answers: learn()'s as labels_first gave them, shown at once (the retrain that follows
        the run's end gives the same), and how many tickets the model read."""
        win = self.window
        run = win.latest
        if done.run_id != run.id or not run.owns(done.run_id, win.runs.generation, done.field,
                                                  win.model.names_of(done.field)):
            return
        found = done.found
        win.model.apply_learned(found.learned, done.field)
        self.answered_field = done.field
        read, rows = int(found.read.sum()), len(found.read)
        sent = (f"{read - found.unsure:,} you labelled, {found.unsure:,} your labels were under {100 * SURE:g}% sure "
                "of" if not found.not_sent else f"the {read:,} you labelled")
        held = (f" The {found.not_sent:,} of those under {100 * SURE:g}% sure were not sent: on your labels, "
                "cross-validated, the model's scores count for nothing, so its reading would change no answer."
                if found.not_sent else "")
        run.said = (f"Labels first: the language model read {read:,} of {rows:,} tickets ({sent}); your labels "
                    f"answered the other {rows - read:,} (◆ marks the ones the model read).{held}",
                    f"Done: the model read {read:,} of {rows:,} tickets")

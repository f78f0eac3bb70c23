"""The window's side of the sentence encoder: each open file's tickets embedded once, handed to learning.

A file opened (or another text column) is sent to the embedder on the engine's thread
(background/embedding.py), which steps aside for every run, verify or model load and goes on after it;
its progress and the encoder's name show on the model panel. Once every ticket has its vector, learning
gets them in row order (LearningSession.set_embeddings), and each field's label set is embedded too
(names, descriptions, examples: set_label_vectors), again after every edit of it. Cancel stops the
embedding with the run or verify; Run picks it up again. Without an encoder, learning goes on with
words, as the model panel says.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from triage_app.engine.config import BUNDLED_ENCODER, NO_ENCODER
from triage_app.learn.language import encoder_advice


class Embedding(QObject):
    handed = Signal()       # learning has the open file's vectors
    halted = Signal()       # the file's embedding stopped (Cancel) or failed before every ticket had its vector
    encoder_changed = Signal()  # none chosen, or the encoder did not load: learning reads what it has

    def __init__(self, window):
        """window: the MainWindow, whose texts, fields, learning and model panel this follows."""
        super().__init__(window)
        self.window = window
        self.embedder = window.engine.embedder
        self.request = 0            # the open file's embedding request (0: none)
        self.busy = False           # that request is in flight
        self.complete = False       # learning has its vectors
        self._texts: list[str] = []
        self._cleaning = None       # the text cleaning the open file's request embeds with
        self._encoder = chosen_encoder(window.remembered)   # bundled, or a folder: what the embedder loads
        self.kept = False           # learning holds vectors of the open file (from this encoder or an earlier one)
        self._asked: dict[str, list[str]] = {}  # field -> the label names its latest vectors were asked for
        self._pending = 0           # label-vector requests not answered yet
        self.refused = self._encoder == NO_ENCODER     # no encoder: learning uses words, Run does not ask again
        self.halt = ""              # why the open file's embedding is not going on ("" while it is, or done)
        e, panel = self.embedder, window.model_panel
        # bound methods of objects on the UI thread: they run there, never on the engine's
        e.encoder_loaded.connect(self._encoder_loaded)
        e.encoder_failed.connect(self._encoder_failed)
        e.progress.connect(self._progress)
        e.embedded.connect(self._embedded)
        e.stopped.connect(self._stopped)
        e.failed.connect(self._failed)
        e.label_vectors.connect(self._label_vectors)
        window.labels_panel.changed.connect(self.labels_changed)
        window.session.configured.connect(self._settings_changed)
        self.embedder.use_encoder(self._encoder)
        panel.show_encoder_chosen(self._encoder)

    def file_opened(self, texts: list[str]) -> None:
        """A new file or text column: its tickets are embedded (what the results database holds is read)."""
        self.kept = False
        self._embed_again(texts)

    def _embed_again(self, texts: list[str]) -> None:
        self._texts, self.complete, self._asked, self._pending, self.halt = list(texts), False, {}, 0, ""
        advice = encoder_advice(texts) if self._encoder == BUNDLED_ENCODER else ""   # another was chosen
        self.window.model_panel.suggest_encoder(advice and f"{advice} Settings ▸ Sentence encoder takes its folder.")
        if self._encoder == NO_ENCODER:
            self._words_chosen()
        elif self._texts:       # no text column chosen: nothing to embed
            self._start()

    def resume(self) -> None:
        """A run asked: an embedding cancelled earlier goes on behind it."""
        if self._texts and not (self.complete or self.busy or self.refused):
            self._start()

    @property
    def on_words(self) -> bool:
        """No encoder (none chosen, or it did not load) and no earlier vectors: learning reads words (TF-IDF)."""
        return self.refused and not self.kept

    @property
    def settled(self) -> bool:
        """Learning has the file's vectors and every field's label vectors asked for: nothing more of the
        encoder's will make it retrain until the next edit."""
        return self.complete and not self._pending

    def cancel(self) -> None:
        """Stop the embedding after the batch in flight (what is stored stays): said stopped at once, as
        nothing of it is shown again."""
        if self.busy:
            self.busy = False
            self.embedder.cancel()
            self.window.update_actions()

    def labels_changed(self, *_) -> None:
        """Every field's label set embedded (again) and handed to its learning, which starts over from
        the label set after an edit: a few texts per label, cheaper than telling which field changed."""
        if not self.complete or self.refused:   # refused: kept vectors, but no encoder for the labels'
            return
        for axis in self.window.axes:
            self._asked[axis.name] = list(axis.names)
            self._pending += 1
            self.embedder.embed_labels(axis.name, axis.label_set)

    def _settings_changed(self) -> None:
        """Another encoder, or another text cleaning: the tickets are embedded again, by that encoder, as the
        model now reads them (a cleaned text the results database holds this encoder's vector of is read back).
        Until then learning goes on with the vectors it has, and without the old encoder's label vectors."""
        remembered, chosen = self.window.remembered, chosen_encoder(self.window.remembered)
        # refused: tried again (none is never refused, only chosen)
        another = chosen != self._encoder or (self.refused and chosen != NO_ENCODER)
        if another:
            self._encoder, self.refused = chosen, False
            self.embedder.use_encoder(self._encoder)
            self.window.learning.forget_label_vectors()
            self.window.model_panel.show_encoder_chosen(self._encoder)
        if chosen == NO_ENCODER:        # nothing to embed, whatever the cleaning
            if another:
                self.window.model_panel.suggest_encoder("")     # no encoder reads them: none to suggest instead
                self._words_chosen()
        elif self._texts and (another or remembered.cleaning != self._cleaning):
            self._embed_again(self._texts)

    def _words_chosen(self) -> None:
        """None chosen: decided here, never queued behind a run or a model load (a Cancel meanwhile would
        read as embedding stopped); learning reads words, and the earlier encoder's vectors go."""
        if self.busy:
            self.embedder.cancel()
        self.request, self.busy, self.refused, self.kept, self.complete, self.halt = 0, False, True, False, False, ""
        self._asked, self._pending = {}, 0      # label vectors still on their way are the earlier encoder's
        self.window.learning.forget_embeddings()
        self.window.model_panel.show_encoder_chosen(NO_ENCODER)     # hides an earlier encoder's bar
        self.window.update_actions()
        self.encoder_changed.emit()

    def _start(self) -> None:
        self._cleaning = self.window.remembered.cleaning
        self.request = self.embedder.embed(self._texts, self._cleaning)
        self.busy, self.halt = True, ""
        self.window.update_actions()      # Cancel stops it

    def _progress(self, progress) -> None:
        if progress.request == self.request:
            self.window.model_panel.show_embedding(progress)

    def _embedded(self, result) -> None:
        if result.request != self.request:
            return
        self.busy, self.complete, self.kept = False, True, True
        self.window.learning.set_embeddings(self._texts, result.vectors)
        kept = f" ({result.total - result.fresh:,} kept from before)" if result.fresh < result.total else ""
        self.window.model_panel.show_embedded(f"All {result.total:,} tickets embedded{kept}",
                                              "Your labels teach the rest by meaning, not only by shared words")
        self.window.update_actions()
        self.labels_changed()
        self.handed.emit()

    def _stopped(self, request: int) -> None:
        if request == self.request:
            self.busy, self.halt = False, "was stopped (Cancel)"
            self.window.model_panel.show_embedded("Embedding stopped: Run goes on with it",
                                                  "Until every ticket is embedded, learning uses words (TF-IDF)")
            self.window.update_actions()
            self.halted.emit()

    def _failed(self, request: int, message: str) -> None:
        if request == self.request:
            self.busy, self.halt = False, f"failed ({message})"
            self.window.model_panel.show_embedded("Embedding failed: learning uses words", message)
            self.window.show_error(f"The tickets could not be embedded ({message}): learning uses words (TF-IDF) instead.")
            self.window.update_actions()
            self.halted.emit()

    def _encoder_loaded(self, info) -> None:
        if info.spec == self._encoder:      # not one chosen before, answering late
            self.window.model_panel.show_encoder(info)

    def _encoder_failed(self, spec: str, message: str) -> None:
        if spec != self._encoder:
            return
        if spec == NO_ENCODER:      # chosen, not a failure (decided on this thread: the worker never says so)
            self._words_chosen()
            return
        self.busy, self.refused = False, True
        self.complete = self.kept   # what learning goes on with is every ticket's, as labels first needs
        goes_on = ("learning goes on with the earlier encoder's vectors" if self.kept
                   else "learning uses words (TF-IDF) instead")
        self.window.model_panel.show_encoder_failed(message, goes_on)
        self.window.show_error(f"The sentence encoder was not loaded ({message}): {goes_on}.")
        self.window.update_actions()
        self.encoder_changed.emit()

    def _label_vectors(self, found) -> None:
        self._pending = max(0, self._pending - 1)
        if found.vectors is None or self._asked.get(found.axis) != found.names:
            return      # edited since: the vectors of the set as it is now are on their way
        self.window.learning.set_label_vectors(found.axis, found.vectors, found.names)


def chosen_encoder(remembered) -> str:
    """The encoder Settings names: bundled, none, or a folder (a blank setting, edited by hand, is the
    bundled one)."""
    return remembered.encoder.strip() or BUNDLED_ENCODER

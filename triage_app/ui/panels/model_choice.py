"""The model picker, and what is loaded where (device, dtype) as detected or chosen; under it the
sentence encoder, the second model, that learning reads each ticket with, and its progress through the file."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QGroupBox, QHBoxLayout, QLabel, QProgressBar,
                               QPushButton, QVBoxLayout)

from triage_app.engine import models
from triage_app.engine.config import BUNDLED_ENCODER, NO_ENCODER
from triage_app.ui.panels.wrapped import show_wrapped

QWEN = "qwen2.5-0.5b"
SMOLLM2 = models.SMOLLM2
CHOICES = (
    (QWEN, "Qwen2.5-0.5B-Instruct (recommended; downloads once)"),
    (SMOLLM2, "SmolLM2-135M (bundled, offline, lower accuracy)"),
)
NOT_DOWNLOADED = {QWEN: "Qwen2.5-0.5B-Instruct (recommended; not downloaded yet)"}
ENCODER = "all-MiniLM-L6-v2"      # the sentence encoder named before it loads (engine/encoder.py MINILM)
ENCODER_TIP = ("Reads each ticket once, so that your labels teach the rest by meaning, not by shared words; "
               "the vectors are kept with the file's results. Settings ▸ Sentence encoder chooses another.")
_FOLDER, _GGUF = "<folder>", "<gguf>"


class ModelPanel(QGroupBox):
    load_requested = Signal(str)      # a model spec: alias, folder or .gguf path

    def __init__(self, parent=None):
        super().__init__("Model", parent)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.picker = QComboBox()
        for spec, text in CHOICES:
            self.picker.addItem(text, spec)
        self.picker.insertSeparator(self.picker.count())
        self.picker.addItem("A local model folder…", _FOLDER)
        self.picker.addItem("A GGUF file…", _GGUF)
        self.picker.activated.connect(self._picked)
        # its longest entry set the side column's narrowest width, wider than the window gives it, so the
        # column was cut at the right: the box shortens its entry when narrow, the list shows each whole
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(24)
        self.picker.view().setTextElideMode(Qt.TextElideMode.ElideNone)
        self.picker.view().setMinimumWidth(self.picker.view().sizeHintForColumn(0))
        row.addWidget(self.picker, 1)
        self.load_button = QPushButton("Load")
        self.load_button.clicked.connect(lambda: self.load_requested.emit(self.spec))
        row.addWidget(self.load_button)
        layout.addLayout(row)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)          # no percentage to give: the loaders don't report one
        self.busy.setMaximumHeight(10)
        self.busy.setTextVisible(False)
        self.busy.hide()
        layout.addWidget(self.busy)
        self.status = QLabel("No model loaded.")
        self.status.setWordWrap(True)
        # rich, always: its lines are escaped (a path with & or '), and a line without a tag read as plain
        # showed the escapes ("R&amp;D")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.status)
        self.encoder = QLabel()
        self.encoder.setWordWrap(True)
        self.encoder.setTextFormat(Qt.TextFormat.PlainText)     # a refusal names a path
        layout.addWidget(self.encoder)
        self.embedding = QProgressBar()
        self.embedding.setMaximumHeight(14)
        self.embedding.hide()
        layout.addWidget(self.embedding)
        self.show_encoder_chosen(BUNDLED_ENCODER)
        self.language = QLabel()                # a file mostly not in English: the encoder that suits it
        self.language.setWordWrap(True)
        self.language.setTextFormat(Qt.TextFormat.PlainText)
        self.language.hide()
        layout.addWidget(self.language)
        self._spec = QWEN
        self.picked_by_user = False       # the picker was used: a Load then is the user's choice to remember

    @property
    def spec(self) -> str:
        return self._spec

    def set_spec(self, spec: str) -> None:
        self._spec = spec
        k = self.picker.findData(spec)
        if k < 0:
            self.picker.insertItem(self.picker.count() - 3, Path(spec).name, spec)
            k = self.picker.findData(spec)
        self.picker.setCurrentIndex(k)

    def start_on_a_local_model(self, wanted: str) -> str:
        """Start on the remembered model if it is here, else on the bundled one: a first run works
        offline. The remembered choice stays the user's, so it is used once it is in the cache."""
        start = models.first_available([wanted])
        self.set_spec(start)
        if not models.is_local(wanted):
            self.mark_not_downloaded(wanted)
        if start != wanted:
            # a folder or GGUF file picked earlier was moved or deleted: "not on this computer yet" read as
            # a download to come
            missing = "is not where it was (moved or deleted)" if Path(wanted).is_absolute() else \
                f"is not on {models._THIS_MACHINE} yet"
            self.show_note(f"{_model_name(wanted)} {missing}: starting on the bundled {_model_name(SMOLLM2)}.")
        return start

    def mark_not_downloaded(self, spec: str) -> None:
        """The entry says the model is not on this machine yet (a Load will try to download it)."""
        k = self.picker.findData(spec)
        if k >= 0 and spec in NOT_DOWNLOADED:
            self.picker.setItemText(k, NOT_DOWNLOADED[spec])

    def show_note(self, text: str) -> None:
        """A plain line under the picker, until a model loads or fails."""
        self.status.setText(html.escape(text))
        self.status.setStyleSheet("")

    def show_loading(self, spec: str) -> None:
        self.busy.show()
        self.load_button.setEnabled(False)
        self.status.setText(html.escape(f"Loading {_model_name(spec)} in the background…"))
        self.status.setStyleSheet("")

    def show_loaded(self, info) -> None:
        self.busy.hide()
        k = self.picker.findData(info.spec)
        if k >= 0 and info.spec in NOT_DOWNLOADED:     # here now: its entry no longer says it is not
            self.picker.setItemText(k, dict(CHOICES)[info.spec])
        self.load_button.setEnabled(True)
        self.status.setText(f"<b>{html.escape(info.name)}</b><br>on {info.device}, {info.dtype} — "
                            f"{html.escape(info.reason)}")
        self.status.setStyleSheet("")

    def show_failed(self, message: str) -> None:
        self.busy.hide()
        self.load_button.setEnabled(True)
        self.status.setText(html.escape(f"Not loaded: {message}"))
        self.status.setStyleSheet("color: #a00;")

    # the sentence encoder
    def show_encoder_chosen(self, spec: str) -> None:
        """Before it loads: the bundled encoder by name, or the folder chosen in Settings."""
        if spec == NO_ENCODER:
            self.embedding.hide()       # a bar of the earlier encoder's would say the tickets are embedded
            self._encoder_line("Sentence encoder: none (Settings): your labels teach by shared words (TF-IDF).")
            return
        named = ENCODER if spec == BUNDLED_ENCODER else f"{models.name_of(Path(spec))} ({spec})"
        self._encoder_line(f"Sentence encoder: {named}, loads when a file is opened.")

    def show_encoder(self, info) -> None:
        """info: the embedder's EncoderInfo (name, where its files came from and how they were checked)."""
        self._encoder_line(f"Sentence encoder: {info.name} ({info.source})")

    def _encoder_line(self, line: str) -> None:
        self.encoder.setText(line)
        self.encoder.setToolTip(ENCODER_TIP)
        self.encoder.setStyleSheet("")

    def show_embedding(self, progress) -> None:
        """progress: an EmbeddingProgress over the file's distinct tickets."""
        rate = f", {progress.per_s:.0f} tickets/s" if progress.per_s else ""
        self.embedding.setRange(0, max(progress.total, 1))
        self.embedding.setValue(progress.done)
        self.embedding.setFormat(f"Embedding tickets: {progress.done:,} / {progress.total:,}{rate}")
        self.embedding.show()

    def show_embedded(self, line: str, tip: str = "") -> None:
        """The file's embedding ended (every ticket, or stopped): the bar stays where it got to and says
        how, in a line short enough for it; tip: the longer story."""
        self.embedding.setFormat(line)
        self.embedding.setToolTip(tip)
        self.embedding.show()

    def show_encoder_failed(self, message: str, goes_on: str) -> None:
        """message: why (its tooltip); goes_on: what learning reads instead."""
        self.embedding.hide()
        self.encoder.setText(f"Sentence encoder: not loaded. {goes_on[0].upper()}{goes_on[1:]}.")
        self.encoder.setToolTip(message)
        self.encoder.setStyleSheet("color: #a00;")

    def suggest_encoder(self, line: str) -> None:
        """One line under the encoder ("" hides it)."""
        show_wrapped(self.language, line)

    def _picked(self, k: int) -> None:
        data = self.picker.itemData(k)
        if data == _FOLDER:
            path = QFileDialog.getExistingDirectory(self, "A model folder (config.json, tokenizer, weights)")
        elif data == _GGUF:
            path, _ = QFileDialog.getOpenFileName(self, "A GGUF model file", "", "GGUF models (*.gguf)")
        else:
            self._spec = data
            self.picked_by_user = True
            return
        if path:
            self.set_spec(path)
            self.picked_by_user = True
        else:
            self.set_spec(self._spec)


def _model_name(spec: str) -> str:
    """What a user calls a model: Qwen2.5-0.5B-Instruct, not qwen2.5-0.5b or Qwen/Qwen2.5-0.5B-Instruct;
    SmolLM2-135M, not smollm2-135m; a folder or file by its name."""
    if spec == SMOLLM2:
        return "SmolLM2-135M"
    return Path(models.ALIASES.get(spec, spec)).name

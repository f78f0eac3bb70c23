"""What the window remembers between sessions, and the settings dialog that overrides detection."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from triage_app.engine.config import (BUNDLED_ENCODER, DEFAULT_BATCH_SIZE, DEFAULT_METHOD, DEFAULT_MODEL, NO_ENCODER,
                                      DEFAULT_TOKEN_BUDGET, DEVICES, DTYPES, METHODS, ModelChoice, RunConfig,
                                      RunSettings, Scoring)
from triage_app.engine.axes import Axes
from triage_app.engine.labels import LabelSet
from triage_app.files.clean import STEPS, TextCleaning

SETTINGS_FILE_ENV = "TRIAGE_SETTINGS_FILE"   # an .ini path; tests and portable installs set it


def open_settings() -> QSettings:
    path = os.environ.get(SETTINGS_FILE_ENV)
    if path:
        settings = QSettings(path, QSettings.Format.IniFormat)
    else:
        settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Triage", "Triage")
    # the label set holds example tickets, customers' words: a folder of our own, readable by the user only
    folder = os.path.dirname(settings.fileName())
    if folder and not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    return settings


@dataclass(slots=True)
class Remembered:
    last_folder: str = ""
    label_set: str = ""          # the label set as JSON, every axis of it ("" = the default set)
    model: str = DEFAULT_MODEL
    model_loaded_before: bool = False   # load it in the background at start-up
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = DEFAULT_BATCH_SIZE
    token_budget: int = DEFAULT_TOKEN_BUDGET
    method: str = DEFAULT_METHOD
    allow_download: bool = True
    cleaning_steps: str = " ".join(TextCleaning().steps)   # the steps on, space-separated ("" = none)
    encoder: str = BUNDLED_ENCODER      # the sentence encoder: the bundled one, or a folder the person picked
    geometry: bytes = b""
    splitter: bytes = b""
    # a line per value that went back to its default at load, naming the file, the value and why: said
    # where the window starts, never written back
    reverted: list[str] = field(default_factory=list, compare=False, metadata={"kept": False})

    @classmethod
    def load(cls, settings: QSettings) -> Remembered:
        out = cls()
        for f in _kept(cls):
            default = getattr(out, f.name)
            if not settings.contains(f.name):
                continue
            kind, value = type(default), settings.value(f.name)
            if kind is bytes:
                value = value.data() if isinstance(value, QByteArray) else value
                setattr(out, f.name, bytes(value) if isinstance(value, (bytes, bytearray)) else b"")
            elif kind is str:     # written by hand without quotes, a value with commas reads as a list
                setattr(out, f.name, ", ".join(map(str, value)) if isinstance(value, list) else str(value or ""))
            elif kind is int:     # QSettings reads "abc" or "3.7" as 0: said as written instead
                try:
                    setattr(out, f.name, int(str(value).strip()))
                except ValueError:
                    out.reverted.append(f"{settings.fileName()}: {f.name}: {str(value)!r} is not a whole number; "
                                        "the default is used")
            else:
                setattr(out, f.name, settings.value(f.name, default, type=kind))
        return out._checked(settings.fileName())

    def _checked(self, file: str) -> Remembered:
        """A value the engine's settings refuse (an older version's, or a hand-edited file) goes back to
        its default, and a line in reverted says so: the bounds are checked where the settings are made
        (engine/config.py, engine/labels.py), not here; and a batch size or token budget the dialog
        does not offer, which its spin box cannot hold (or would change on OK without a word)."""
        default = type(self)()
        for names, check in ((("model",), lambda: ModelChoice(self.model)),
                             (("device", "dtype"), lambda: self.model_choice(DEFAULT_MODEL)),
                             (("method",), lambda: Scoring(method=self.method)),
                             (("batch_size", "token_budget"), lambda: self.run_settings()),
                             (("batch_size",), lambda: _offered(self.batch_size, BATCH_SIZES_OFFERED)),
                             (("token_budget",), lambda: _offered(self.token_budget, TOKEN_BUDGETS_OFFERED)),
                             (("label_set",), lambda: self.axes)):
            try:
                check()
            except ValueError as exc:
                kept = _keep_unread(file, self.label_set) if names == ("label_set",) else ""
                self.reverted.append(f"{file}: {' and '.join(names)}: {' '.join(str(exc).splitlines())}; "
                                     f"the default is used{kept}")
                for name in names:
                    setattr(self, name, getattr(default, name))
        return self

    def model_choice(self, spec: str) -> ModelChoice:
        """spec placed as remembered; raises ValueError on a choice the engine cannot take."""
        return ModelChoice(spec, self.device, self.dtype, self.allow_download)

    def run_settings(self) -> RunSettings:
        """What a run, verify or prompt preview is built from; raises ValueError on a bad value. Its
        model is left at the default: the worker builds on the model it holds (engine.build.classifier_for)."""
        return RunSettings(scoring=Scoring(method=self.method),
                           run=RunConfig(batch_size=self.batch_size, token_budget=self.token_budget))

    @property
    def axes(self) -> Axes:
        """The label set kept, every axis of it; the default one where none was. A plain set is kept as
        today's JSON, so an older version still reads it. Raises ValueError on one that does not read
        (load has put the default in its place)."""
        return Axes.from_json(self.label_set) if self.label_set else Axes.of(LabelSet.default())

    @axes.setter
    def axes(self, axes: Axes) -> None:
        self.label_set = json.dumps(axes.to_dict(), ensure_ascii=False)

    @property
    def cleaning(self) -> TextCleaning:
        """The text cleaning the model reads tickets through; a step this version lacks means the default."""
        try:
            return TextCleaning.from_steps(self.cleaning_steps.split())
        except ValueError:
            return TextCleaning()

    @cleaning.setter
    def cleaning(self, cleaning: TextCleaning) -> None:
        self.cleaning_steps = " ".join(cleaning.steps)

    def save(self, settings: QSettings) -> None:
        for f in _kept(self):
            value = getattr(self, f.name)
            settings.setValue(f.name, QByteArray(value) if isinstance(value, bytes) else value)
        settings.sync()
        keep_private(settings.fileName())


def _keep_unread(file: str, label_set: str) -> str:
    """A remembered label set that no longer reads, kept beside the settings file, for a person to mend and
    load (Labels ▸ Load…): the default set takes its place, and a later save would lose it. Says where."""
    path = os.path.join(os.path.dirname(file), "label_set-unread.json")
    try:
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(label_set)
    except OSError:
        return ""
    keep_private(path)
    return f" (the one remembered is kept in {path})"


def _kept(remembered) -> list:
    """The fields kept in the settings file."""
    return [f for f in fields(remembered) if f.metadata.get("kept", True)]


def keep_private(path: str) -> None:
    """Mode 0600 (later syncs keep it: QSaveFile copies the old file's mode); a failure is not fatal."""
    try:
        os.chmod(path, 0o600)
    except OSError:
        pass


class SettingsDialog(QDialog):
    """Device, dtype and batch settings; 'auto' keeps what was detected."""

    def __init__(self, remembered: Remembered, detected: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        form = QFormLayout(self)
        detected_label = QLabel(detected or "not yet (when a model loads)")
        detected_label.setWordWrap(True)
        form.addRow("Detected:", detected_label)
        self.device = _combo(DEVICES, remembered.device)
        self.dtype = _combo(DTYPES, remembered.dtype)
        self.batch_size = _spin(*BATCH_SIZES_OFFERED, remembered.batch_size)
        self.token_budget = _spin(*TOKEN_BUDGETS_OFFERED, remembered.token_budget)
        self.method = _combo(METHODS, remembered.method)
        self.method.setToolTip("channel (recommended): scores each label by how likely the ticket is under it; "
                               "slower (one pass per ticket and label), far more accurate with small models. "
                               "direct: one pass per ticket, faster.")
        self.allow_download = QCheckBox("Download the recommended model when it is not on this machine")
        self.allow_download.setChecked(remembered.allow_download)
        form.addRow("Device:", self.device)
        form.addRow("Dtype:", self.dtype)
        form.addRow("Batch size (rows):", self.batch_size)
        form.addRow("Token budget (rows × tokens):", self.token_budget)
        form.addRow("Scoring:", self.method)
        form.addRow(self.allow_download)
        # one box per cleaning step: what the model reads; the table and the export keep the originals
        steps = QWidget()
        steps_layout = QVBoxLayout(steps)
        steps_layout.setContentsMargins(0, 0, 0, 0)
        on = remembered.cleaning.steps
        self.cleaning = {}
        for name, description in STEPS.items():
            box = QCheckBox(description[0].upper() + description[1:])
            box.setChecked(name in on)
            self.cleaning[name] = box
            steps_layout.addWidget(box)
        form.addRow("Clean the text:", steps)
        form.addRow("Sentence encoder:", self._encoder_row(remembered.encoder))
        note = QLabel("Device and dtype changes apply when the model is loaded again.")
        note.setWordWrap(True)
        form.addRow(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def apply_to(self, remembered: Remembered) -> bool:
        """Write the choices into remembered; True if the model must be loaded again (placed anew)."""
        reload = (self.device.currentText(), self.dtype.currentText()) != (remembered.device, remembered.dtype)
        remembered.device = self.device.currentText()
        remembered.dtype = self.dtype.currentText()
        remembered.batch_size = self.batch_size.value()
        remembered.token_budget = self.token_budget.value()
        remembered.method = self.method.currentText()
        remembered.allow_download = self.allow_download.isChecked()
        remembered.cleaning = TextCleaning.from_steps(name for name, box in self.cleaning.items() if box.isChecked())
        remembered.encoder = self.encoder.text().strip() or BUNDLED_ENCODER
        return reload

    def _encoder_row(self, encoder: str) -> QWidget:
        """The encoder learning reads tickets with: "bundled", or a folder (Folder... picks one)."""
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        self.encoder = QLineEdit(encoder)
        self.encoder.setPlaceholderText(BUNDLED_ENCODER)
        self.encoder.setToolTip(f"{BUNDLED_ENCODER}: all-MiniLM-L6-v2, English. {NO_ENCODER}: your labels teach by shared "
                                "words (TF-IDF). Or a folder holding another sentence encoder, e.g. "
                                "paraphrase-multilingual-MiniLM-L12-v2 for tickets not in English.")
        pick = QPushButton("Folder…")
        pick.clicked.connect(self._pick_encoder)
        layout.addWidget(self.encoder, 1)
        layout.addWidget(pick)
        return row

    def _pick_encoder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A sentence encoder's folder")
        if folder:
            self.encoder.setText(folder)


# what the dialog offers: a range a person may want, inside what the engine accepts (engine/config.py)
BATCH_SIZES_OFFERED = (1, 512)
TOKEN_BUDGETS_OFFERED = (64, 65536)


def _offered(value: int, offered: tuple[int, int]) -> None:
    low, high = offered
    if not low <= value <= high:
        raise ValueError(f"{value:,} is outside what Settings offers ({low:,} to {high:,})")


def _combo(items, current) -> QComboBox:
    box = QComboBox()
    box.addItems(list(items))
    box.setCurrentText(current)
    return box


def _spin(low, high, value) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    return box

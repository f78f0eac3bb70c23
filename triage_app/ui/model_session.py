"""The model the engine worker holds, as the window sees it: none, loading, loaded or failed.

Loads go through the worker (a load cannot be interrupted, so it never runs on the UI thread) and
show on the model panel; the window hears only `busy`, `ready` and `failed`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from triage_app.ui.panels.model_choice import ModelPanel
from triage_app.ui.settings import Remembered, SettingsDialog


class ModelSession(QObject):
    busy = Signal()                 # a load was asked for or began: Load waits until it ends
    ready = Signal(object)          # the worker's ModelInfo
    failed = Signal(str, bool)      # one line, and whether to offer the bundled model (a Hub model not here)
    configured = Signal()           # the settings dialog was accepted (the text cleaning may have changed)

    def __init__(self, worker, panel: ModelPanel, remembered: Remembered, parent=None):
        super().__init__(parent)
        self.worker, self.panel, self.remembered = worker, panel, remembered
        self.info = None            # the worker's ModelInfo, once a model is loaded
        self.loading = False
        # bound methods of this object (it lives on the UI thread), so they run there, not on the worker's
        worker.model_loading.connect(self._loading)
        worker.model_loaded.connect(self._loaded)
        worker.model_failed.connect(self._failed)
        worker.model_not_downloaded.connect(self._not_downloaded)
        panel.load_requested.connect(lambda spec: self.load(spec, remember=panel.picked_by_user))

    @property
    def asked(self) -> bool:
        """A model is loaded or on its way: a request sent now is served by it."""
        return self.info is not None or self.loading

    def load(self, spec: str | None = None, remember: bool = True) -> None:
        """spec: the panel's when None (then not remembered). remember: the spec becomes the model to
        start on next time (an explicit pick, not a stand-in)."""
        if spec is None:
            spec, remember = self.panel.spec, False
        self.panel.set_spec(spec)
        if remember:
            self.remembered.model = spec
        try:
            choice = self.remembered.model_choice(spec)
        except ValueError as exc:   # refused where it is made: said as a load that failed
            self._failed(str(exc))
            return
        self.loading = True
        self.busy.emit()
        self.worker.load_model(choice)

    def configure(self, parent) -> bool:
        """The settings dialog; a placement changed there loads the model again. True: settings accepted."""
        info = self.info
        dialog = SettingsDialog(self.remembered, f"{info.device}, {info.dtype} — {info.reason}" if info else "", parent)
        if not dialog.exec():
            return False
        if dialog.apply_to(self.remembered) and info is not None:
            self.load(info.spec, remember=False)   # the same model, placed anew
        self.configured.emit()
        return True

    def adopt(self, loaded) -> None:
        """An engine model loaded elsewhere (tests, and callers that loaded one themselves)."""
        self.loading = True
        self.worker.use_model(loaded)

    def _loading(self, spec: str) -> None:
        self.loading = True
        self.panel.show_loading(spec)
        self.busy.emit()

    def _loaded(self, info) -> None:
        self.loading, self.info = False, info
        self.remembered.model_loaded_before = True
        self.panel.show_loaded(info)
        self.ready.emit(info)

    def _failed(self, message: str) -> None:
        self._none(message)
        self.failed.emit(f"The model could not be loaded: {message}", False)

    def _not_downloaded(self, failure) -> None:
        """A Hub model not on this machine and not fetchable now: said as it is, the bundled one offered."""
        self._none(str(failure))
        self.panel.mark_not_downloaded(failure.spec)
        self.failed.emit(str(failure), True)

    def _none(self, message: str) -> None:
        self.loading, self.info = False, None
        self.remembered.model_loaded_before = False
        self.panel.show_failed(message)

"""Shared pieces of the window tests: real files, a window per test, real drops."""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QObject, QPointF, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

# What app.main does before Qt runs: the engine's modules are imported here, on the main thread,
# so the worker's lazy imports never race the UI thread through PySide's import hook.
import triage_app.engine.verify  # noqa: E402,F401
import triage_app.files.embeddings  # noqa: E402,F401
import triage_app.run.job  # noqa: E402,F401

SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample_tickets.csv"


def sample_rows() -> list[dict]:
    with SAMPLE.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_slice(folder: Path, n: int, start: int = 0, name: str | None = None) -> Path:
    """The sample's rows start..start+n as a CSV file of their own."""
    rows = sample_rows()[start:start + n]
    path = folder / (name or f"tickets_{start}_{n}.csv")
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def settings_file(tmp_path, monkeypatch):
    path = tmp_path / "settings" / "triage.ini"
    monkeypatch.setenv("TRIAGE_SETTINGS_FILE", str(path))
    return path


@pytest.fixture
def make_window(qtbot, tmp_path, settings_file):
    """MainWindow(s) on this test's own settings file and results database, and the GIL handed over
    between the window's threads as app.main has it."""
    from triage_app.ui.app import UI_SWITCH_INTERVAL_S
    from triage_app.ui.window import MainWindow

    made = []
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)

    def make(**kwargs):
        kwargs.setdefault("store_path", tmp_path / "results.sqlite3")
        window = MainWindow(**kwargs)
        qtbot.addWidget(window)
        window.show()
        made.append(window)
        return window

    yield make
    for window in made:
        window.shutdown()
    from triage_app.ui.background.worker import EngineThread

    # a test that closed a busy window leaves its engine running on a shared model: wait for it here
    try:
        assert EngineThread.wait_outliving(120_000), "an engine thread never stopped"
    finally:
        sys.setswitchinterval(switch_interval)


def open_file(qtbot, window, path, timeout=20_000):
    with qtbot.waitSignal(window.file_loaded, timeout=timeout):
        window.open_file(path)


def drop_files(window, *paths) -> None:
    """What the OS does when files are dropped on the window: drag enter, then drop."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    centre = window.rect().center()
    enter = QDragEnterEvent(QPointF(centre), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(centre), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


class Relay(QObject):
    """A worker signal, seen on this (the main) thread.

    PySide queues a worker signal only to a QObject's own slots; a plain function or lambda
    connected to it runs on the worker's thread. qtbot.waitSignal connects such a function:
    when the signal comes before the wait's event loop starts, the quit is lost and the
    timeout timer is stopped from the wrong thread, and the test hangs for ever (seen here);
    a test's function that touches widgets there crashes the process. Tests wait on, and
    react to, the relay's signal instead.
    """

    received = Signal(object)

    def __init__(self, signal):
        super().__init__()
        self.seen: list = []
        signal.connect(self._forward)

    @Slot(object)
    def _forward(self, value) -> None:
        self.seen.append(value)
        self.received.emit(value)


def with_model(qtbot, window, loaded, timeout=30_000) -> None:
    loaded_relay = Relay(window.worker.model_loaded)
    with qtbot.waitSignal(loaded_relay.received, timeout=timeout):
        window.use_model(loaded)


def run_and_wait(qtbot, window, timeout=120_000, **kwargs) -> str:
    with qtbot.waitSignal(window.run_ended, timeout=timeout) as blocker:
        assert window.run(**kwargs) is not None
    return blocker.args[0]


DOCS_SHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def save_shot(widget, name: str, tmp_path: Path) -> Path:
    """A screenshot to look at: in the test's own folder, or in docs/screenshots with TRIAGE_SHOTS=1
    (a test run never changes a tracked file unless asked to)."""
    folder = DOCS_SHOTS if os.environ.get("TRIAGE_SHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    assert widget.grab().save(str(path))
    return path


class Ticks:
    """The event loop's longest stall: a 5 ms timer's gaps while something runs on another thread."""

    def __init__(self):
        self.times = []
        self.timer = QTimer(interval=5)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))

    def __enter__(self):
        self.start = time.perf_counter()
        self.timer.start()
        return self

    def __exit__(self, *_):
        self.timer.stop()
        gaps = np.diff([self.start, *self.times])
        self.line = f"longest stall {1000 * gaps.max():.0f} ms, 99th percentile {1000 * np.percentile(gaps, 99):.0f} ms"

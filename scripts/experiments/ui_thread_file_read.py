"""The UI thread's own CPU as a big file appears: MainWindow._file_read and the parts it calls, in thread CPU
time (time.thread_time), and what the reader left for the UI thread's collections to walk.

Opens the row-limit JSON (499,000 short tickets, scripts/experiments/file_load_stalls.py's json499k) in the
window, the sentence encoder's embedding off (measured apart), three times; then times a young and a middle
collection on the UI thread, as ui_thread_gc's timer would run them.

Usage: QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/experiments/ui_thread_file_read.py [name]
"""
from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("TRIAGE_SETTINGS_FILE", str(Path(tempfile.mkdtemp()) / "triage.ini"))
os.environ.setdefault("TRIAGE_DATA_DIR", tempfile.mkdtemp(prefix="triage-data-"))
sys.path.insert(0, str(Path(__file__).parent))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import file_load_stalls  # noqa: E402
from triage_app.review.answers import FileAnswers  # noqa: E402
from triage_app.ui.learning.live import LiveLearning  # noqa: E402
from triage_app.ui.window import MainWindow  # noqa: E402

spent: dict[str, float] = {}


def timed(owner, name: str, label: str) -> None:
    """Adds the thread CPU time of every call of owner.name on the UI thread to spent[label]."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.thread_time() - start
    setattr(owner, name, wrapper)


def collection_ms(generation: int) -> float:
    start = time.thread_time()
    gc.collect(generation)
    return 1000 * (time.thread_time() - start)


def open_once(window: MainWindow, path: Path) -> str:
    spent.clear()
    loaded, loop = [], QEventLoop()
    window.file_loaded.connect(lambda _: (loaded.append(1), loop.quit()))
    window.open_file(path)
    QTimer.singleShot(120_000, loop.quit)
    loop.exec()
    window.file_loaded.disconnect()
    counts, tracked = gc.get_count(), len(gc.get_objects())
    young, middle = collection_ms(0), collection_ms(1)
    parts = ", ".join(f"{label} {1000 * s:.0f} ms" for label, s in spent.items())
    return (f"{parts}; then gc counts {counts}, {tracked:,} tracked objects, a young collection {young:.0f} ms, "
            f"a middle one {middle:.0f} ms; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    app = QApplication.instance() or QApplication([])
    from triage_app.ui.embedding import Embedding
    Embedding.file_opened = lambda self, texts: None
    timed(MainWindow, "_file_read", "_file_read")
    timed(FileAnswers, "clear", "FileAnswers.clear")
    timed(LiveLearning, "set_file", "LiveLearning.set_file")
    path = file_load_stalls.make(file_load_stalls.NAMES[sys.argv[1] if len(sys.argv) > 1 else "json499k"])
    gc.freeze()
    window = MainWindow(store_path=Path(tempfile.mkdtemp()) / "results.sqlite3")
    window.show()
    for attempt in range(3):
        print(open_once(window, path), flush=True)
    window.shutdown()

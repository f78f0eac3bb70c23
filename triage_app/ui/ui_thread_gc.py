"""Python's cyclic garbage collected on the UI thread only.

An automatic collection runs on whichever thread happens to allocate when a generation fills up. On the
engine's thread (a model loading, tickets embedding) it once collected a closed window's widgets: their
destructors ran there, the UI thread meanwhile destroyed a widget of its own, and each waited for a lock
the other held (a test run hung for good; the engine thread was in torch's Module.__init__, the UI
thread in ~QWidget). Qt objects must die on their own thread. So once a window exists, automatic
collection is off and a timer on the UI thread collects instead, a generation at a time, when Python's
own thresholds say it would have (the recipe pyqtgraph's GarbageCollector uses).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer

INTERVAL_MS = 1000
BIG_FILE_ROWS = 100_000      # a file of this many rows or more has its objects frozen once it is kept


class UiThreadCollector(QObject):
    def __init__(self, app: QCoreApplication):
        super().__init__(app)
        self.thresholds = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(INTERVAL_MS)

    def check(self) -> None:
        """Collect what an enabled collector would have collected by now, youngest generation first."""
        counts = gc.get_count()
        for generation in range(3):
            if counts[generation] <= self.thresholds[generation]:
                return
            gc.collect(generation)


_collector: UiThreadCollector | None = None


def install() -> UiThreadCollector:
    """From the UI thread, once a QApplication exists; safe to call again."""
    global _collector
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        raise RuntimeError("the UI thread's collector is installed from the UI thread, once Qt runs")
    if _collector is None:
        _collector = UiThreadCollector(app)
    return _collector


def file_kept(rows: int) -> None:
    """A file just read and kept by the window: when it is big, what exists now is frozen (gc.freeze, a moment
    whatever its size), so no collection on the UI thread walks its lists of texts again. Walking one of
    half a million texts touched every string, 30-70 ms per collection as a big file appeared
    (docs/files.md). Its price: cyclic garbage that exists at this moment is never collected. What refcounting
    frees (the previous file's texts among it) is freed as ever."""
    if rows >= BIG_FILE_ROWS:
        gc.freeze()


def check() -> None:
    """Collect now what is due, where the collector runs (the tests call it between tests)."""
    if _collector is not None:
        _collector.check()

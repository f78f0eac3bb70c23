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
BULK = 100_000              # young objects: a thread building something big (a file's records, as it reads)
MOST_DEFERRED = 10          # timer ticks a growing bulk waits at most, so a loop making cycles is still collected
BIG_FILE_ROWS = 100_000      # a file of this many rows or more has its objects frozen once it is kept


class UiThreadCollector(QObject):
    def __init__(self, app: QCoreApplication):
        super().__init__(app)
        self.thresholds = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.young, self.deferred = 0, 0
        self.timer.timeout.connect(self.tick)
        self.timer.start(INTERVAL_MS)

    def tick(self) -> None:
        """The timer's check, deferred while the young generation is bulk and still growing: another thread
        is building something it keeps (a big file's records), and a collection that walked it held the UI
        thread every second while a big JSON was read (measured: docs/files.md)."""
        young = gc.get_count()[0]
        growing = young > BULK and young > self.young and self.deferred < MOST_DEFERRED
        self.young, self.deferred = young, self.deferred + 1 if growing else 0
        if not growing:
            self.check()

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
    whatever its size), so no collection on the UI thread walks its lists of texts again: each walk of half a
    million texts was a stall as a big file appeared (measured: docs/files.md). Its price: cyclic garbage that
    exists at this moment is never collected. What refcounting frees (the previous file's texts among it, and
    a language model replaced later: transformers' models hold no reference cycles) is freed as ever."""
    if rows >= BIG_FILE_ROWS:
        gc.freeze()


def check() -> None:
    """Collect now what is due, where the collector runs (the tests call it between tests)."""
    if _collector is not None:
        _collector.check()

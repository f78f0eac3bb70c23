"""How long the window's event loop waits while the sentence encoder loads for the first time in the
process (issue 34: 1.6-4 s measured as a file opened).

A fresh process per reading, started as app.main starts the window (the engine's modules imported
first, the modules' objects frozen), no language model loaded. A 5 ms QTimer's gaps from open_file
until the window has the file's vectors; a sampler thread notes, for each gap over 50 ms, what every
thread was doing (the innermost frames, ours or not), to say where it went.

STALLS_IMPORT_ENCODER=1: the sentence encoder's modules imported with the engine's, before the window.

Usage: QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/experiments/encoder_load_stalls.py [ROUNDS] [MODE ...] [FILE]
FILE: the helpdesk sample's 1,183 tickets by default (every vector waited for); another file (e.g.
scripts/experiments/file_load_stalls.py's /tmp/triage-stalls/csv200k.csv) is measured up to its first
timed batches.
MODE: cold (the encoder's first load as the file opens, the default), warm (loaded before the window),
apart (the file opened first, its embedding asked for once all is quiet), none (no embedding: the
file's opening alone, until learning's features are fitted and 2 s more; its "while the encoder loads"
is that whole time). Each reading is a subprocess of its own (the encoder loads once per
process), the modes alternated round by round; prints a few lines a reading.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TICKETS = ROOT / "resources" / "helpdesk_tickets.csv"


def main_thread_state() -> tuple[str, int]:
    """The main thread's scheduler state (R: on a core or waiting for one; S: asleep, e.g. waiting for
    the GIL) and its CPU ticks so far, from /proc: a stall spent computing or spent waiting."""
    fields = Path(f"/proc/self/task/{os.getpid()}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[0], int(fields[11]) + int(fields[12])


class Sampler(threading.Thread):
    """Every 10 ms: when the main thread has not ticked for 50 ms, every thread's innermost frames, and
    the main thread's state and CPU ticks (10 ms each) over the stall."""

    def __init__(self, ticks: list[float]):
        super().__init__(daemon=True)
        self.ticks, self.main, self.seen, self.stop = ticks, threading.main_thread().ident, {}, False
        self.states: dict[str, int] = {}
        self.cpu = 0            # the main thread's CPU ticks spent inside stalls

    def run(self):
        last = main_thread_state()[1]
        while not self.stop:
            time.sleep(0.01)
            state, cpu = main_thread_state()
            stalled = self.ticks and time.perf_counter() - self.ticks[-1] > 0.05
            if stalled:
                self.cpu += cpu - last
            last = cpu
            if stalled:
                self.states[state] = self.states.get(state, 0) + 1
                for ident, frame in sys._current_frames().items():
                    if ident == self.ident:
                        continue
                    where = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in traceback.extract_stack(frame)][-4:]
                    key = ("main  " if ident == self.main else "other ") + " < ".join(reversed(where))
                    self.seen[key] = self.seen.get(key, 0) + 1


class Ticks:
    """A 5 ms timer's tick times on the main thread, with the sampler that explains its gaps."""

    def __init__(self, QTimer):
        self.times: list[float] = []
        self.timer = QTimer(interval=5)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))
        self.sampler = Sampler(self.times)

    def start(self) -> float:
        self.sampler.start()
        self.times.append(time.perf_counter())
        self.timer.start()
        return self.times[0]

    def stop(self) -> None:
        self.timer.stop()
        self.sampler.stop = True

    def longest(self, start: float, end: float) -> float:
        """The longest gap, in ms, that begins in [start, end)."""
        import numpy as np

        times = np.array(self.times)
        gaps = np.diff(times)
        inside = (times[:-1] >= start) & (times[:-1] < end)
        return 1000 * float(gaps[inside].max()) if inside.any() else 0.0


def idle_ms(app, QTimer, seconds: float = 2.0) -> float:
    """The longest gap while nothing of ours runs: what the machine's load alone costs the window."""
    ticks = Ticks(QTimer)
    start = ticks.start()
    while time.perf_counter() - start < seconds:
        app.processEvents()
        time.sleep(0.001)
    ticks.stop()
    return ticks.longest(start, start + seconds)


def wait(app, done, timeout: float = 300.0) -> None:
    end = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > end:
            raise TimeoutError("waited too long")
        app.processEvents()
        time.sleep(0.001)


def one_round(mode: str, tickets: Path) -> None:
    """cold: the file opened as the window opens it, the encoder loading for the first time as it does;
    apart: the file opened first (embedding held back), then, once all is quiet, its embedding asked for,
    so the encoder's load is measured alone; warm: as cold, the encoder loaded before the window."""
    folder = Path(tempfile.mkdtemp(prefix="triage-encoder-stalls-"))
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ["TRIAGE_SETTINGS_FILE"] = str(folder / "triage.ini")
    os.environ["TRIAGE_DATA_DIR"] = str(folder)
    from triage_app.ui import app as app_module

    app_module._import_engine()
    if os.environ.get("STALLS_IMPORT_ENCODER"):     # what app._import_engine is asked to add (issue 34)
        import triage_app.files.embeddings  # noqa: F401
    from PySide6.QtCore import QObject, QTimer, Slot
    from PySide6.QtWidgets import QApplication

    from triage_app.ui.window import MainWindow

    class Marks(QObject):
        """When the window heard of the encoder and of the vectors (slots: run on the main thread)."""

        def __init__(self):
            super().__init__()
            self.loaded = self.handed = 0.0

        @Slot(object)
        def named(self, _info) -> None:
            self.loaded = self.loaded or time.perf_counter()

        @Slot()
        def vectors(self) -> None:
            self.handed = time.perf_counter()

        @Slot(object)
        def progress(self, progress) -> None:
            if progress.per_s and not self.handed:   # two batches timed: the job's own preparation is past
                self.handed = time.perf_counter()

    app = QApplication.instance() or QApplication([])
    if mode == "warm":
        from triage_app.engine.encoder import SentenceEncoder
        SentenceEncoder.bundled()
    gc.freeze()     # as app.main does before its window
    window = MainWindow(store_path=folder / "results.sqlite3", autoload=False)
    window.show()
    app.processEvents()
    idle = idle_ms(app, QTimer)
    marks = Marks()
    window.engine.embedder.encoder_loaded.connect(marks.named)
    window.embedding.handed.connect(marks.vectors)
    if os.environ.get("STALLS_FIRST_BATCHES"):     # a big file: up to its first batches, not every vector
        window.engine.embedder.progress.connect(marks.progress)
    load = os.getloadavg()[0]
    ticks = Ticks(QTimer)
    if mode == "apart":
        held: list = []
        embed, window.embedding.file_opened = window.embedding.file_opened, held.append
        window.open_file(tickets)
        wait(app, lambda: held and window.learning.thread.pool.activeThreadCount() == 0)
        settled = time.perf_counter() + 1.0
        wait(app, lambda: time.perf_counter() > settled)     # the table drawn, the summary counted
        start = ticks.start()
        embed(held[0])
    elif mode == "none":
        window.embedding.file_opened = lambda texts: None
        start = ticks.start()
        window.open_file(tickets)
        wait(app, lambda: window.table is not None and window.learning.thread.pool.activeThreadCount() == 0)
        settled = time.perf_counter() + 2.0
        wait(app, lambda: time.perf_counter() > settled)
        marks.loaded = marks.handed = time.perf_counter()
    else:
        start = ticks.start()
        window.open_file(tickets)
    wait(app, lambda: marks.handed)
    ticks.stop()
    loading = ticks.longest(start, marks.loaded)
    embedding = ticks.longest(marks.loaded, marks.handed)
    print(f"{mode}: longest stall while the encoder loads {loading:.0f} ms (named after {marks.loaded - start:.1f} s), "
          f"while it embeds {embedding:.0f} ms (vectors after {marks.handed - start:.1f} s); idle before "
          f"{idle:.0f} ms; load {load:.2f} ({time.strftime('%H:%M:%S', time.gmtime())} UTC)")
    sampler = ticks.sampler
    print(f"  main thread during stalls: states {sampler.states}, {10 * sampler.cpu} ms CPU")
    for key, n in sorted(sampler.seen.items(), key=lambda kv: -kv[1])[:8]:
        print(f"    {n:4d} {key}")
    window.shutdown()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        one_round(sys.argv[2], Path(sys.argv[3]))
    else:
        tickets = next((Path(a) for a in sys.argv[1:] if a.endswith((".csv", ".json"))), TICKETS)
        if tickets != TICKETS:
            os.environ["STALLS_FIRST_BATCHES"] = "1"
        modes = [a for a in sys.argv[1:] if a in ("cold", "warm", "apart", "none")] or ["cold"]
        for _ in range(int(next((a for a in sys.argv[1:] if a.isdigit()), 3))):
            for mode in modes:      # alternated, so the machine's load falls on each alike
                subprocess.run([sys.executable, __file__, "--one", mode, str(tickets)], check=True, cwd=ROOT)

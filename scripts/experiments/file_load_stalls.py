"""How long the window's event loop waits while a big file loads and learning prepares its features.

A 5 ms QTimer's gaps, from open_file until the table shows the file and the learning thread is idle
(its TicketFeatures fitted), as tests/test_ui_learning.py measures a retrain. A sampler thread notes
what the main thread and the others were doing when a gap passed 50 ms, to say where it went, and
every 20 ms the CPU time each of the process's threads has used (/proc/self/task): a gap in which our
threads used far less CPU than its length was the machine's other jobs, not ours.
The files are made once under /tmp/triage-stalls: CSVs of 200,000 short and 499,000 long tickets,
a JSON list of 200,000 tickets and one of 499,000 short tickets (tests/test_ui_big_file.py's, at the row limit).

Usage: QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/experiments/file_load_stalls.py [--no-embedding]
[csv200k csv499s csv499k json json499k]; --no-embedding: the sentence encoder does not embed the file meanwhile
(its load and its cleaning of the texts are stalls of their own, measured apart); --profile: the UI
thread's own calls from open_file to the end, by their own time (cProfile: that thread only; Qt's C++
work is in the Python call that started it, e.g. the event loop's exec).
"""
from __future__ import annotations

import cProfile
import gc
import json
import os
import pstats
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TRIAGE_SETTINGS_FILE", str(Path(tempfile.mkdtemp()) / "triage.ini"))
os.environ.setdefault("TRIAGE_DATA_DIR", tempfile.mkdtemp(prefix="triage-data-"))

from triage_app.ui.app import UI_SWITCH_INTERVAL_S, _import_engine  # noqa: E402

_import_engine()    # as app.main, before Qt: the engine's and the encoder's modules imported on this thread

import numpy as np  # noqa: E402
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

FILES = Path("/tmp/triage-stalls")
NAMES = {"csv200k": "csv200k.csv", "csv499k": "csv499k.csv", "csv499s": "csv499s.csv", "json": "json200k.json",
         "json499k": "json499k.json"}
WORDS = ("invoice charged twice refund order shipping delayed parcel password reset login account locked "
         "card declined upgrade plan cancel subscription broken screen warranty replacement address").split()


def ticket(k: int, words: int) -> str:
    rng = np.random.default_rng(k)
    return f"Ticket {k}: " + " ".join(rng.choice(WORDS, words)) + f" order {k * 7}"


def make(name: str) -> Path:
    FILES.mkdir(exist_ok=True)
    path = FILES / name
    if path.exists():
        return path
    if name == "json499k.json":      # as tests/test_ui_big_file.py writes it
        path.write_text(json.dumps({"tickets": [{"id": k, "text": f"Ticket {k}: the invoice for order {k * 7} was "
                                                 f"charged twice on card {k % 97}", "queue": WORDS[k % 5]}
                                                for k in range(499_000)]}))
        return path
    if name == "csv200k.csv":
        rows, words = 200_000, 8
    elif name == "csv499k.csv":
        rows, words = 499_000, 55
    elif name == "csv499s.csv":
        rows, words = 499_000, 8
    else:
        rows, words = 200_000, 40
    rng = np.random.default_rng(0)
    vocabulary = np.array(WORDS + [f"w{k}" for k in range(20_000)])
    texts = [f"Ticket {k}: " + " ".join(vocabulary[rng.integers(0, len(vocabulary), words)]) for k in range(rows)]
    if name.endswith(".json"):
        path.write_text(json.dumps([{"id": k, "text": t, "queue": WORDS[k % 5]} for k, t in enumerate(texts)]))
    else:
        with path.open("w", encoding="utf-8") as f:
            f.write("id,text,queue\n")
            for k, t in enumerate(texts):
                f.write(f"{k},{t},{WORDS[k % 5]}\n")
    return path


class Sampler(threading.Thread):
    """Every 10 ms: when the main thread has not ticked for 50 ms, every thread's innermost frames of ours."""

    def __init__(self, ticks: list[float]):
        super().__init__(daemon=True)
        self.ticks, self.main, self.seen, self.stop = ticks, threading.main_thread().ident, {}, False

    def run(self):
        while not self.stop:
            time.sleep(0.01)
            if self.ticks and time.perf_counter() - self.ticks[-1] > 0.05:
                for ident, frame in sys._current_frames().items():
                    if ident == self.ident:
                        continue
                    stack = traceback.extract_stack(frame)
                    where = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in stack if "triage_app" in f.filename][-3:]
                    if stack and "triage_app" not in stack[-1].filename:     # in a library: which call
                        where.append(f"[{Path(stack[-1].filename).name}:{stack[-1].lineno} {stack[-1].name}]")
                    key = ("main " if ident == self.main else "other ") + " < ".join(reversed(where))
                    self.seen[key] = self.seen.get(key, 0) + 1


class ThreadTimes(threading.Thread):
    """Every 20 ms, the CPU time (ms) each of the process's threads has used so far, by thread id."""

    def __init__(self):
        super().__init__(daemon=True)
        self.log: list[tuple[float, dict[int, int]]] = []
        self.names = {threading.get_native_id(): "main"}
        self.stop = False

    def run(self):
        self.names[threading.get_native_id()] = "sampler"
        tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
        while not self.stop:
            used = {}
            for task in os.listdir("/proc/self/task"):
                try:
                    fields = Path(f"/proc/self/task/{task}/stat").read_text().rsplit(")", 1)[1].split()
                    comm = Path(f"/proc/self/task/{task}/comm").read_text().strip()
                except OSError:          # a thread that ended meanwhile
                    continue
                used[int(task)] = round((int(fields[11]) + int(fields[12])) * tick_ms)   # utime + stime
                self.names.setdefault(int(task), comm)
            self.log.append((time.perf_counter(), used))
            time.sleep(0.02)

    def used_between(self, start: float, end: float) -> str:
        """What each thread used from the last sample before start to the first after end."""
        before = [entry for entry in self.log if entry[0] <= start][-1:]
        after = [entry for entry in self.log if entry[0] >= end][:1]
        if not before or not after:
            return "no samples"
        spent = {task: ms - before[0][1].get(task, 0) for task, ms in after[0][1].items()}
        busy = ", ".join(f"{self.names.get(task, task)} {ms}" for task, ms in sorted(spent.items(), key=lambda kv: -kv[1])
                         if ms > 0)
        return f"in {1000 * (after[0][0] - before[0][0]):.0f} ms our threads used (ms of CPU): {busy or 'none'}"


def measure(name: str) -> None:
    from triage_app.ui.window import MainWindow

    path = make(NAMES.get(name, name))
    gc.freeze()     # as app.main does before its window: full collections never walk the modules' objects
    sys.setswitchinterval(float(os.environ.get("TRIAGE_SWITCH_INTERVAL", UI_SWITCH_INTERVAL_S)))   # as app.main
    window = MainWindow(store_path=Path(tempfile.mkdtemp()) / "results.sqlite3")
    window.show()
    QApplication.processEvents()
    ticks: list[float] = []
    timer = QTimer(interval=5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    loaded = []
    window.file_loaded.connect(lambda _: loaded.append(time.perf_counter()))
    sampler = Sampler(ticks)
    sampler.start()
    times = ThreadTimes()
    times.start()
    loop, poll = QEventLoop(), QTimer(interval=20)
    poll.timeout.connect(lambda: loaded and window.learning.thread.pool.activeThreadCount() == 0 and loop.quit())
    load = os.getloadavg()[0]
    start = time.perf_counter()
    ticks.append(start)
    timer.start()
    profile = cProfile.Profile() if "--profile" in sys.argv else None
    if profile:
        profile.enable()
    window.open_file(path)
    poll.start()
    loop.exec()
    if profile:
        profile.disable()
    timer.stop()
    sampler.stop = times.stop = True
    gaps = np.diff(ticks)
    at = np.argsort(gaps)[::-1][:5]
    print(f"{name}: {window.model.rowCount():,} rows shown after {loaded[0] - start:.1f} s, features ready after "
          f"{ticks[-1] - start:.1f} s; longest stall {1000 * gaps.max():.0f} ms, 99th percentile "
          f"{1000 * np.percentile(gaps, 99):.0f} ms, gaps over 100 ms: {(gaps > 0.1).sum()}; load {load:.1f}")
    print("  longest at " + ", ".join(f"{ticks[k] - start:.2f} s ({1000 * gaps[k]:.0f} ms)" for k in at)
          + f"; shown at {loaded[0] - start:.2f} s")
    for k in at:
        print(f"    gap at {ticks[k] - start:.2f} s, {1000 * gaps[k]:.0f} ms: {times.used_between(ticks[k], ticks[k + 1])}")
    for key, n in sorted(sampler.seen.items(), key=lambda kv: -kv[1])[:12]:
        print(f"    {n:4d} {key}")
    if profile:
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    window.shutdown()


if __name__ == "__main__":
    app = QApplication.instance() or QApplication([])
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--no-embedding" in sys.argv:
        try:
            from triage_app.ui.embedding import Embedding
            Embedding.file_opened = lambda self, texts: None
        except ImportError:     # a tree from before the window embedded its files
            pass
    for name in names or list(NAMES):
        measure(name)

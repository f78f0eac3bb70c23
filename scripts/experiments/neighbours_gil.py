"""How long the file's graph (learn/neighbours.py) keeps another thread from running: the graph of 100,000
random unit vectors and one smoothing over every row, on a worker thread, while this thread sleeps 5 ms at a
time and notes how late it wakes (the window's event loop waits the same way for the GIL). The switch
interval is the window's (ui/app.UI_SWITCH_INTERVAL_S).

Usage: .venv/bin/python scripts/experiments/neighbours_gil.py LABELS   (e.g. 10, 77)
"""
from __future__ import annotations

import sys
import threading
import time

import numpy as np

from triage_app.learn.neighbours import nearest, smoothed
from triage_app.ui.app import UI_SWITCH_INTERVAL_S


def main() -> None:
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)
    rng = np.random.default_rng(0)
    n, labels = 100_000, int(sys.argv[1])
    x = rng.standard_normal((n, 384)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    done, took = threading.Event(), {}

    def work():
        start = time.perf_counter()
        near = nearest(x)
        took["graph s"] = round(time.perf_counter() - start, 2)
        p = rng.dirichlet(np.ones(labels), n)
        start = time.perf_counter()
        smoothed(lambda rows: p[rows], np.arange(n), near, np.arange(0, n, 50), np.zeros(n // 50, int), labels)
        took["smoothing s"] = round(time.perf_counter() - start, 2)
        done.set()

    threading.Thread(target=work).start()
    late, last = [], time.perf_counter()
    while not done.is_set():
        time.sleep(0.005)
        now = time.perf_counter()
        late.append(now - last - 0.005)
        last = now
    print(f"{labels} labels: {took}; longest wait {1000 * max(late):.0f} ms, 99th percentile "
          f"{1000 * np.percentile(late, 99):.0f} ms")


if __name__ == "__main__":
    main()

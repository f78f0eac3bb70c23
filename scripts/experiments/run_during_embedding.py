"""How long a Run pressed while the window embeds its file waits for its first labels, against a Run
with no embedding going (the file's vectors all stored): the real window offscreen, the bundled SmolLM2
(float32, CPU) and the bundled encoder, 240 sample tickets, runs of 4 tickets scored afresh.

    .venv/bin/python scripts/experiments/run_during_embedding.py [ROUNDS]

Prints, per round, seconds from the request to the run's start and to its first batch, for both; each
run is its window's first (results scored afresh, the classifier built in both).
"""

from __future__ import annotations

import csv
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
FOLDER = Path(tempfile.mkdtemp(prefix="triage-embedding-"))
os.environ["TRIAGE_SETTINGS_FILE"] = str(FOLDER / "settings.ini")
os.environ["TRIAGE_DATA_DIR"] = str(FOLDER)

from PySide6.QtWidgets import QApplication  # noqa: E402

APP = QApplication([])

import ui_helpers  # noqa: E402  (the engine's modules imported on the main thread, as app.main does)

from triage_app.engine import device, models  # noqa: E402
from triage_app.ui.window import MainWindow  # noqa: E402

N = 240


def spin(done, timeout=300.0) -> None:
    end = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > end:
            raise TimeoutError("waited too long")
        APP.processEvents()
        time.sleep(0.005)


def tickets(path: Path) -> Path:
    rows = ui_helpers.sample_rows()[380:380 + N]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        writer.writerows([row["id"], row["text"]] for row in rows)
    return path


def timed_run(window) -> tuple[float, float]:
    """Seconds from Run to the run's start and to its first batch."""
    seen: dict[str, float] = {}
    started = ui_helpers.Relay(window.worker.started)     # heard on this thread (ui_helpers.Relay)
    started.received.connect(lambda *_: seen.setdefault("started", time.perf_counter()))
    ended = []
    window.run_ended.connect(ended.append)
    asked = time.perf_counter()
    window.run(fresh=True, limit=4)
    spin(lambda: window.model.rows_answered > 0 or ended)
    first = time.perf_counter()
    spin(lambda: ended)
    return seen["started"] - asked, first - asked


def opened(store: Path, path: Path, model):
    window = MainWindow(store_path=store, autoload=False)
    window.remembered.batch_size = 4
    window.show()
    window.use_model(model)
    spin(lambda: window.model_info is not None)
    window.open_file(path)
    return window


def one_round(k: int, model) -> tuple[tuple[float, float], tuple[float, float]]:
    """The first run of a window while it embeds, then the first run of another window on the same file
    once its vectors are all stored (each run is its window's first: the classifier is built in both)."""
    store = FOLDER / f"results-{k}.sqlite3"
    path = tickets(FOLDER / f"tickets-{k}.csv")
    window = opened(store, path, model)
    spin(lambda: window.model_panel.embedding.value() >= 16)
    during = timed_run(window)
    spin(lambda: window.embedding.complete)
    window.shutdown()
    window = opened(store, path, model)
    spin(lambda: window.embedding.complete)
    idle = timed_run(window)
    window.shutdown()
    return during, idle


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    model = models.load(models.SMOLLM2, device.choose("cpu", "float32"))
    results = [one_round(k, model) for k in range(rounds)]
    for k, (during, idle) in enumerate(results):
        print(f"round {k}: embedding going: start {during[0]:.2f} s, first batch {during[1]:.2f} s; "
              f"no embedding: start {idle[0]:.2f} s, first batch {idle[1]:.2f} s")
    print(f"median first batch: embedding going {statistics.median(r[0][1] for r in results):.2f} s, "
          f"no embedding {statistics.median(r[1][1] for r in results):.2f} s")


if __name__ == "__main__":
    main()

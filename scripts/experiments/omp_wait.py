"""OMP_WAIT_POLICY for the app itself: the window (engine beside the UI thread, retrains beside the
run) and the CLI, with the policy unset, PASSIVE and ACTIVE.

torch's OpenMP threads spin while they wait for work (ACTIVE; libgomp's default is to spin a while,
then sleep); tests/conftest.py sets PASSIVE for the tests only. torch reads the variable when it is
imported, so every measurement is a fresh subprocess with the variable set (or removed) in its
environment; the settings are interleaved, REPS rounds.

window: what ui/app.py main does before the window (the engine imported first, gc.freeze), then
  MainWindow(store_path=...) on a temp settings file and data folder, offscreen; the bundled model
  loaded by the worker (window.load_model); N sample tickets opened (sample rows START.., a CSV with
  the category column); Run; on each of the first LABELLED batches one row is labelled by hand with
  its category (model.set_person_label, as keys 1-9 do), so the live learning retrains during the run.
  Recorded: the run's wall time (run() to run_ended) and items/s, the retrains, and the UI
  thread's longest stall: the largest gap between ticks of a 5 ms QTimer, from Run to the run's end
  and the last retrain.
cli:    `triage-app classify` on the same tickets, --fresh, its own --db, --stats-json: items/s.

Usage: nice -n 10 .venv/bin/python scripts/experiments/omp_wait.py [--n N] [--reps R] [--out F]
Result: docs/bench/omp_wait.txt (and .json).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "sample_tickets.csv"
SETTINGS = ("unset", "PASSIVE", "ACTIVE")
START = 380          # from here the sample's tickets are short (tests/test_ui_run.py SHORT)
LABELLED = 6         # batches after which a row is labelled by hand
TICK_MS = 5


def write_slice(folder: Path, n: int, start: int = START) -> Path:
    with SAMPLE.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[start:start + n]
    path = folder / "tickets.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


# the window, in its own process
def window_child(n: int, folder: Path) -> dict:
    import gc

    from triage_app.ui import app as ui_app

    ui_app._import_engine()           # as main does: the engine before Qt
    from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal, Slot
    from PySide6.QtWidgets import QApplication

    from triage_app.engine import models
    from triage_app.ui.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    gc.freeze()
    window = MainWindow(store_path=folder / "results.sqlite3", autoload=False)
    window.show()

    class Relay(QObject):
        """A worker signal seen on the main thread (a QObject's own slot is queued; a lambda is not)."""
        received = Signal(object)

        def __init__(self, signal):
            super().__init__()
            signal.connect(self._forward)

        @Slot(object)
        def _forward(self, value) -> None:
            self.received.emit(value)

    def wait(signal, timeout_s: float, until=None) -> None:
        loop = QEventLoop()
        signal.connect(lambda *_: loop.quit())
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        if until is None or not until():
            loop.exec()

    loaded = Relay(window.worker.model_loaded)
    t0 = time.perf_counter()
    window.load_model(models.SMOLLM2, remember=False)
    wait(loaded.received, 300)
    load_s = time.perf_counter() - t0
    path = write_slice(folder, n)
    window.open_file(path)
    wait(window.file_loaded, 60, until=lambda: window.table is not None)
    with SAMPLE.open(newline="", encoding="utf-8") as f:
        gold = [r["category"] for r in list(csv.DictReader(f))[START:START + n]]

    gaps, last = [], [None]

    def tick():
        now = time.perf_counter()
        if last[0] is not None:
            gaps.append(now - last[0])
        last[0] = now

    timer = QTimer(interval=TICK_MS)
    timer.timeout.connect(tick)
    retrains = []
    live = window.learning.learning
    live.retrained.connect(lambda _: retrains.append(time.perf_counter()))
    labelled, batches = [], [0]

    def on_batch(batch):
        batches[0] += 1
        if len(labelled) < LABELLED:
            row = next(r for r in range(n) if r not in labelled and window.model.prediction(r) is not None)
            labelled.append(row)
            window.model.set_person_label(row, gold[row])       # keys 1-9 do this; the live learning retrains

    done = Relay(window.worker.batch_done)
    done.received.connect(on_batch)
    ended = []
    window.run_ended.connect(ended.append)
    timer.start()
    t0 = time.perf_counter()
    window.run(fresh=True)
    wait(window.run_ended, 1800, until=lambda: bool(ended))
    run_s = time.perf_counter() - t0
    end = time.perf_counter() + 120
    while live.busy and time.perf_counter() < end:          # the retrain the run's end asks for
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    QTimer.singleShot(50, lambda: None)
    app.processEvents()
    timer.stop()
    window.shutdown()
    gaps_ms = sorted(1000 * g for g in gaps)
    return {"n": n, "ended": ended[0] if ended else "timeout", "load_s": load_s, "run_s": run_s,
            "items_per_s": n / run_s, "batches": batches[0], "labelled": len(labelled), "retrains": len(retrains),
            "ticks": len(gaps), "max_gap_ms": gaps_ms[-1] if gaps_ms else None,
            "p99_gap_ms": gaps_ms[int(0.99 * len(gaps_ms))] if gaps_ms else None,
            "gaps_over_100ms": sum(g > 100 for g in gaps_ms), "threads": _torch_threads()}


def _torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def env_for(setting: str, folder: Path) -> dict:
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if setting != "unset":
        env["OMP_WAIT_POLICY"] = setting
    env.update(QT_QPA_PLATFORM="offscreen", TRIAGE_SETTINGS_FILE=str(folder / "settings" / "triage.ini"),
               TRIAGE_DATA_DIR=str(folder / "data"))
    return env


def run_window(setting: str, n: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="omp-window-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, __file__, "--child", "window", "--n", str(n), "--folder", tmp],
                           env=env_for(setting, folder), capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(f"window child failed ({setting}):\n{p.stderr[-3000:]}")
        out = json.loads(p.stdout.strip().splitlines()[-1])
        out["process_s"] = time.perf_counter() - t0
        return out


def run_cli(setting: str, n: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="omp-cli-") as tmp:
        folder = Path(tmp)
        tickets = write_slice(folder, n)
        cmd = [str(ROOT / ".venv" / "bin" / "triage-app"), "classify", str(tickets), "-o", str(folder / "out.csv"),
               "--model", "smollm2-135m", "--dtype", "float32", "--device", "cpu", "--fresh",
               "--db", str(folder / "results.sqlite3"), "--stats-json", str(folder / "stats.json")]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=env_for(setting, folder), capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(f"classify failed ({setting}):\n{p.stderr[-3000:]}")
        stats = json.loads((folder / "stats.json").read_text())
        return {"n": n, "process_s": time.perf_counter() - t0, "items_per_s": stats["items_per_s"],
                "run_s": stats.get("seconds", n / stats["items_per_s"])}


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def summary(results: dict, key: str, fmt: str) -> str:
    vals = [r[key] for r in results]
    median = statistics.median(vals)
    return " / ".join(format(v, fmt) for v in vals) + f" (median {format(median, fmt if fmt != 'd' else 'g')})"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--child")
    p.add_argument("--folder")
    p.add_argument("--n", type=int, default=24)
    p.add_argument("--cli-n", type=int, default=24)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--parts", default="window,cli")
    p.add_argument("--out", default=str(ROOT / "docs" / "bench" / "omp_wait"))
    p.add_argument("--table-from", help="print the tables of earlier runs' JSON files (comma-separated), merged")
    args = p.parse_args()
    if args.child == "window":
        print(json.dumps(window_child(args.n, Path(args.folder))))
        return
    log = lambda line: print(line, file=sys.stderr, flush=True)
    parts = args.parts.split(",")
    got = {part: {s: [] for s in SETTINGS} for part in parts}
    loads = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.table_from:
        for f in args.table_from.split(","):
            saved = json.loads(Path(f).read_text())
            for part, by in saved["results"].items():
                for s, rs in by.items():
                    got[part][s] += rs
                    loads += [float(r["load_before"].split()[0]) for r in rs]
        args.reps = 0
    for rep in range(args.reps):
        for part in parts:
            for setting in SETTINGS:
                before = load_avg()
                r = run_window(setting, args.n) if part == "window" else run_cli(setting, args.cli_n)
                r.update(load_before=before, load_after=load_avg(), rep=rep)
                got[part][setting].append(r)
                loads.append(os.getloadavg()[0])
                log(f"rep {rep} {part} {setting}: {json.dumps(r)}")
                Path(args.out + ".json").write_text(json.dumps({"started": started, "results": got}, indent=1) + "\n")
    lines = [f"started {started}; load (1-min) during: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
             f"max {max(loads):.2f}; command: nice -n 10 .venv/bin/python scripts/experiments/omp_wait.py "
             + " ".join(sys.argv[1:]), ""]
    if "window" in got:
        lines += [f"window: {args.n} sample tickets (rows {START}..), bundled SmolLM2-135M, channel, batch size and "
                  f"budget as remembered by default; {LABELLED} rows labelled by hand during the run; per run, in order:", "",
                  "| OMP_WAIT_POLICY | run s | items/s | longest UI stall ms | p99 tick gap ms | gaps > 100 ms | retrains |",
                  "|---|---|---|---|---|---|---|"]
        for s, rs in got["window"].items():
            lines.append(f"| {s} | {summary(rs, 'run_s', '.1f')} | {summary(rs, 'items_per_s', '.3f')} | "
                         f"{summary(rs, 'max_gap_ms', '.0f')} | {summary(rs, 'p99_gap_ms', '.0f')} | "
                         f"{summary(rs, 'gaps_over_100ms', 'd')} | {summary(rs, 'retrains', 'd')} |")
        lines.append("")
    if "cli" in got:
        lines += [f"cli: triage-app classify, {args.cli_n} sample tickets (rows {START}..), --model smollm2-135m "
                  "--dtype float32 --device cpu --fresh; per run, in order:", "",
                  "| OMP_WAIT_POLICY | run s | items/s | process s (imports, load, run) |", "|---|---|---|---|"]
        for s, rs in got["cli"].items():
            lines.append(f"| {s} | {summary(rs, 'run_s', '.1f')} | {summary(rs, 'items_per_s', '.3f')} | "
                         f"{summary(rs, 'process_s', '.1f')} |")
    Path(args.out + ".table.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

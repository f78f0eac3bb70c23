"""triage-app --self-test: the whole app, end to end, offline, in seconds; exit 0 or say what broke.

Meant for a frozen build (PyInstaller), where a missing hidden import or data file only shows when
the code path runs: so this drives the real window and its worker thread, the bundled sample and
the bundled SmolLM2, and the exporter, exactly as a click-through would. It prints one line per step.

Never touches the user's data: results database, data dir and window settings go to a temporary
folder. The converted-model cache (paths.user_cache_dir) is shared on purpose: it is a cache, and
it is what makes every run after the first fast (the first converts the GGUF, ~20 s).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from triage_app.paths import resource

TICKETS = 8                 # classified; enough for two batches
BATCH_SIZE = 4
LOAD_TIMEOUT_S = 600        # a first run converts the GGUF into the cache
STEP_TIMEOUT_S = 180


class Failed(Exception):
    """A step did not do what it should; the message is the reason, one line."""


def sample_path() -> Path:
    return resource("sample_tickets.csv")   # a function: tests/test_selftest.py points it elsewhere


def main() -> int:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="triage-selftest-") as tmp:
        saved = _isolate(Path(tmp))
        try:
            _steps(Path(tmp))
        except Failed as exc:
            print(f"self-test FAILED: {exc}", flush=True)
            return 1
        except Exception as exc:  # anything else is a failure too, and needs its name
            print(f"self-test FAILED: {type(exc).__name__}: {exc}", flush=True)
            return 1
        finally:
            os.environ.clear()
            os.environ.update(saved)
    print(f"self-test passed in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


def _isolate(tmp: Path) -> dict:
    """Environment for the run: offline, no display needed, every user file in tmp."""
    saved = dict(os.environ)
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform == "darwin":
        # the self-test must not flash a window on a Mac either; offscreen renders the same widgets
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["TRIAGE_DATA_DIR"] = str(tmp / "data")
    os.environ["TRIAGE_SETTINGS_FILE"] = str(tmp / "settings.ini")
    os.environ["HF_HUB_OFFLINE"] = "1"
    # an empty Hugging Face cache: the first-run step sees what a new user without a connection sees
    os.environ["HF_HUB_CACHE"] = str(tmp / "hub")
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    _step(f"environment: platform {os.environ.get('QT_QPA_PLATFORM', 'default')}, data in {tmp}, offline")
    return saved


def _steps(tmp: Path) -> None:
    t = time.perf_counter()
    # the engine first, as app.main does: torch imported after Qt on the worker's thread can crash
    from triage_app.ui.app import _import_engine
    _import_engine()
    from PySide6.QtWidgets import QApplication

    from triage_app.engine.models import SMOLLM2, smollm2_path
    from triage_app.ui.window import MainWindow
    app = QApplication.instance() or QApplication(sys.argv[:1])
    _step(f"imports: engine and Qt in {time.perf_counter() - t:.1f} s")

    window = MainWindow(store_path=tmp / "results.sqlite3", autoload=False)
    try:
        window.remembered.allow_download = False
        window.remembered.batch_size = BATCH_SIZE
        window.resize(1200, 800)
        window.show()
        _step(f"window: shown ({app.platformName()})")
        _open_sample(window)
        _first_run(window)
        _load_model(window, SMOLLM2, smollm2_path())
        predictions = _classify(window)
        _export(window, tmp / "export.csv", predictions)
    finally:
        window.shutdown()
        window.close()


def _open_sample(window) -> None:
    path = sample_path()
    if not path.is_file():
        raise Failed(f"the bundled sample is missing: {path}")
    got = _wait(lambda: window.open_file(path), window.file_loaded, window.error_shown, timeout_s=STEP_TIMEOUT_S)
    if got[0] is window.error_shown:
        raise Failed(f"the sample did not open: {got[1][0]}")
    if len(window.texts) < TICKETS:
        raise Failed(f"the sample has {len(window.texts)} tickets, fewer than {TICKETS}")
    _step(f"sample: {len(window.texts)} tickets from {path.name}, text column {window.columns.text_column!r}")


def _first_run(window) -> None:
    """Offline with an empty cache: the window starts on the bundled model, and the recommended one
    is refused in one plain line with the bundled model offered in the same place."""
    from huggingface_hub import constants

    from triage_app.engine.models import SMOLLM2

    if not constants.HF_HUB_OFFLINE:   # imported before the environment was set: never try the network
        _step("first run: skipped (huggingface_hub was imported before offline mode was set)")
        return
    if window.model_panel.spec != SMOLLM2:
        raise Failed(f"with an empty model cache the window starts on {window.model_panel.spec!r}, not {SMOLLM2!r}")
    # the window's own signal, sent once the line and the offer are shown
    got = _wait(lambda: window.load_model("qwen2.5-0.5b", remember=False), window.error_shown,
                window.worker.model_loaded, timeout_s=STEP_TIMEOUT_S)
    line = got[1][0]
    if got[0] is not window.error_shown or not str(line).startswith("Qwen2.5-0.5B-Instruct is not"):
        raise Failed(f"a model not in the cache, offline, gave {line!r}")
    if not window.bundled_button.isVisible():
        raise Failed(f"no offer of the bundled model next to {line!r}")
    _step(f"first run: starts on the bundled model; {line}")


def _load_model(window, spec: str, gguf: Path) -> None:
    """Through the window's offer, where the first-run step left one; else as the Load button does."""
    if not gguf.is_file():
        raise Failed(f"the bundled model is missing: {gguf}")
    t = time.perf_counter()
    offered = window.bundled_button.isVisible()
    start = window.bundled_button.click if offered else lambda: window.load_model(spec)
    got = _wait(start, window.worker.model_loaded, window.worker.model_failed, timeout_s=LOAD_TIMEOUT_S)
    if got[0] is window.worker.model_failed:
        raise Failed(f"the model did not load: {got[1][0]}")
    info = got[1][0]
    if info.spec != spec:
        raise Failed(f"{spec} was asked for, {info.spec} loaded")
    _step(f"model: {info.name} on {info.device}/{info.dtype} in {time.perf_counter() - t:.1f} s")


def _classify(window) -> dict[int, str]:
    t = time.perf_counter()

    def start():
        if window.run(limit=TICKETS) is None:
            raise Failed(f"the window refused to run: {window.banner_text.text()}")

    got = _wait(start, window.run_ended, window.error_shown, timeout_s=STEP_TIMEOUT_S)
    if got[0] is window.error_shown or got[1][0] != "done":
        raise Failed(f"the run did not finish: {got[1][0]}")
    model, names = window.model, window.label_set.names
    labels = {row: model.label_of(row) for row in range(TICKETS)}
    if model.rows_answered != TICKETS or any(label not in names for label in labels.values()):
        raise Failed(f"expected {TICKETS} rows labeled with {names}, got {model.rows_answered}: {labels}")
    counts = {name: sum(1 for label in labels.values() if label == name) for name in names}
    shown = ", ".join(f"{name} {n}" for name, n in counts.items() if n)
    _step(f"classify: {TICKETS} tickets in {time.perf_counter() - t:.1f} s ({shown})")
    return labels


def _export(window, path: Path, labels: dict[int, str]) -> None:
    import pandas as pd

    written = window.export_to(path)
    if written is None or not Path(written).is_file():
        raise Failed(f"the export was not written: {window.banner_text.text()}")
    frame = pd.read_csv(written, dtype=str, keep_default_na=False)
    expected_rows = window.model.rowCount()
    if len(frame) != expected_rows:
        raise Failed(f"the export has {len(frame)} rows, the table {expected_rows}")
    for column in ("label", "confidence", "needs_review"):
        if column not in frame.columns:
            raise Failed(f"the export has no {column!r} column: {list(frame.columns)}")
    exported = {row: frame["label"][row] for row in labels}
    if exported != labels:
        raise Failed(f"the export's labels {exported} differ from the window's {labels}")
    confidences = [float(c) for c in frame["confidence"][:TICKETS]]
    if not all(0.0 <= c <= 1.0 for c in confidences):
        raise Failed(f"confidences outside [0, 1]: {confidences}")
    if (frame["label"][TICKETS:] != "").any():
        raise Failed("rows that were not classified have labels in the export")
    _step(f"export: {Path(written).name}, {len(frame)} rows, {len(frame.columns)} columns, labels match")


def _wait(start, *signals, timeout_s: float):
    """Call start(), then run the event loop until one of signals fires; (signal, its arguments).

    Connected before the call, so a fast answer is not missed. The slot only records: worker
    signals reach a plain function on the worker's thread, and the loop is quit from its own
    thread by a timer that looks at the record.
    """
    from PySide6.QtCore import QEventLoop, QTimer

    got: list = []
    slots = [(signal, lambda *values, signal=signal: got.append((signal, values))) for signal in signals]
    for signal, slot in slots:
        signal.connect(slot)
    loop = QEventLoop()
    deadline = time.monotonic() + timeout_s
    poll = QTimer(interval=20)
    poll.timeout.connect(lambda: (got or time.monotonic() > deadline) and loop.quit())
    try:
        start()
        if not got:
            poll.start()
            loop.exec()
    finally:
        poll.stop()
        for signal, slot in slots:
            signal.disconnect(slot)
    if not got:
        raise Failed(f"nothing happened within {timeout_s:.0f} s")
    return got[0]


def _step(line: str) -> None:
    print(f"self-test: {line}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())

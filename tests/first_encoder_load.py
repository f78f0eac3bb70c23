"""The window's first load of the sentence encoder, in a process of its own (tests/test_encoder_first_load.py
runs it: the test session's encoder is loaded already, and loads once per process).

Started as app.main starts the window (the engine's modules imported before Qt), it opens a real file
in the real window offscreen, the bundled encoder not loaded yet, and waits for learning to have the
file's vectors. It notes the thread every encoder load ran on, every module imported off the main thread
while the window waited (PySide's import hook sees each), and the event loop's longest stall; prints
them as one JSON line.

Usage: python tests/first_encoder_load.py FOLDER TICKETS.csv
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path


class ImportsOffMain:
    """A finder that finds nothing and notes each module imported on a thread other than the main one:
    Python asks the finders only for modules not imported yet. A mere look-up (importlib.util.find_spec,
    e.g. transformers asking whether peft is installed) imports nothing and is left out."""

    def __init__(self):
        self.seen: list[tuple[int, str]] = []

    def find_spec(self, name, path=None, target=None):
        if threading.current_thread() is not threading.main_thread() and _importing():
            self.seen.append((threading.get_ident(), name))
        return None


def _importing() -> bool:
    frame = sys._getframe(1)
    for _ in range(4):      # this finder <- importlib's _find_spec <- _find_and_load_unlocked: an import
        frame = frame.f_back
        if frame is None:
            return False
        if frame.f_code.co_name == "_find_and_load_unlocked":
            return True
    return False


def main(folder: Path, tickets: Path) -> dict:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["TRIAGE_SETTINGS_FILE"] = str(folder / "triage.ini")
    os.environ["TRIAGE_DATA_DIR"] = str(folder)
    from triage_app.ui import app

    app._import_engine()
    from PySide6.QtWidgets import QApplication
    from ui_helpers import Ticks

    from triage_app.engine import encoder
    from triage_app.ui.window import MainWindow

    qt = QApplication([])
    loads: list[int] = []
    load = encoder.SentenceEncoder.load.__func__

    def noted(cls, *args, **kwargs):
        loads.append(threading.get_ident())
        return load(cls, *args, **kwargs)

    encoder.SentenceEncoder.load = classmethod(noted)
    fresh = not encoder._LOADED
    window = MainWindow(store_path=folder / "results.sqlite3", autoload=False)
    window.show()
    qt.processEvents()
    imports = ImportsOffMain()
    sys.meta_path.insert(0, imports)
    handed: list[bool] = []
    window.embedding.handed.connect(lambda: handed.append(True))     # emitted on the main thread
    end = time.perf_counter() + 240
    with Ticks() as ticks:
        window.open_file(tickets)
        while not handed and time.perf_counter() < end:
            qt.processEvents()
            time.sleep(0.002)
    sys.meta_path.remove(imports)
    window.shutdown()
    gaps = [b - a for a, b in zip([ticks.start, *ticks.times], ticks.times)]
    return {"fresh": fresh, "handed": bool(handed), "main": threading.main_thread().ident, "loads": loads,
            "imported_where_loaded": sorted({name for ident, name in imports.seen if ident in loads}),
            "imported_elsewhere": sorted({name for ident, name in imports.seen if ident not in loads}),
            "longest_stall_ms": round(1000 * max(gaps, default=0.0)), "line": ticks.line,
            "load_average": os.getloadavg()[0]}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))

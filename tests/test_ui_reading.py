"""A file is read off the UI thread: the window handles events while a read is in flight.

How long the reader's own work can still stall the event loop (the GIL) is a measurement, not a
test: `pytest -m slow -s -k stalls` prints it (docs/files.md, "The window while a big file opens").
"""

import threading
import time

import pytest
from PySide6.QtCore import QTimer

import triage_app.files.reader as reader
from ui_helpers import make_window, settings_file  # noqa: F401


def write_tickets(path, rows: int):
    with path.open("w", encoding="utf-8") as f:
        f.write("id,text\n")
        for k in range(rows):
            f.write(f"{k},Ticket number {k}: the invoice for order {k * 7} was charged twice\n")
    return path


def test_the_window_handles_events_while_a_file_is_read(qtbot, make_window, tmp_path, monkeypatch):
    path = write_tickets(tmp_path / "tickets.csv", 2_000)
    window = make_window()
    ticked, readers = threading.Event(), []
    real_read = reader._read

    def read_after_a_tick(file, sheet, limit):
        readers.append(threading.get_ident())
        # read on the UI thread, this would wait for a tick that cannot come, and the file would fail
        if not ticked.wait(10):
            raise RuntimeError("the event loop did not run while the file was being read")
        return real_read(file, sheet, limit)

    monkeypatch.setattr(reader, "_read", read_after_a_tick)
    timer = QTimer(interval=10)
    timer.timeout.connect(ticked.set)
    timer.start()
    with qtbot.waitSignal(window.file_loaded, timeout=30_000):
        window.open_file(path)
        assert window.model.rowCount() == 0     # open_file only hands the path to the reader
    timer.stop()
    assert readers and readers[0] != threading.get_ident()
    assert window.model.rowCount() == 2_000


@pytest.mark.slow
def test_how_long_reading_a_big_file_stalls_the_window(qtbot, make_window, tmp_path):
    path = write_tickets(tmp_path / "big.csv", 100_000)
    window = make_window()
    ticks = []
    timer = QTimer(interval=20)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    with qtbot.waitSignal(window.file_loaded, timeout=120_000):
        start = time.perf_counter()
        window.open_file(path)
    took = time.perf_counter() - start
    timer.stop()
    gaps = [b - a for a, b in zip([start] + ticks, ticks)]
    print(f"\n100,000 rows read in {took:.2f} s; the event loop ran {len(ticks)} times, "
          f"longest wait {max(gaps, default=took):.2f} s")
    assert window.model.rowCount() == 100_000 and ticks

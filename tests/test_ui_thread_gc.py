"""Cyclic garbage is collected on the UI thread only, once a window exists (triage_app/ui/ui_thread_gc.py):
a collection on the engine's thread once destroyed a closed window's widgets there and hung the process."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject
from ui_helpers import make_window, settings_file  # noqa: F401

from triage_app.ui import ui_thread_gc


class Cycle(QObject):
    """A Qt object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self, died: list):
        super().__init__()
        self.me, self.died = self, died
        self.destroyed.connect(lambda: died.append(threading.get_ident()))


def test_a_window_turns_automatic_collection_off_and_collects_cycles_on_the_ui_thread(qtbot, make_window):
    make_window()
    assert not gc.isenabled()
    died = []
    Cycle(died)
    # another thread allocating far past every threshold: an enabled collector would collect there
    worker = threading.Thread(target=lambda: [[object()] for _ in range(200_000)])
    worker.start()
    worker.join()
    assert died == []
    qtbot.waitUntil(lambda: bool(died), timeout=10_000)          # the timer's collection, on this thread
    assert died == [threading.get_ident()]


def test_install_refuses_a_thread_that_is_not_the_ui_thread(qapp):
    failed = []

    def install():
        try:
            ui_thread_gc.install()
        except RuntimeError as exc:
            failed.append(str(exc))

    worker = threading.Thread(target=install)
    worker.start()
    worker.join()
    assert failed and "UI thread" in failed[0]

"""Warnings silenced from several threads at once: none escapes and no filter is left behind.

warnings.catch_warnings alone puts back the filters each thread found, crossing each other's
(a learning thread's warning reached the test run's summary while two fields learned)."""

from __future__ import annotations

import contextlib
import threading
import warnings

import pytest

from triage_app import quiet
from triage_app.quiet import silenced

ROUNDS = 2_000


def _silence_from_threads(threads: int = 4) -> list[warnings.WarningMessage]:
    start = threading.Barrier(threads)

    def expected_warnings():
        start.wait()
        for k in range(ROUNDS):
            with silenced(UserWarning, "expected"):
                warnings.warn(f"expected here, round {k}", UserWarning)

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        before = list(warnings.filters)
        workers = [threading.Thread(target=expected_warnings) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert warnings.filters == before, "a silencing filter was left behind"
    return shown


def test_warnings_silenced_on_several_threads_at_once_never_escape():
    assert [str(w.message) for w in _silence_from_threads()] == []


def test_other_warnings_still_show():
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with silenced(UserWarning, "expected"):
            warnings.warn("expected", UserWarning)
            warnings.warn("something else", UserWarning)
            warnings.warn("expected", DeprecationWarning)
    assert [(w.category, str(w.message)) for w in shown] == [(UserWarning, "something else"),
                                                           (DeprecationWarning, "expected")]


def test_without_taking_turns_they_escape(monkeypatch):
    """The check above can fail: catch_warnings on threads that do not take turns."""
    monkeypatch.setattr(quiet, "_TURN", contextlib.nullcontext())
    for _ in range(20):     # a race: any one try need not cross
        try:
            if _silence_from_threads():
                return
        except AssertionError:
            return
    pytest.fail("catch_warnings on four threads at once never crossed in 20 tries")


def test_a_long_sheet_read_lets_other_threads_take_their_turn(tmp_path):
    """A retrain's silenced fit on another thread waits for a step of the read, never the whole sheet
    (the read once held the one lock from the workbook's opening to its last row)."""
    import time

    import openpyxl

    from triage_app.files.sheets import read_xlsx

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("tickets")
    sheet.append(["id", "text"])
    for k in range(30_000):
        sheet.append([k, f"ticket {k}: the parcel has not come"])
    path = tmp_path / "long.xlsx"
    book.save(path)

    done, read = threading.Event(), []
    reader = threading.Thread(target=lambda: (read.append(read_xlsx(path, None)), done.set()))
    began = time.perf_counter()
    reader.start()
    waits = []
    while not done.is_set():
        asked = time.perf_counter()
        with silenced(UserWarning):
            waits.append(time.perf_counter() - asked)
        time.sleep(0.001)
    reader.join()
    took = time.perf_counter() - began
    assert len(read[0].frame) == 30_000
    # the lock held for the whole read would make one wait about the whole read; half leaves room for a
    # scheduler's pause on a shared 2-core machine (a quarter once failed there: docs/testing.md)
    assert max(waits) < took / 2, f"a turn waited {max(waits):.2f} s of a {took:.2f} s read"

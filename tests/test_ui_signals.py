"""Emitting a signal, or any void Qt call, from Python must not cost the interpreter anything (qt_fixes)."""

import subprocess
import sys

from PySide6.QtCore import QObject, QStringListModel, Signal

import triage_app.ui  # noqa: F401  (installs the workaround, as every window does)
from triage_app.ui import qt_fixes


class Emitter(QObject):
    value = Signal(object)


def test_ten_thousand_emits_leave_true_and_their_arguments_as_they_were(qapp):
    emitter, argument = Emitter(), object()
    received = []
    emitter.value.connect(received.append)
    model = QStringListModel(["a", "b"])
    index = model.index(1)
    true_before, argument_before = sys.getrefcount(True), sys.getrefcount(argument)
    for _ in range(10_000):
        emitter.value.emit(argument)
        model.dataChanged.emit(index, index)
    # PySide6 6.12.0 took one reference from True per emit: 20,000 here, and a crash once none are left
    # (a few may come and go elsewhere meanwhile)
    assert abs(sys.getrefcount(True) - true_before) < 100
    assert sys.getrefcount(argument) - argument_before == len(received) == 10_000


def run_void_calls(setup: str) -> subprocess.CompletedProcess:
    code = (f"{setup}\nfrom PySide6.QtCore import QObject\nprobe = QObject()\n"
            "for _ in range(20_000):\n    probe.setObjectName('x')\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_session_of_void_qt_calls_does_not_free_none():
    """PySide6 6.12 takes a reference from None on every void call; a window makes thousands a minute.
    With the window's fixes installed the process ends cleanly; without them (where this PySide takes
    references) the interpreter aborts on deallocating None."""
    fixed = run_void_calls("import triage_app.ui")
    assert fixed.returncode == 0, fixed.stderr[-500:]
    if qt_fixes.void_calls_take_from_none():          # the bug is there: show that it would crash
        bare = run_void_calls("")
        assert bare.returncode != 0 and "deallocating None" in bare.stderr

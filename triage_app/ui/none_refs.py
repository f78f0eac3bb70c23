"""Give back the references to None that PySide6 6.12's void methods take (seen on Python 3.11).

A Qt method that returns nothing, called from Python, returns None without taking a reference
to it, so every call takes one reference away from None (qt_fixes.py tells the same of
Signal.emit and True). None is not immortal before Python 3.12: once its count reaches zero the
interpreter aborts ("none_dealloc"). Code that makes such calls per cell painted, thousands a
batch, gives the references back; the probe finds whether this PySide takes them at all.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_PROBES = 64


def taken_per_call() -> int:
    """References a void call takes from None (0 where PySide is fixed); the probe's are given back."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(_PROBES):
        probe.setObjectName("probe")
    taken = before - sys.getrefcount(None)
    for _ in range(max(taken, 0)):
        _incref(None)
    return max(round(taken / _PROBES), 0)


TAKEN = taken_per_call()


def give_back(calls: int) -> None:
    """After this many void calls from Python: None has its references again."""
    for _ in range(calls * TAKEN):
        _incref(None)

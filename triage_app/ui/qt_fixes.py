"""A workaround for a reference PySide6 drops on every Signal.emit (seen with 6.12.0 on Python 3.11).

SignalInstance.emit returns True without taking a reference to it, so each emit from Python takes
one reference away from True. True is not immortal before Python 3.12: after enough emits (a run
emits a few per batch, the table one per run of rows) its count reaches zero and the interpreter
aborts ("bool_dealloc: deallocating True or False"), or frees what it should not first; that is
the rare crash of the window tests. install() probes once and, where emit drops the reference,
wraps it to give the reference back; where PySide is fixed it changes nothing.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal, SignalInstance

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_PROBES = 16


class _Probe(QObject):
    ping = Signal()


def emit_drops_a_reference() -> bool:
    """Whether SignalInstance.emit as it is now takes a reference away from what it returns."""
    probe = _Probe()
    result = probe.ping.emit()
    _incref(result)                    # the probe's own first emit must not cost anything either
    before = sys.getrefcount(result)
    for _ in range(_PROBES):
        probe.ping.emit()
    dropped = before - sys.getrefcount(result)
    for _ in range(max(dropped, 0)):   # give back what the probe took
        _incref(result)
    drops = dropped >= _PROBES
    if not drops:
        ctypes.pythonapi.Py_DecRef.argtypes = [ctypes.py_object]
        ctypes.pythonapi.Py_DecRef(result)   # the first incref was not owed after all
    return drops


def install() -> bool:
    """Wrap SignalInstance.emit where it drops a reference; True if it did. Safe to call again."""
    if getattr(SignalInstance.emit, "_gives_back", False) or not emit_drops_a_reference():
        return False
    original = SignalInstance.emit

    def emit(self, *args):
        result = original(self, *args)
        _incref(result)
        return result

    emit._gives_back = True
    SignalInstance.emit = emit
    return True

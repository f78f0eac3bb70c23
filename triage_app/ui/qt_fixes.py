"""Workarounds for references PySide6 drops (seen with 6.12.0 on Python 3.11).

None: every Qt method that returns nothing, called from Python, returns None without taking a
reference to it (w.update(), label.setText(), a slot's setData…): a window makes thousands of
such calls a minute, and once None's count reaches zero the interpreter aborts ("none_dealloc:
deallocating None"). Wrapping every void method is not possible, so install() gives None a
reference count no session can use up, which is what Python 3.12 does for it (immortal objects).

Signal.emit (below) is wrapped rather than pinned, as it was found first and is tested on its own.

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


def void_calls_take_from_none() -> bool:
    """Whether a void Qt call takes a reference away from None (the probe's are given back)."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(_PROBES):
        probe.setObjectName("probe")
    taken = before - sys.getrefcount(None)
    for _ in range(max(taken, 0)):
        _incref(None)
    return taken >= _PROBES


_PINNED = 1 << 48      # references given to None: a billion void calls a second would take years to use them


def _pin_none() -> None:
    if sys.version_info < (3, 12) and void_calls_take_from_none() and sys.getrefcount(None) < _PINNED:
        ctypes.c_ssize_t.from_address(id(None)).value += _PINNED    # ob_refcnt, the first field of every object


def install() -> bool:
    """Make None safe from void calls; wrap SignalInstance.emit where it drops a reference, and
    return True if it did. Safe to call again."""
    _pin_none()
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

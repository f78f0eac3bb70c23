"""Workarounds for references PySide6 drops (seen with 6.12.0 on Python 3.11).

None: every Qt method that returns nothing, called from Python, returns None without taking a
reference to it (w.update(), label.setText(), a slot's setData…): a window makes thousands of
such calls a minute, and once None's count reaches zero the interpreter aborts ("none_dealloc:
deallocating None"). Wrapping every void method is not possible, so install() gives None a
reference count no session can use up, which is what Python 3.12 does for it (immortal objects).

Signal.emit (below) takes from True; it is wrapped to give each reference back, so True's count
stays exact (a test counts it).

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
    drops = _taken_by(probe.ping.emit, result)
    if not drops:
        ctypes.pythonapi.Py_DecRef.argtypes = [ctypes.py_object]
        ctypes.pythonapi.Py_DecRef(result)   # the first incref was not owed after all
    return drops


def void_calls_take_from_none() -> bool:
    """Whether a void Qt call takes a reference away from None."""
    probe = QObject()
    return _taken_by(lambda: probe.setObjectName("probe"), None)


def _taken_by(call, target) -> bool:
    """Whether each call takes a reference away from target; what the probe took is given back."""
    before = sys.getrefcount(target)
    for _ in range(_PROBES):
        call()
    taken = before - sys.getrefcount(target)
    for _ in range(max(taken, 0)):
        _incref(target)
    return taken >= _PROBES


_PINNED = 1 << 60      # references given to None: at a billion void calls a second, 36 years' worth


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

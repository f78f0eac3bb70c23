"""The desktop window. Talks to the engine only through the worker (worker.py); never imports torch."""

from triage_app.ui import qt_fixes

qt_fixes.install()   # before any signal is emitted: see qt_fixes

"""A results database that cannot be used, as the window says it: once, in the message bar, with its
way out (a fresh database; the old file is kept, renamed). Until then the window goes on without it:
nothing is resumed, and a person's labels are kept in memory."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox

from triage_app.ui.panels.message_bar import MessageBar
from triage_app.ui.background.results_db import ResultsDb, store_file


class FreshStoreOffer(QObject):
    failed = Signal(str)          # one line for the message bar
    message = Signal(str, int)    # one line for the status bar, and how long it stays (ms)
    fresh = Signal()              # a fresh database is in use: what was labeled meanwhile goes into it

    def __init__(self, db: ResultsDb, bar: MessageBar, parent=None):
        """Make it before anything opens db, so that its first failure is said."""
        super().__init__(parent)
        self.db, self.bar = db, bar
        db.unavailable.connect(self._unavailable)
        bar.fresh_store_button.clicked.connect(self.use_fresh)

    def use_fresh(self) -> Path | None:
        """Move the unusable database aside (kept, renamed) and start an empty one; returns where it went."""
        try:
            moved = self.db.use_fresh()
        except OSError as exc:
            self.failed.emit(f"Cannot move {store_file(self.db.path)} aside: {exc.strerror or exc}")
            return None
        self.bar.fresh_store_button.hide()
        self.bar.hide()
        if self.db.problem:             # the new one failed too (a read-only folder): said already
            return None
        self.fresh.emit()               # what was labeled meanwhile is not lost
        where = f" (the old one is {moved})" if moved else ""
        self.message.emit(f"Using a fresh results database{where}.", 15_000)
        return moved

    def _unavailable(self, message: str) -> None:
        self.bar.fresh_store_button.show()
        self.failed.emit(f"{message.rstrip('. ')}. The window goes on without it: nothing is resumed or "
                         f"saved until you use a fresh database.")

    def settle(self, unsaved: int, going: str, parent) -> bool:
        """unsaved labels live in the window only (the database cannot be used): offer the fresh
        database that keeps them, going on without them ("Close", "Open it"), or Cancel. True: go on."""
        if not unsaved:
            return True
        box = QMessageBox(QMessageBox.Icon.Warning, "Your labels are not saved",
                          f"{unsaved:,} label(s) you gave are not saved: the results database cannot be used. "
                          "A fresh database keeps them (the old file is kept, renamed).", parent=parent)
        keep = box.addButton("Use a fresh database", QMessageBox.ButtonRole.AcceptRole)
        drop = box.addButton(f"{going} without them", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(keep)
        box.exec()
        if box.clickedButton() is keep:
            self.use_fresh()
            return self.db.problem is None      # a fresh one failed too: said, and the window stays
        return box.clickedButton() is drop

"""A results database that cannot be used, as the window says it: once, in the message bar, with its
way out: a fresh database (the old file is kept, renamed), or, where the file is sound and only locked,
full or read-only for now, trying it again. Until then the window goes on without it: nothing is
resumed, and a person's labels are kept in memory, and written once it works again."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox

from triage_app.ui.panels.message_bar import FRESH_TIP, MessageBar
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
        db.recovered.connect(self._recovered)
        bar.fresh_store_button.clicked.connect(self._way_out)

    def _way_out(self) -> None:
        if self.db.problem is None:     # over already (the closing dialog's Try again)
            self._over()
        elif self.db.passing:
            self.db.retry()             # said when it is tried: recovered, or unavailable again
        else:
            self.use_fresh()

    def _over(self) -> None:
        self.bar.standing = None
        self.bar.fresh_store_button.hide()
        self.bar.hide()

    def _recovered(self) -> None:
        self._over()
        self.fresh.emit()               # what was labeled meanwhile is written now
        self.message.emit(f"The results database {store_file(self.db.path)} works again: the labels you gave "
                          "meanwhile are saved.", 15_000)

    def use_fresh(self) -> Path | None:
        """Move the unusable database aside (kept, renamed) and start an empty one; returns where it went."""
        try:
            moved = self.db.use_fresh()
        except OSError as exc:
            self.failed.emit(f"Cannot move {store_file(self.db.path)} aside: {exc.strerror or exc}")
            return None
        self._over()
        if self.db.problem:             # the new one failed too (a read-only folder): said already
            return None
        self.fresh.emit()               # what was labeled meanwhile is not lost
        where = f" (the old one is {moved})" if moved else ""
        self.message.emit(f"Using a fresh results database{where}.", 15_000)
        return moved

    def _unavailable(self, message: str) -> None:
        button = self.bar.fresh_store_button
        button.setText("Try again" if self.db.passing else "Use a fresh database")
        button.setToolTip("Open the same database again, and save the labels you gave meanwhile."
                          if self.db.passing else FRESH_TIP)
        button.setVisible(self.db.ours)
        if not self.db.ours:
            line = (f"{window_line(message)}. This window goes on without it, and never moves it: nothing is resumed "
                    "or saved here.")
        elif self.db.passing:
            line = (f"{window_line(message)}. The window goes on without it, your labels kept here: they are saved "
                    "when it works again (Try again, or the next Run tries).")
        else:
            line = (f"{window_line(message)}. The window goes on without it: nothing is resumed or saved until you "
                    "use a fresh database.")
        self.bar.standing = line        # said again under any other message, until it is over
        self.failed.emit(line)

    def settle(self, unsaved: int, going: str, parent) -> bool:
        """unsaved labels live in the window only (the database cannot be used): offer the fresh
        database that keeps them, going on without them ("Close", "Open it"), or Cancel. True: go on."""
        if not unsaved:
            return True
        text = (f"{unsaved:,} label(s) you gave are not saved: the results database cannot be used. A fresh "
                "database keeps them (the old file is kept, renamed)." if not self.db.passing else
                "Labels you gave since the results database stopped working are not saved yet. It may work again "
                "now (another run done, space freed): Try again saves them into it.")
        if not self.db.ours:
            text = (f"{unsaved:,} label(s) you gave are not saved: the results database is another Triage's, and "
                    "this window never moves it.")
        box = QMessageBox(QMessageBox.Icon.Warning, "Your labels are not saved", text, parent=parent)
        keep = box.addButton("Try again" if self.db.passing else "Use a fresh database",
                             QMessageBox.ButtonRole.AcceptRole) if self.db.ours else None
        drop = box.addButton(f"{going} without them", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel if keep is None else keep)
        box.exec()
        if keep is not None and box.clickedButton() is keep and self.db.passing:
            if not self.db.retry(wait=True):    # failing still: said again, and the window stays
                return False
            self._over()
            self.fresh.emit()                   # written before the window closes or shows another file
            self.db.flush()
            return self.db.problem is None
        if keep is not None and box.clickedButton() is keep:
            self.use_fresh()
            return self.db.problem is None      # a fresh one failed too: said, and the window stays
        return box.clickedButton() is drop


def window_line(message: str) -> str:
    """The database's line as the window says it: the command line's way out (--db PATH) is not the window's."""
    return message.replace(", or choose another with --db PATH", "").rstrip(". ")

"""The window's actions, each once: the menus and the run panel's buttons share them."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence


class WindowActions:
    def __init__(self, window):
        """window: a MainWindow; each action calls its method of the same purpose."""
        def action(text, slot, shortcut=None, tip=None):
            a = QAction(text, window)
            if shortcut:
                a.setShortcut(QKeySequence(shortcut))
            if tip:
                a.setToolTip(tip)
            a.triggered.connect(lambda *_: slot())
            return a

        self.open = action("Open…", window.open_dialog, QKeySequence.StandardKey.Open)
        self.export = action("Export…", window.export_dialog, "Ctrl+E", "CSV, XLSX or JSON: every column "
                             "and row of the file, plus the labels")
        self.quit = action("Quit", window.close, QKeySequence.StandardKey.Quit)
        self.run = action("Run", window.run, "Ctrl+R", "Label every ticket (Ctrl+R)")
        self.cancel = action("Cancel", window.cancel, "Esc", "Stop after the current batch; finished rows "
                             "are kept (Esc)")
        self.verify = action("Verify", window.verify, None, "Check the fast path against the slow "
                             "reference loop on a spread of tickets")
        self.load = action("Load model", lambda: window.load_model(), None)
        self.settings = action("Settings…", window.settings_dialog, None)
        self.prompt = action("Show prompt…", window.show_prompt, "Ctrl+P")
        self.promote = action("Add my corrections as examples", window.promote_corrections, None,
                              "Every ticket you labeled by hand becomes a few-shot example")
        self.from_column = action("Labels from a column…", window.labels_from_column, None,
                                  "A column of queues or categories, filled on some tickets: its values become "
                                  "the labels and those tickets teach the rest")
        self.next_to_label = action("Next to label", lambda: window.learning.show_queue(
            self.next_to_label.isChecked()), "Ctrl+L", "Only the tickets whose label would teach the most, best first")
        self.next_to_label.setCheckable(True)
        menus = window.menuBar()
        for title, actions in (("&File", (self.open, self.export, None, self.quit)),
                               ("&Run", (self.run, self.cancel, None, self.verify)),
                               ("&Labels", (self.next_to_label, self.from_column, None, self.promote,
                                            self.prompt)),
                               ("&Model", (self.load, None, self.settings))):
            menu = menus.addMenu(title)
            for a in actions:
                menu.addSeparator() if a is None else menu.addAction(a)

    @property
    def run_panel_buttons(self) -> tuple[QAction, ...]:
        return self.run, self.cancel, self.verify, self.export

"""The window's message bar: one plain line above the table, and the way out where there is one
(a fresh results database; the bundled model now, or a download later)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QToolButton

from triage_app.ui.plain_text import elided, tooltip

FRESH_TIP = ("Move the results database that cannot be used aside (it is kept, renamed) and start an empty one. "
             "Until then nothing is saved.")
MESSAGE_CHARS = 400     # a line naming a huge header or cell shows its head; the tooltip shows more


class MessageBar(QFrame):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setStyleSheet("QFrame { background: #fde2e1; border: 1px solid #e0a3a0; border-radius: 4px; }"
                           "QLabel { border: none; color: #7a1712; }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)     # its lines name files, columns and cells
        self.text.setWordWrap(True)
        # a long word (a header without spaces) must not widen the window: the line wraps within it
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.standing: str | None = None    # a problem that lasts (a results database that cannot be used)
        self.fresh_store_button = QPushButton("Use a fresh database")
        self.fresh_store_button.setToolTip(FRESH_TIP)
        self.fresh_store_button.hide()
        # offered where a Hugging Face model is not on this machine and cannot be fetched now
        self.bundled_button = QPushButton("Use the bundled model now")
        self.bundled_button.setToolTip("Load SmolLM2-135M, which comes with the app and needs no connection; "
                                       "a run that was waiting starts on it.")
        self.later_button = QPushButton("Download later")
        self.later_button.setToolTip("Keep working; Load the model again once there is a connection.")
        close = QToolButton(text="✕", autoRaise=True)
        close.clicked.connect(self.hide)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.fresh_store_button)
        layout.addWidget(self.bundled_button)
        layout.addWidget(self.later_button)
        layout.addWidget(close)
        self.show_model_offer(False)
        self.hide()

    def say(self, message: str, offer_bundled: bool = False) -> None:
        """The message, and under it the standing line while there is one (its button is that line's)."""
        self.show_model_offer(offer_bundled)
        below = "" if not self.standing or message == self.standing else self.standing    # whole, under it
        self._show_text(message, below)
        self.show()

    def clear(self) -> None:
        """Hide the last message, unless a problem that lasts stands (a database that cannot be used): that
        line, and its way out, stay until the user takes it."""
        self.show_model_offer(False)
        if self.standing:
            self._show_text(self.standing)
        else:
            self.hide()

    def show_model_offer(self, shown: bool) -> None:
        self.bundled_button.setVisible(shown)
        self.later_button.setVisible(shown)

    def _show_text(self, message: str, below: str = "") -> None:
        shown = elided(message, MESSAGE_CHARS, lines=4 - 2 * bool(below))
        self.text.setText(f"{shown}\n{below}" if below else shown)
        self.text.setToolTip(tooltip(message) if shown != message else "")

"""A word-wrapped line under a panel's control, whose height follows its text."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel


def show_wrapped(label: QLabel, text: str) -> None:
    """The label's text, shown when there is some. A wrapped label whose text grew once its column was laid
    out kept its old height, its second line cut off: its minimum height is set from the text."""
    label.setText(text)
    label.setVisible(bool(text))
    label.setMinimumHeight(label.heightForWidth(max(label.width(), 300)) if text else 0)

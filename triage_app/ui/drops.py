"""Files from outside the app: those the OS asks it to open (Finder "Open With", a drop on the Dock
icon: QFileOpenEvent), and those dropped on the window. Either way one open function takes them.

macOS sends QFileOpenEvents to the QApplication, not to a window, and the first one can arrive as soon as the
event loop starts, before the main window exists (a double-clicked CSV launches the app). So the
paths are queued here until a handler is registered, then handed over in order.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget


class FileOpenQueue(QObject):
    """An event filter on the application: takes QFileOpenEvents, queues paths until set_handler()."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.pending: list[str] = []
        self._handler: Callable[[str], None] | None = None

    def set_handler(self, handler: Callable[[str], None] | None) -> None:
        """From now on each path goes to handler(path); paths that came earlier go first."""
        self._handler = handler
        while self._handler is not None and self.pending:
            self._handler(self.pending.pop(0))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.FileOpen:
            return False
        path = event.file() or event.url().toLocalFile()
        if not path:
            return False      # a non-file URL: not ours to handle
        if self._handler is None:
            self.pending.append(path)
        else:
            self._handler(path)
        return True


class FileDrops(QObject):
    """An event filter that makes widget take drops of local files, and hand the first to open_file."""

    def __init__(self, widget: QWidget, open_file: Callable[[str], None]):
        super().__init__(widget)
        self._open = open_file
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            return False
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not files:
            return False      # not ours: the widget's own handling ignores it
        event.acceptProposedAction()
        if event.type() == QEvent.Type.Drop:
            self._open(files[0])
        return True


def install(app: QApplication) -> FileOpenQueue:
    """Install on app right after it is made, before the event loop runs, so no early event is lost."""
    queue = FileOpenQueue(app)
    app.installEventFilter(queue)
    return queue

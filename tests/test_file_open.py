"""Files macOS asks the app to open arrive as QFileOpenEvents, maybe before the window exists."""

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

from triage_app.ui.drops import FileOpenQueue, install


@pytest.fixture
def queue(qapp):
    queue = install(qapp)
    yield queue
    qapp.removeEventFilter(queue)
    queue.deleteLater()


def _finder_opens(path: str) -> bool:
    event = QFileOpenEvent(path)
    QApplication.sendEvent(QApplication.instance(), event)
    return event.isAccepted()


def test_paths_wait_for_a_handler_then_arrive_in_order(queue):
    _finder_opens("/tmp/a.csv")
    _finder_opens("/tmp/b.xlsx")
    assert queue.pending == ["/tmp/a.csv", "/tmp/b.xlsx"]
    opened = []
    queue.set_handler(opened.append)
    assert opened == ["/tmp/a.csv", "/tmp/b.xlsx"] and queue.pending == []
    _finder_opens("/tmp/c.json")
    assert opened[-1] == "/tmp/c.json"


def test_other_events_and_urls_pass_through(queue):
    opened = []
    queue.set_handler(opened.append)
    QApplication.sendEvent(QApplication.instance(), QFileOpenEvent(QUrl("https://example.com/x")))
    assert opened == []
    assert FileOpenQueue().eventFilter(None, QFileOpenEvent("/tmp/d.tsv")) is True

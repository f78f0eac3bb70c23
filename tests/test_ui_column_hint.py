"""The hint a file opens with (issue 32, item 18): it points at a column partly filled with a few repeated
values (a queue typed in by hand), never at the gold column, the answers filled on every row: learning
from those would teach the answers the accuracy is measured on."""

from __future__ import annotations

import pytest

from test_ui_axes import helpdesk_rows, write_helpdesk
from triage_app.ui.learning.column_offer import column_hint, hinted_column
from ui_helpers import make_window, open_file, settings_file  # noqa: F401

TEAM_HINT = "“team” has labels on some tickets: Labels ▸ Labels from a column… learns from them."


@pytest.fixture
def gold_and_half(tmp_path):
    """20 helpdesk tickets: queue filled on every one (the gold column), team on the even ones."""
    rows = helpdesk_rows()[:20]
    for r, row in enumerate(rows):
        row["team"] = ("north", "south")[r % 4 // 2] if r % 2 == 0 else ""
    return write_helpdesk(tmp_path, rows, "gold_and_half.csv")


def opened_with_messages(qtbot, make_window, path):
    window = make_window(autoload=False)
    said = []
    window.statusBar().messageChanged.connect(said.append)
    open_file(qtbot, window, path)
    return window, said


def test_the_hint_never_names_the_gold_column(qtbot, make_window, gold_and_half):
    window, said = opened_with_messages(qtbot, make_window, gold_and_half)
    assert window.columns.gold_column == "queue"
    assert not [line for line in said if "“queue” has labels" in line]
    assert column_hint(window.table.frame, "queue") == TEAM_HINT


def test_only_a_partly_filled_label_like_column_other_than_gold_is_hinted():
    filled = ["a", "b", "a", "b"]
    half = ["x", "", "y", "", "x", "y"]
    assert hinted_column({"queue": filled, "team": half}, "queue") == "team"
    assert hinted_column({"queue": filled}, None) is None                # filled on every row: answers
    assert hinted_column({"team": half}, "team") is None                 # the gold column, even half filled
    assert hinted_column({"body": [f"text {k}" for k in range(80)] + [""]}, None) is None    # not label-like


def test_the_window_opens_with_the_hint_on_the_partly_filled_column(qtbot, make_window, gold_and_half):
    window, said = opened_with_messages(qtbot, make_window, gold_and_half)
    assert TEAM_HINT in said


def test_the_hint_is_read_with_the_file_off_the_ui_thread(qtbot, make_window, gold_and_half):
    """It reads every cell of every column: on a big file that held the UI thread (docs/files.md)."""
    import threading

    window = make_window(autoload=False)
    threads, hint = [], window.reader.hint
    window.reader.hint = lambda frame, gold: threads.append(threading.get_ident()) or hint(frame, gold)
    said = []
    window.statusBar().messageChanged.connect(said.append)
    open_file(qtbot, window, gold_and_half)
    assert threads and threading.get_ident() not in threads
    assert TEAM_HINT in said

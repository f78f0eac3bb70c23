"""The window's database writer (ui/background/results_db) after a label rename it refused: until the window
takes the rename back, what it writes under the new name is the old label's, and the take-back itself changes
nothing in the database (it never made the rename). One real database, two writers on it as two windows have."""

from __future__ import annotations

import pytest

from triage_app.files.store import ResultStore
from triage_app.ui.background.results_db import ResultsDb

FILE = "tickets.csv"


@pytest.fixture
def writers(qtbot, tmp_path):
    made = [ResultsDb(tmp_path / "results.sqlite3"), ResultsDb(tmp_path / "results.sqlite3")]
    yield made
    for db in made:
        db.close()


def stored(tmp_path) -> dict[int, str]:
    with ResultStore(tmp_path / "results.sqlite3") as store:
        return {row: label for row, _, label in store.stored_person_labels(FILE, axis="priority")}


def test_labels_on_a_refused_name_go_under_the_old_one_until_the_window_takes_it_back(qtbot, writers, tmp_path):
    a, b = writers
    a.set_person_labels(FILE, {0: ("h0", "Low")}, "priority")
    assert a.label_rename_problem(FILE, {"Low": "Minor"}, "priority") is None     # before b's label
    b.set_person_labels(FILE, {1: ("h1", "Minor")}, "priority")
    b.flush()
    with qtbot.waitSignal(a.labels_rename_refused) as refusal:
        a.rename_labels(FILE, {"Low": "Minor"}, "priority")
        a.set_person_labels(FILE, {2: ("h2", "Minor")}, "priority")      # the window still shows Minor
    file, axis, back, why = refusal.args
    assert (file, axis, back) == (FILE, "priority", {"Minor": "Low"}) and "“Minor” already holds 1" in why
    a.flush()
    assert stored(tmp_path) == {0: "Low", 1: "Minor", 2: "Low"}
    a.rename_labels(FILE, back, "priority")                                # the window's take-back
    a.set_person_labels(FILE, {3: ("h3", "Minor")}, "priority")          # now b's Minor, shown again in a
    a.flush()
    assert stored(tmp_path) == {0: "Low", 1: "Minor", 2: "Low", 3: "Minor"}

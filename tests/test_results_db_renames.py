"""The window's database writer (ui/background/results_db) after a field rename it refused: the window still
shows the new name until it takes the rename back, so what it writes on that name meanwhile (labels,
label renames, a further rename) belongs to the field under its old name. One real database, two writers
on it as two windows have; no window."""

from __future__ import annotations

import pytest

from triage_app.files.store import ResultStore
from triage_app.ui.background.results_db import ResultsDb

FILE = "tickets.csv"
HASHES = [f"h{row}" for row in range(6)]


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "results.sqlite3"


@pytest.fixture
def writers(qtbot, db_path):
    """Two windows' writers on one database: a renames, b gives labels under the name a renames onto."""
    made = [ResultsDb(db_path), ResultsDb(db_path)]
    yield made
    for db in made:
        db.close()


def stored(db_path) -> dict[str, dict[int, str]]:
    with ResultStore(db_path) as store:
        return {axis: {row: label for row, _, label in store.stored_person_labels(FILE, axis=axis)}
                for axis in store.person_label_axes(FILE)}


def refused_rename(qtbot, a, b):
    """a gives row 0 on priority; b gives row 2 on urgency after a's check; a's rename onto urgency is refused."""
    a.set_person_labels(FILE, {0: (HASHES[0], "Urgent")}, "priority")
    assert a.axis_rename_problem(FILE, "priority", "urgency") is None      # the check, before b's label
    b.set_person_labels(FILE, {2: (HASHES[2], "Low")}, "urgency")
    b.flush()
    with qtbot.waitSignal(a.rename_refused) as refusal:
        a.rename_axis(FILE, "priority", "urgency")
    return refusal.args


def test_a_refused_rename_is_said_with_both_names_and_the_database_is_unchanged(qtbot, writers, db_path):
    a, b = writers
    file, old, new, why = refused_rename(qtbot, a, b)
    assert (file, old, new) == (FILE, "priority", "urgency")
    assert "“urgency” already holds 1 of your labels" in why and "\n" not in why
    assert stored(db_path) == {"priority": {0: "Urgent"}, "urgency": {2: "Low"}}


def test_until_the_window_takes_it_back_its_labels_on_the_new_name_go_under_the_old(qtbot, writers, db_path):
    a, b = writers
    refused_rename(qtbot, a, b)
    a.set_person_labels(FILE, {1: (HASHES[1], "High")}, "urgency")        # the window still shows urgency
    a.rename_labels(FILE, {"Urgent": "Critical"}, "urgency")
    assert a.axis_rename_problem(FILE, "urgency", "priority") is None    # its way back is no rename
    a.flush()
    assert stored(db_path) == {"priority": {0: "Critical", 1: "High"}, "urgency": {2: "Low"}}
    a.rename_axis(FILE, "urgency", "priority")                           # taken back: nothing to do there
    a.set_person_labels(FILE, {3: (HASHES[3], "Low")}, "priority")
    a.set_person_labels(FILE, {4: (HASHES[4], "Low")}, "urgency")        # a field of that name added since: b's
    a.flush()
    assert stored(db_path) == {"priority": {0: "Critical", 1: "High", 3: "Low"}, "urgency": {2: "Low", 4: "Low"}}


def test_a_rename_onward_from_the_refused_name_renames_the_field_under_its_old_name(qtbot, writers, db_path):
    a, b = writers
    refused_rename(qtbot, a, b)
    a.rename_axis(FILE, "urgency", "severity")       # the person renamed the shown name again, before the word came
    a.set_person_labels(FILE, {1: (HASHES[1], "High")}, "severity")
    a.flush()
    assert stored(db_path) == {"severity": {0: "Urgent", 1: "High"}, "urgency": {2: "Low"}}

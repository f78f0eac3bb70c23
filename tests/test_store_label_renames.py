"""A label renamed inside a field (issue 32): the database's rule (field_renames.label_refusal), applied in
the rename's own transaction, never merges two labels' tickets, whoever gave the labels under the new name.
A real database; two connections stand for two windows."""

from __future__ import annotations

import pytest

from triage_app.files.field_renames import RenameRefused
from triage_app.files.store import ResultStore

FILE = "tickets.csv"


@pytest.fixture
def store(tmp_path):
    with ResultStore(tmp_path / "results.sqlite3") as opened:
        yield opened


def rows(store, axis="priority"):
    return store.stored_person_labels(FILE, axis=axis)


def test_a_rename_onto_a_name_another_window_gave_is_refused_and_nothing_merges(store, tmp_path):
    store.set_person_labels(FILE, {0: ("h0", "Low")}, "priority")
    with ResultStore(tmp_path / "results.sqlite3") as other:            # another window on the file
        other.set_person_labels(FILE, {1: ("h1", "Minor")}, "priority")
    with pytest.raises(RenameRefused, match="renaming “Low” onto it would merge them") as refused:
        store.rename_labels(FILE, {"Low": "Minor"}, "priority")
    assert "\n" not in str(refused.value)
    assert rows(store) == [(0, "h0", "Low"), (1, "h1", "Minor")]
    assert "“Minor” already holds 1 of your labels" in store.label_rename_problem(FILE, {"Low": "Minor"}, "priority")


def test_a_swap_a_rename_of_a_label_with_none_and_another_fields_name_are_allowed(store):
    store.set_person_labels(FILE, {0: ("h0", "Low"), 1: ("h1", "High")}, "priority")
    store.set_person_labels(FILE, {2: ("h2", "Minor")}, "queue")        # another field's label of that name
    store.set_person_labels(FILE, {3: ("h3", "Minor")}, "priority")
    store.set_person_labels(FILE, {3: ("h3", None)}, "priority")        # taken back: holds none
    for renames in ({"Low": "High", "High": "Low"}, {"Low": "Minor"}, {"Unused": "High"}):
        assert store.label_rename_problem(FILE, renames, "priority") is None
    store.rename_labels(FILE, {"Low": "High", "High": "Low"}, "priority")
    store.rename_labels(FILE, {"High": "Minor"}, "priority")
    assert [r for r in rows(store)] == [(0, "h0", "Minor"), (1, "h1", "Low")]
    assert rows(store, "queue") == [(2, "h2", "Minor")]


def test_the_rule_follows_a_field_another_window_renamed(store, tmp_path):
    store.set_person_labels(FILE, {0: ("h0", "Low")}, "priority")
    known = store.axis_renames(FILE)
    with ResultStore(tmp_path / "results.sqlite3") as other:
        other.rename_axis(FILE, "priority", "urgency")
        other.set_person_labels(FILE, {1: ("h1", "Minor")}, "urgency")
    assert store.label_rename_problem(FILE, {"Low": "Minor"}, "priority", known) is not None
    with pytest.raises(RenameRefused):
        store.rename_labels(FILE, {"Low": "Minor"}, "priority", known)
    assert rows(store, "urgency") == [(0, "h0", "Low"), (1, "h1", "Minor")]


def test_a_field_refused_says_every_way_its_labels_may_have_come(store):
    store.set_person_labels(FILE, {0: ("h0", "High")}, "priority")
    store.set_person_labels(FILE, {1: ("h1", "Low")}, "urgency")
    problem = store.axis_rename_problem(FILE, "priority", "urgency")
    for way in ("a field removed keeps them", "a ticket edited since", "another window on this file may have given"):
        assert way in problem
    assert "\n" not in problem

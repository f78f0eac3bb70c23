"""Axes (engine/axes.py): several label sets in one file, and today's file as the one plain axis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from triage_app.engine.axes import PLAIN, Axes, Axis
from triage_app.engine.labels import Example, Label, LabelSet

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
QUEUE = LabelSet((Label("billing", "money"), Label("technical")), (Example("my card was charged twice", "billing"),))
PRIORITY = LabelSet.from_names(["urgent", "normal", "low"])


def test_several_axes_round_trip_through_json(tmp_path):
    axes = Axes((Axis("queue", QUEUE), Axis("priority", PRIORITY)))
    axes.save(tmp_path / "axes.json")
    again = Axes.load(tmp_path / "axes.json")
    assert again == axes
    assert [a.label_set.fingerprint for a in again] == [QUEUE.fingerprint, PRIORITY.fingerprint]
    assert json.loads((tmp_path / "axes.json").read_text())["axes"][0]["name"] == "queue"


def test_todays_file_is_one_plain_axis_with_the_same_fingerprint_and_saved_as_it_was(tmp_path):
    QUEUE.save(tmp_path / "labels.json")
    axes = Axes.load(tmp_path / "labels.json")
    assert axes.is_plain and axes.names == [PLAIN]
    assert axes.first.label_set == QUEUE and axes.first.label_set.fingerprint == QUEUE.fingerprint
    axes.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == (tmp_path / "labels.json").read_text()


def test_a_named_single_axis_is_not_plain():
    assert not Axes((Axis("queue", QUEUE),)).is_plain


def test_the_shipped_helpdesk_axes_read_the_export_columns_values():
    axes = Axes.load(RESOURCES / "helpdesk_axes.json")
    assert axes.names == ["queue", "priority"]
    assert set(axes.first.names) == {"Shipping", "Returns", "Payments", "Product", "Website"}
    assert set(axes.axes[1].names) == {"Urgent", "High", "Normal", "Low"}
    # the queue axis is the shipped queue label set: results stored under one serve the other
    assert axes.first.label_set.fingerprint == LabelSet.load(RESOURCES / "helpdesk_labels.json").fingerprint


@pytest.mark.parametrize("data, message", [
    ({"axes": []}, "at least one axis"),
    ({"axes": [{"name": "queue", "labels": ["a", "b"]}, {"name": "Queue", "labels": ["c", "d"]}]}, "distinct"),
    ({"axes": [{"name": "my queue", "labels": ["a", "b"]}]}, "axis name 'my queue'"),
    ({"axes": [{"name": "queue=1", "labels": ["a", "b"]}]}, "prefixes the output"),
    ({"axes": [{"labels": ["a", "b"]}]}, "axis 1: needs a name"),
    ({"axes": [{"name": "queue", "labels": ["a"]}]}, "axis 'queue': a label set needs at least two"),
    ({"axes": {"name": "queue"}}, "must be a list"),
    ({"axes": [], "labels": ["a", "b"]}, "not both"),
    (["a", "b"], "not a label set"),
])
def test_bad_axes_files_are_one_line_errors(tmp_path, data, message):
    path = tmp_path / "axes.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message) as error:
        Axes.load(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_an_axis_is_found_by_its_name_and_the_first_stands_in_for_a_name_gone():
    axes = Axes((Axis("queue", QUEUE), Axis("priority", PRIORITY)))
    assert axes.named("priority").label_set == PRIORITY
    assert axes.named("type").name == "queue"      # a window between two sets of axes shows the first

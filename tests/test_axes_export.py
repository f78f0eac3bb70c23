"""Several axes out (files/axes_export.py) and the helpdesk's way back (files/updates.py), on tiny frames."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from cli_helpers import read_rows

from triage_app.engine.axes import Axes, Axis
from triage_app.engine.labels import LabelSet
from triage_app.engine.prediction import Prediction
from triage_app.files import updates
from triage_app.files.axes_export import AxisAnswers, axes_columns, axes_frame

QUEUE = Axis("queue", LabelSet.from_names(["billing", "technical"]))
PRIORITY = Axis("priority", LabelSet.from_names(["high", "low"]))


def predicted(axis: Axis, confidences: list[float | None]) -> list[Prediction]:
    """Row r's first label at confidences[r] (None: a blank ticket)."""
    return [Prediction(r, axis.names, None if c is None else [math.log(c), math.log(1 - c)])
            for r, c in enumerate(confidences)]


def test_each_axis_writes_its_own_columns_after_the_input_ones():
    frame = pd.DataFrame({"id": ["7", "8", "9"], "queue": ["billing", "", "technical"]})
    answers = [AxisAnswers(QUEUE, predicted(QUEUE, [0.9, 0.6, None]), person_labels={1: "technical"}),
               AxisAnswers(PRIORITY, predicted(PRIORITY, [0.55, 0.8, None]), review_below=0.5)]
    out = axes_frame(frame, answers)
    assert list(out.columns) == ["id", "queue_input", "queue", "queue_confidence", "queue_margin", "p_queue_billing",
                                 "p_queue_technical", "queue_needs_review", "queue_source", "priority",
                                 "priority_confidence", "priority_margin", "p_priority_high", "p_priority_low",
                                 "priority_needs_review", "priority_source", "truncated"]
    assert out["queue_input"].tolist() == ["billing", "", "technical"]     # the helpdesk's own column kept
    assert out["queue"].tolist()[:2] == ["billing", "technical"] and pd.isna(out["queue"][2])
    assert out["queue_source"].tolist() == ["model", "person", "model"]
    assert out["queue_needs_review"].tolist() == [False, False, True]      # the person's never; blank always
    assert out["priority_needs_review"].tolist() == [False, False, True]   # its own gate: 0.5
    assert out["priority_confidence"][1] == pytest.approx(0.8)


def test_axes_whose_columns_collide_are_refused():
    a = Axis("a", LabelSet.from_names(["b_c", "d"]))
    ab = Axis("a_b", LabelSet.from_names(["c", "e"]))
    with pytest.raises(ValueError, match="p_a_b_c twice"):
        axes_columns(Axes((a, ab)))


@pytest.mark.parametrize("columns, found", [
    (["subject", "Ticket ID", "body"], "Ticket ID"),
    (["number", "id"], "id"),
    (["Case Number", "text"], "Case Number"),
    (["subject", "body", "queue"], None),
])
def test_the_ticket_id_column_is_detected(columns, found):
    assert updates.detect_id_column(columns) == found


def updates_of(ids=("101", "102", "103", "")):
    answers = [AxisAnswers(QUEUE, predicted(QUEUE, [0.9, 0.6, 0.79, 0.95]), person_labels={1: "technical", 2: "billing"},
                           from_file=frozenset({2})),
               AxisAnswers(PRIORITY, predicted(PRIORITY, [0.55, 0.7, 0.65, None]))]
    return updates.updates(list(ids), answers, {"queue": 0.8, "priority": 0.7})


def test_updates_hold_only_what_is_sure_enough_or_a_persons_and_never_the_files_own():
    found = updates_of()
    assert found.records == [{"id": "101", "fields": {"queue": "billing"}},                       # 0.9; 0.55 < 0.7
                             {"id": "102", "fields": {"queue": "technical", "priority": "high"}}]  # a person's; 0.7
    assert found.without_id == 1     # row 3: sure of its queue, but no id to send it to
    assert found.fields == 3


def test_updates_are_written_as_csv_and_json(tmp_path):
    found = updates_of()
    updates.write(found, ["queue", "priority"], tmp_path / "u.csv")
    assert read_rows(tmp_path / "u.csv") == [{"id": "101", "queue": "billing", "priority": ""},
                                             {"id": "102", "queue": "technical", "priority": "high"}]
    updates.write(found, ["queue", "priority"], tmp_path / "u.json")
    assert json.loads((tmp_path / "u.json").read_text()) == found.records


@pytest.mark.parametrize("path, names, message", [
    ("u.xlsx", ["queue"], ".csv or .json"),
    ("u.csv", ["id", "queue"], "axis named id"),
    ("u.json", ["queue", "ID"], "axis named ID"),
    ("u.csv", ["Id", "queue"], "axis named Id"),
])
def test_bad_updates_paths_are_refused(path, names, message):
    with pytest.raises(ValueError, match=message):
        updates.check_path(path, names)


def test_an_input_column_named_like_a_labels_first_mark_is_kept():
    """A labels-first run writes read_by_model (one field) or <field>_read_by_model after the frame is built:
    an input column of that name is kept under another, as every other column of ours, never overwritten."""
    from triage_app.files.export import results_frame

    plain = results_frame(pd.DataFrame({"text": ["a"], "read_by_model": ["agent-7"]}, dtype=object),
                          predicted(QUEUE, [0.9]), QUEUE.names)
    assert plain["read_by_model_input"].tolist() == ["agent-7"] and "read_by_model" not in plain.columns
    frame = pd.DataFrame({"id": ["7"], "queue_read_by_model": ["agent-9"]})
    out = axes_frame(frame, [AxisAnswers(QUEUE, predicted(QUEUE, [0.9])), AxisAnswers(PRIORITY, predicted(PRIORITY, [0.6]))])
    assert out["queue_read_by_model_input"].tolist() == ["agent-9"] and "queue_read_by_model" not in out.columns

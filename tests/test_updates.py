"""The helpdesk's way back (files/updates.py): one update per ticket id, and the id exactly as the file spells it."""

from __future__ import annotations

import csv
import json
import math

import openpyxl
import pytest

from triage_app.engine.axes import Axis
from triage_app.engine.labels import LabelSet
from triage_app.engine.prediction import Prediction
from triage_app.files import updates
from triage_app.files.axes_export import AxisAnswers
from triage_app.files.reader import read_tickets

QUEUE = Axis("queue", LabelSet.from_names(["Shipping", "Payments"]))
PRIORITY = Axis("priority", LabelSet.from_names(["Urgent", "Low"]))


def sure(axis: Axis, labels: list[str | None]) -> list[Prediction]:
    """Row r answered labels[r] at 0.9 (None: a blank ticket)."""
    return [Prediction(r, axis.names, [math.log(0.9 if n == label else 0.1) for n in axis.names])
            for r, label in enumerate(labels) if label is not None]


def found_for(ids, queue, priority, person_labels=None, from_file=frozenset()):
    answers = [AxisAnswers(QUEUE, sure(QUEUE, queue), person_labels=person_labels or {}, from_file=from_file),
               AxisAnswers(PRIORITY, sure(PRIORITY, priority))]
    return updates.updates(ids, answers, {"queue": 0.7, "priority": 0.7})


def written_csv(found, path):
    updates.write(found, ["queue", "priority"], path)
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def test_identical_updates_for_a_repeated_id_are_one_record():
    found = found_for(["4711", "4712", "4711"], ["Shipping", "Payments", "Shipping"], ["Urgent", None, "Urgent"])
    assert found.records == [{"id": "4711", "fields": {"queue": "Shipping", "priority": "Urgent"}},
                             {"id": "4712", "fields": {"queue": "Payments"}}]
    assert found.notes == []


def test_a_repeated_id_whose_rows_disagree_loses_that_field_and_says_so(tmp_path):
    found = found_for(["4711", "4711", "9"], ["Shipping", "Payments", "Shipping"], ["Urgent", "Urgent", None])
    assert found.records == [{"id": "4711", "fields": {"priority": "Urgent"}},   # the field they agree on stays
                             {"id": "9", "fields": {"queue": "Shipping"}}]
    assert found.conflicts == {"4711": ["queue"]}
    assert len(found.notes) == 1 and "1 ticket id" in found.notes[0] and "'4711' (queue)" in found.notes[0]
    assert written_csv(found, tmp_path / "u.csv") == [["id", "queue", "priority"], ["4711", "", "Urgent"],
                                                      ["9", "Shipping", ""]]
    updates.write(found, ["queue", "priority"], tmp_path / "u.json")
    assert json.loads((tmp_path / "u.json").read_text()) == found.records


def test_a_persons_label_beats_the_models_answer_on_a_repeated_id():
    found = found_for(["4711", "4711"], ["Shipping", "Shipping"], [None, None], person_labels={1: "Payments"})
    assert found.records == [{"id": "4711", "fields": {"queue": "Payments"}}]
    assert found.conflicts == {} and found.settled == ["4711"]
    assert "a person's label decided" in found.notes[0] and "'4711'" in found.notes[0]


def test_two_persons_labels_that_disagree_leave_the_field_out():
    found = found_for(["4711", "4711", "4711"], ["Shipping", None, None], [None, None, None],
                      person_labels={1: "Payments", 2: "Shipping"})
    assert found.records == [] and found.conflicts == {"4711": ["queue"]}
    assert "your labels, disagree" in found.notes[0] and "no person's label" not in found.notes[0]


def test_the_files_own_label_on_a_repeated_id_is_not_overwritten_by_the_model():
    # row 0's queue is the helpdesk's own (--person-labels); the model's different answer on row 1 must not replace it
    found = found_for(["4711", "4711"], [None, "Shipping"], [None, None], person_labels={0: "Payments"},
                      from_file=frozenset({0}))
    assert found.records == [] and found.kept == ["4711"] and found.settled == []
    assert found.notes == ["1 ticket id(s) are on several rows with different values; the file's own value "
                           "decided, so nothing is sent: '4711'"]


@pytest.mark.parametrize("id_", ["4711", "-17", "+5", "  88 ", "0.30000000000000004", "PROJ-12", "1e5"])
def test_an_id_reaches_csv_and_json_exactly_as_given(tmp_path, id_):
    found = found_for([id_], ["Shipping"], [None])
    assert written_csv(found, tmp_path / "u.csv")[1] == [id_, "Shipping", ""]
    updates.write(found, ["queue", "priority"], tmp_path / "u.json")
    assert json.loads((tmp_path / "u.json").read_text())[0]["id"] == id_


def test_ids_that_differ_only_by_spaces_stay_two_tickets():
    found = found_for(["  88 ", "88"], ["Shipping", "Payments"], [None, None])
    assert [r["id"] for r in found.records] == ["  88 ", "88"] and found.conflicts == {}


@pytest.mark.parametrize("id_", ["=1+2", "@SUM(A1)", "-1+cmd|' /C calc'!A0", "\t5"])
def test_an_id_a_spreadsheet_would_run_is_refused_in_csv_and_kept_in_json(tmp_path, id_):
    found = found_for([id_, "7"], ["Shipping", "Payments"], [None, None])
    assert written_csv(found, tmp_path / "u.csv") == [["id", "queue", "priority"], ["7", "Payments", ""]]
    assert found.refused == [id_]
    assert any("1 ticket" in n and repr(id_) in n and ".json" in n for n in found.notes)
    found = found_for([id_, "7"], ["Shipping", "Payments"], [None, None])
    updates.write(found, ["queue", "priority"], tmp_path / "u.json")
    assert [r["id"] for r in json.loads((tmp_path / "u.json").read_text())] == [id_, "7"]
    assert found.refused == []


def test_a_label_a_spreadsheet_would_run_is_refused_in_csv(tmp_path):
    axis = Axis("queue", LabelSet.from_names(["=cmd", "Payments"]))
    answers = [AxisAnswers(axis, [Prediction(0, axis.names, [math.log(0.9), math.log(0.1)])])]
    found = updates.updates(["7"], answers, {"queue": 0.7})
    updates.write(found, ["queue"], tmp_path / "u.csv")
    assert (tmp_path / "u.csv").read_text().splitlines() == ["id,queue"]
    assert found.refused == ["7"]


def ticket_files(tmp_path, ids: list[str]):
    """The same tickets as CSV, JSON and XLSX, every id a text cell."""
    rows = [{"id": id_, "text": f"ticket {k}"} for k, id_ in enumerate(ids)]
    with open(tmp_path / "t.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, ["id", "text"])
        writer.writeheader()
        writer.writerows(rows)
    (tmp_path / "t.json").write_text(json.dumps(rows))
    book = openpyxl.Workbook()
    book.active.append(["id", "text"])
    for row in rows:
        book.active.append([row["id"], row["text"]])
        book.active.cell(book.active.max_row, 1).data_type = "s"   # text, never a formula
    book.save(tmp_path / "t.xlsx")
    return [tmp_path / f"t.{fmt}" for fmt in ("csv", "json", "xlsx")]


@pytest.mark.parametrize("fmt", [0, 1, 2], ids=["csv", "json", "xlsx"])
def test_ids_read_from_each_format_reach_the_updates_as_the_file_spells_them(tmp_path, fmt):
    ids = ["-17", "  88 ", "88", "=1+2", "0.30000000000000004"]
    frame = read_tickets(ticket_files(tmp_path, ids)[fmt]).frame
    assert frame["id"].tolist() == ids
    found = found_for(frame["id"].tolist(), ["Shipping"] * 5, [None] * 5)
    assert [row[0] for row in written_csv(found, tmp_path / "u.csv")[1:]] == ["-17", "  88 ", "88",
                                                                                "0.30000000000000004"]
    assert found.refused == ["=1+2"]
    updates.write(found, ["queue", "priority"], tmp_path / "u.json")
    assert [r["id"] for r in json.loads((tmp_path / "u.json").read_text())] == ids


def test_a_float_id_an_excel_file_holds_in_full_reaches_the_updates_in_full(tmp_path):
    import zipfile

    book = openpyxl.Workbook()
    book.active.append(["id", "text"])
    book.active.append([0.30000000000000004, "where is my parcel"])
    book.save(tmp_path / "short.xlsx")                   # openpyxl writes 16 digits: <v>0.3</v>
    with zipfile.ZipFile(tmp_path / "short.xlsx") as short, zipfile.ZipFile(tmp_path / "t.xlsx", "w") as full:
        for item in short.infolist():                    # Excel writes 17: the number in full
            data = short.read(item)
            if item.filename.startswith("xl/worksheets/"):
                data = data.replace(b"<v>0.3</v>", b"<v>0.30000000000000004</v>")
            full.writestr(item, data)
    ids = read_tickets(tmp_path / "t.xlsx").frame["id"].tolist()
    assert ids == ["0.30000000000000004"]
    assert written_csv(found_for(ids, ["Shipping"], [None]), tmp_path / "u.csv")[1][0] == "0.30000000000000004"

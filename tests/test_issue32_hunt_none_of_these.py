"""Issue 32, the hunt: --none-of-these writes "none of these" in the label column; a label set with a label
of that name would make a too-unsure answer and that label's answers one value, in the export and in the
updates the helpdesk takes back. Refused in one line before the model loads."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run_main, write_rows

from triage_app.cli import options

ROWS = [{"id": "1", "text": "I was charged twice", "known": "billing"}, {"id": "2", "text": "App crash", "known": ""}]


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))


@pytest.mark.parametrize("name", ["none of these", "None of these", "NONE OF THESE"])
def test_a_label_named_none_of_these_is_refused_with_none_of_these(tmp_path, capsys, no_model, name):
    tickets = write_rows(tmp_path / "t.csv", ROWS)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"labels": ["billing", name]}))
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", "--labels-file", labels,
                            "--person-labels", "known", "--none-of-these", "--db", tmp_path / "r.db")
    refused = [line for line in err if line.startswith("triage-app:")]
    assert code == 2 and refused == err[-1:] and "--none-of-these" in err[-1] and name in err[-1]


def test_on_one_axis_of_several(tmp_path, capsys, no_model):
    tickets = write_rows(tmp_path / "t.csv", [dict(r, prio="High" if r["known"] else "") for r in ROWS])
    labels = tmp_path / "axes.json"
    labels.write_text(json.dumps({"axes": [{"name": "queue", "labels": ["billing", "technical"]},
                                           {"name": "priority", "labels": ["High", "None of these"]}]}))
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", "--labels-file", labels,
                            "--person-labels", "queue=known,priority=prio", "--none-of-these", "--db", tmp_path / "r.db")
    assert code == 2 and err[-1].startswith("triage-app:") and "priority" in err[-1]

"""Issue 32, the hunt: options that find nothing to act on are said, not passed over: --with-subject on a
file with no subject column, a text column blank on every row (the wrong column), and a verify with no
ticket to check, which said OK."""

from __future__ import annotations

import pytest
from cli_helpers import run_main, write_rows

from triage_app.cli import options

LABELS = ["--labels", "billing,technical"]


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(options, "load_model", lambda args: pytest.fail("the model was loaded"))


def test_verify_with_no_ticket_to_check_is_refused(tmp_path, capsys, no_model):
    blank = write_rows(tmp_path / "b.csv", [{"id": "1", "text": ""}, {"id": "2", "text": "   "}])
    code, _, err = run_main(capsys, "verify", blank, *LABELS, "--text-column", "text")
    refused = [line for line in err if line.startswith("triage-app:")]
    assert code == 2 and refused == err[-1:] and "b.csv" in err[-1] and "nothing to check" in err[-1]


def test_a_text_column_blank_on_every_row_is_said(tmp_path, capsys, tiny_model):
    rows = [{"id": "1", "notes": "", "body": "I was charged twice"}, {"id": "2", "notes": " ", "body": "App crash"}]
    tickets = write_rows(tmp_path / "t.csv", rows)
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", *LABELS, "--text-column", "notes",
                            "--db", tmp_path / "r.db")
    assert code == 0, err
    said = [line for line in err if "blank on every row" in line]
    assert len(said) == 1 and "notes" in said[0]


def test_with_subject_and_no_subject_column_is_said(tmp_path, capsys, tiny_model):
    tickets = write_rows(tmp_path / "t.csv", [{"id": "1", "text": "I was charged twice"}])
    code, _, err = run_main(capsys, "classify", tickets, "-o", tmp_path / "o.csv", *LABELS, "--with-subject",
                            "--db", tmp_path / "r.db")
    assert code == 0, err
    assert len([line for line in err if "--with-subject" in line and "no subject column" in line]) == 1

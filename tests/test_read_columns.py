"""Which column holds the ticket text: an id, a status or a count named after the ticket is never it."""

from __future__ import annotations

import pytest

from cli_helpers import run_main
from triage_app.files.reader import BadInput, detect_gold_column, detect_text_column, read_tickets


@pytest.mark.parametrize("header, text", [
    ("Ticket #,Created,Customer,Issue", "Issue"),
    ("Ticket#,Customer,Description", "Description"),
    ("Ticket Number,Ticket Status,Customer Comments", "Customer Comments"),
    ("Ticket Type,Message Count,Ticket Ref,Ticket Date,Message", "Message"),
    ("ticket_key,ticket_nr,customer_message", "customer_message"),
])
def test_a_column_named_for_a_field_of_the_ticket_is_not_its_text(tmp_path, header, text):
    width = header.count(",") + 1
    (tmp_path / "t.csv").write_text(f"{header}\n" + ",".join(["1001"] * (width - 1) + ["My card was charged"]) + "\n",
                                    encoding="utf-8")
    assert detect_text_column(read_tickets(tmp_path / "t.csv")) == text


def test_a_ticket_type_is_still_a_column_of_answers(tmp_path):
    (tmp_path / "t.csv").write_text("Ticket #,Ticket Type,Description\n1001,billing,charged twice\n", encoding="utf-8")
    assert detect_gold_column(read_tickets(tmp_path / "t.csv")) == "Ticket Type"


def test_the_command_line_says_which_column_it_read_the_text_from(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("Ticket #,Issue\n1001,My card was charged twice\n", encoding="utf-8")
    (tmp_path / "results.db").write_bytes(b"this is not a database" * 100)   # stops the run before the model
    code, _, err = run_main(capsys, "classify", tmp_path / "t.csv", "-o", tmp_path / "out.csv",
                            "--db", tmp_path / "results.db", "--model", "/no/such/model.gguf")
    assert code == 2 and err[0] == "note: ticket text from column 'Issue'", err


def test_a_count_of_tickets_is_not_ticket_text(tmp_path):
    (tmp_path / "t.csv").write_text("category,tickets,Open Issues\ncards,2,1\n", encoding="utf-8")
    with pytest.raises(BadInput, match="no ticket text column"):
        detect_text_column(read_tickets(tmp_path / "t.csv"))

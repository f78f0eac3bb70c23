"""Which sheet of a workbook is read when none is named: the one Excel opens on, never a hidden one."""

from __future__ import annotations

import openpyxl

from triage_app.files.reader import read_tickets

TICKETS = [["id", "text"], [1, "My card was charged twice"], [2, "Cannot log in"]]


def workbook(path, hidden_first: bool, active: int):
    book = openpyxl.Workbook()
    lookup = book.active
    lookup.title = "Lookup"
    lookup.append(["code", "description"])
    lookup.append(["B", "Billing questions"])
    if hidden_first:
        lookup.sheet_state = "hidden"
    tickets = book.create_sheet("Tickets")
    for row in TICKETS:
        tickets.append(row)
    book.create_sheet("Notes").append(["note", "kept for later"])
    book.active = active
    book.save(path)
    return path


def test_a_hidden_first_sheet_is_passed_over_for_the_active_one(tmp_path):
    table = read_tickets(workbook(tmp_path / "t.xlsx", hidden_first=True, active=1))
    assert table.sheet == "Tickets" and table.frame["text"].tolist() == [r[1] for r in TICKETS[1:]]
    assert table.warnings == ["read sheet 'Tickets' of 3"]


def test_a_hidden_active_sheet_gives_way_to_the_first_visible_one(tmp_path):
    path = workbook(tmp_path / "t.xlsx", hidden_first=True, active=0)
    assert read_tickets(path).sheet == "Tickets"


def test_the_active_sheet_is_read_and_a_named_one_still_wins(tmp_path):
    path = workbook(tmp_path / "t.xlsx", hidden_first=False, active=1)
    assert read_tickets(path).sheet == "Tickets"
    assert read_tickets(path, sheet="Lookup").frame["code"].tolist() == ["B"]
    assert read_tickets(path, sheet=0).sheet == "Lookup"

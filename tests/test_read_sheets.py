"""Which sheet of a workbook is read when none is named: the first visible one that holds cells, never a hidden
one, nor the active one in its place (the window offers no other sheet)."""

from __future__ import annotations

import openpyxl

from triage_app.files.opening import open_tickets
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


def test_the_first_visible_sheet_is_read_not_the_active_one_and_a_named_one_still_wins(tmp_path):
    path = workbook(tmp_path / "t.xlsx", hidden_first=False, active=1)
    assert read_tickets(path).sheet == "Lookup"
    assert read_tickets(path, sheet="Tickets").frame["text"].tolist() == [r[1] for r in TICKETS[1:]]
    assert read_tickets(path, sheet=0).sheet == "Lookup"


def test_a_summary_saved_active_after_the_tickets_does_not_open_in_their_place(tmp_path):
    book = openpyxl.Workbook()
    book.active.title = "Tickets"
    for row in [["id", "text", "category"], [1, "card lost", "cards"], [2, "refund please", "refunds"]]:
        book.active.append(row)
    summary = book.create_sheet("Summary")
    for row in [["category", "tickets"], ["cards", 1], ["refunds", 1]]:
        summary.append(row)
    book.active = 1
    book.save(tmp_path / "t.xlsx")
    opened = open_tickets(tmp_path / "t.xlsx")
    assert opened.table.sheet == "Tickets" and opened.texts == ["card lost", "refund please"]


def test_an_empty_sheet_first_or_active_does_not_make_the_workbook_empty(tmp_path):
    book = openpyxl.Workbook()
    tickets = book.create_sheet("Tickets")
    for row in TICKETS:
        tickets.append(row)
    book.create_sheet("Notes")
    book.active = 2
    book.save(tmp_path / "t.xlsx")
    table = read_tickets(tmp_path / "t.xlsx")
    assert table.sheet == "Tickets" and table.frame["text"].tolist() == [r[1] for r in TICKETS[1:]]

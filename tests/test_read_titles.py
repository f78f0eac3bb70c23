"""A title row above the header (an export's name and date) is skipped and said, in a CSV and a sheet alike."""

from __future__ import annotations

import openpyxl
import pytest

from triage_app.files.opening import open_tickets
from triage_app.files.reader import read_tickets

ROWS = ["id,text,category", '1,"My card was charged twice, please refund",billing', "2,Cannot log in,technical"]


@pytest.mark.parametrize("delimiter, title", [(",", "Ticket export 2026-01-05,,"), (";", "Ticket export 2026-01-05;;"),
                                              (";", "Ticket export 2026-01-05"), ("\t", "Tickets\r\nJanuary 2026\t\t")])
def test_a_title_above_a_csv_header_is_skipped_and_said(tmp_path, delimiter, title):
    body = "\r\n".join(row.replace(",", delimiter) if delimiter != "," else row for row in ROWS)
    body = body.replace("twice; please", "twice, please")
    (tmp_path / "t.csv").write_text(f"{title}\r\n\r\n{body}\r\n", encoding="utf-8")
    opened = open_tickets(tmp_path / "t.csv", guess=False)
    assert opened.table.delimiter == delimiter
    assert opened.table.columns == ["id", "text", "category"] and opened.text_column == "text"
    assert opened.table.frame["id"].tolist() == ["1", "2"]
    titles = 2 if title.startswith("Tickets") else 1
    first = "Tickets" if titles == 2 else "Ticket export 2026-01-05"
    assert opened.notes == [f"skipped {titles} title row(s) above the header ({first!r})"]


def test_a_merged_title_above_a_sheets_header_is_skipped_and_said(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"] = "Ticket export – January 2026"
    sheet.merge_cells("A1:C1")
    sheet.append([])
    for row in [["id", "text", "category"], [1, "Refund please", "billing"], [2, "Cannot log in", "technical"]]:
        sheet.append(row)
    book.save(tmp_path / "t.xlsx")
    table = read_tickets(tmp_path / "t.xlsx")
    assert table.columns == ["id", "text", "category"] and table.frame["id"].tolist() == ["1", "2"]
    assert table.warnings == ["skipped 1 title row(s) above the header ('Ticket export – January 2026')"]
    assert read_tickets(tmp_path / "t.xlsx", limit=2).frame["id"].tolist() == ["1", "2"]
    assert read_tickets(tmp_path / "t.xlsx", limit=1).frame["id"].tolist() == ["1"]


@pytest.mark.parametrize("text", ["text\r\nhello\r\nworld\r\n", "text\r\nhello; world\r\nbye\r\nagain\r\n",
                                  "text\r\nHi\r\nthere\r\nagain\r\nand\r\nagain\r\n"])
def test_a_one_column_file_reads_as_before(tmp_path, text):
    (tmp_path / "t.csv").write_text(text, encoding="utf-8")
    table = read_tickets(tmp_path / "t.csv")
    assert table.columns == ["text"] and table.frame["text"].tolist() == text.split("\r\n")[1:-1]
    assert table.warnings == []


def test_a_one_column_sheet_reads_as_before(tmp_path):
    book = openpyxl.Workbook()
    for row in [["text"], ["hello"], ["world"]]:
        book.active.append(row)
    book.save(tmp_path / "t.xlsx")
    table = read_tickets(tmp_path / "t.xlsx")
    assert table.columns == ["text"] and table.frame["text"].tolist() == ["hello", "world"] and table.warnings == []


def sheet_of(path, rows):
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


def test_a_stray_note_beside_a_one_column_sheets_ticket_does_not_make_its_header_a_title(tmp_path):
    rows = [["Description"], ["My card was declined"], ["Where is my refund"], ["Card blocked at the ATM", "call back"],
            ["Change my PIN"], ["Lost my card"]]
    opened = open_tickets(sheet_of(tmp_path / "t.xlsx", rows))
    assert opened.text_column == "Description" and opened.texts == [row[0] for row in rows[1:]]
    assert opened.notes == []


@pytest.mark.parametrize("name", ["Ticket text", "Description", "Ticket ID"])
def test_a_header_that_names_one_column_over_an_unnamed_one_is_no_title(tmp_path, name):
    rows = [[name], ["My card was declined", "urgent"], ["Where is my refund", "call back"], ["Card blocked", "urgent"]]
    table = read_tickets(sheet_of(tmp_path / "t.xlsx", rows))
    assert table.columns[0] == name and table.frame[name].tolist() == [row[0] for row in rows[1:]]
    (tmp_path / "t.csv").write_text("\r\n".join(",".join([*row, ""][:2]) for row in rows) + "\r\n", encoding="utf-8")
    table = read_tickets(tmp_path / "t.csv")
    assert table.columns[0] == name and table.frame[name].tolist() == [row[0] for row in rows[1:]]


@pytest.mark.parametrize("mark", ["; ", " | ", "\t"])
def test_a_one_column_file_whose_first_tickets_hold_a_delimiter_reads_as_one_column(tmp_path, mark):
    tickets = [f"Hallo{mark}meine Karte geht nicht", f"Ich brauche Hilfe{mark}bitte schnell",
               f"Guten Tag{mark}wo ist mein Geld", "Die Karte ist gesperrt", "Danke für die schnelle Antwort"]
    (tmp_path / "t.csv").write_text("\r\n".join(["Nachricht", *tickets]) + "\r\n", encoding="utf-8")
    table = read_tickets(tmp_path / "t.csv")
    assert table.delimiter == "," and table.columns == ["Nachricht"] and table.frame["Nachricht"].tolist() == tickets


def test_a_header_naming_its_first_column_only_keeps_its_first_ticket(tmp_path):
    # a hunt's finding: "Customer message," above "My card was declined,card" (an unnamed column of the person's
    # own) was taken for a title, and the first ticket became the header; a header under a title names at least
    # one column as the reader knows them
    path = tmp_path / "t.csv"
    path.write_text("Customer message,\nMy card was declined,card\nI want a refund,refund\nCannot log in,login\n",
                    encoding="utf-8")
    table = read_tickets(path)
    assert table.columns[0] == "Customer message" and len(table.frame) == 3
    assert not any("title" in note for note in table.warnings)

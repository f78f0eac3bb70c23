"""A cell, an id above all, is read as the file spells it: nothing trimmed, rounded or reformatted,
and a header that names two columns alike is said, not silently renamed."""

from __future__ import annotations

import json
import zipfile
from datetime import date, datetime, time

import openpyxl
import pandas as pd
import pytest

from cli_helpers import run_main
from triage_app.files.opening import open_tickets
from triage_app.files.reader import read_tickets
from triage_app.files.table import cell_text

# each id as JSON writes it, and as the cell must read
JSON_IDS = [('"  88 "', "  88 "), ('"88"', "88"), ("0.30000000000000004", "0.30000000000000004"), ("1e5", "1e5"),
            ("1.10", "1.10"), ("-0", "-0"), ("9" * 5000, "9" * 5000), ('"007"', "007")]


def test_json_numbers_and_strings_are_read_as_the_file_spells_them(tmp_path):
    records = ",\n".join(f'{{"id": {written}, "text": "t"}}' for written, _ in JSON_IDS)
    (tmp_path / "t.json").write_text(f"[{records}]")
    (tmp_path / "t.jsonl").write_text(records.replace(",\n", "\n") + "\n")
    for name in ("t.json", "t.jsonl"):
        ids = read_tickets(tmp_path / name).frame["id"].tolist()
        assert ids == [read for _, read in JSON_IDS]
        # text, for the store and the export (a respelled number is a str that hashes as read before)
        assert all(isinstance(i, str) and str.__str__(i) == read for i, (_, read) in zip(ids, JSON_IDS))


def test_json_lists_and_objects_keep_their_numbers_as_written(tmp_path):
    (tmp_path / "t.json").write_text('[{"text": "t", "tags": [1.10, "a\\"b", {"k": 1e5, "é": null}], "n": true}]')
    row = read_tickets(tmp_path / "t.json").frame.iloc[0]
    assert row["tags"] == '[1.10, "a\\"b", {"k": 1e5, "é": null}]'
    assert row["n"] == "true"


def test_csv_cells_keep_their_spaces(tmp_path):
    (tmp_path / "t.csv").write_text('id,text\n  88 ,a\n88,b\n" 0.30000000000000004",c\n')
    assert read_tickets(tmp_path / "t.csv").frame["id"].tolist() == ["  88 ", "88", " 0.30000000000000004"]


@pytest.mark.parametrize("value, shown", [
    (datetime(2026, 1, 2), "2026-01-02"),
    (datetime(2026, 1, 2, 10, 30), "2026-01-02 10:30:00"),
    (date(2026, 1, 2), "2026-01-02"),
    (time(10, 30), "10:30:00"),
    (0.30000000000000004, "0.30000000000000004"),
    (2.0, "2"),
    (1e16, "10000000000000000"),
    (123456789012345000.0, "123456789012345000"),     # int() of the float: 123456789012344992
    (-9.007199254740993e15, "-9007199254740992"),
    (1.5e-7, "1.5e-07"),
    (42, "42"),
    ("  88 ", "  88 "),
])
def test_a_spreadsheet_cell_is_text_as_the_sheet_shows_it(value, shown):
    assert cell_text(value) == shown


def write_book(path, rows):
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


def test_xlsx_ids_are_read_as_the_sheet_shows_them(tmp_path):
    written = write_book(tmp_path / "w.xlsx", [["id", "text"], [datetime(2026, 1, 2), "a"], ["  88 ", "b"],
                                               [0.25, "c"], [datetime(2026, 1, 2, 10, 30), "d"]])
    path = tmp_path / "t.xlsx"
    with zipfile.ZipFile(written) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():   # openpyxl writes 0.30000000000000004 as 0.3; Excel writes all 17 digits
            data = src.read(info)
            dst.writestr(info, data.replace(b"<v>0.25</v>", b"<v>0.30000000000000004</v>"))
    ids = read_tickets(path).frame["id"].tolist()
    assert ids == ["2026-01-02", "  88 ", "0.30000000000000004", "2026-01-02 10:30:00"]


REPEAT_NOTE = ("the header repeats a name: “id” names columns 1, 3, read as “id”, “id_2”; "
               "choosing a column by a repeated name takes the first")


def test_a_repeated_header_name_is_said_in_the_files_notes(tmp_path):
    (tmp_path / "t.csv").write_text("id,text,id\n1,hello,2\n")
    opened = open_tickets(tmp_path / "t.csv")
    assert opened.table.columns == ["id", "text", "id_2"]
    assert opened.notes == [REPEAT_NOTE]   # the window shows these, the command line prints them


def test_a_header_with_every_name_different_has_no_note(tmp_path):
    (tmp_path / "t.csv").write_text("id,text,id_2,,\n1,hello,2,,\n")
    assert read_tickets(tmp_path / "t.csv").warnings == []


def test_inspect_says_a_header_repeats_a_name(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("id,text,id\n1,hello,2\n")
    code, out, _ = run_main(capsys, "inspect", tmp_path / "t.csv", "--json")
    assert code == 0 and json.loads(out)["warnings"] == [REPEAT_NOTE]


def test_a_repeated_header_name_in_a_workbook_is_said(tmp_path):
    path = write_book(tmp_path / "t.xlsx", [["id", "text", "id"], [1, "hello", 2]])
    assert read_tickets(path).warnings == [REPEAT_NOTE]


def test_a_whole_number_past_float_precision_keeps_the_files_digits_and_its_rows_labels(tmp_path):
    """Excel keeps 15 significant digits: the id 123456789012345000 is the float 1.23456789012345e+17, which
    int() spelled 123456789012344992, an id the helpdesk never had. Its row keeps the key it had."""
    from triage_app.files.ticket_keys import row_hashes

    path = write_book(tmp_path / "t.xlsx", [["id", "text"], [123456789012345000.0, "a"], [7, "b"]])
    frame = read_tickets(path).frame
    assert frame["id"].tolist() == ["123456789012345000", "7"]
    before = pd.DataFrame({"id": ["123456789012344992", "7"], "text": ["a", "b"]}, dtype=object)
    assert row_hashes(frame) == row_hashes(before)


@pytest.mark.parametrize("name, text", [
    ("t.json", '[{"id": "A-1", "text": "charged twice", "note": "call Monday", "note": "VIP"}, {"id": "A-2", "text": "x"}]'),
    ("t.jsonl", '{"id": "A-1", "text": "charged twice", "note": "call Monday", "note": "VIP"}\n{"id": "A-2", "text": "x"}\n'),
])
def test_a_record_that_gives_a_key_twice_is_said(tmp_path, name, text):
    """json.loads keeps the last value of a repeated key without a word; the reader keeps it too (the row's
    cells and key stay) and says which key lost a value, as a repeated CSV header is said."""
    (tmp_path / name).write_text(text)
    opened = open_tickets(tmp_path / name)
    assert opened.table.frame["note"].tolist() == ["VIP", ""]
    assert opened.notes == [f"{name}: a record gives a key twice (“note” in 1 record(s)): read as its last value, "
                            "as JSON readers do; the earlier value is not read"]

"""Ticket files as helpdesks export them, and every bad one with its exact message."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest

from triage_app.files.reader import (BadInput, check_column, detect_gold_column, detect_subject_column,
                                     detect_text_column, read_tickets)

HEADER_AND_ROWS = [["id", "subject", "body"], ["1", "Refund", "Please refund me, café crème"], ["2", "Crash", "App crashes"]]


def write_delimited(path, rows, delimiter=",", encoding="utf-8", newline="\n"):
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator=newline).writerows(rows)
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiter_is_sniffed(tmp_path, delimiter):
    table = read_tickets(write_delimited(tmp_path / "t.csv", HEADER_AND_ROWS, delimiter))
    assert table.delimiter == delimiter
    assert table.columns == ["id", "subject", "body"]
    assert table.frame["body"].tolist() == ["Please refund me, café crème", "App crashes"]


@pytest.mark.parametrize("encoding, expected", [
    ("utf-8", "utf-8"), ("utf-8-sig", "utf-8-sig"), ("utf-16", "utf-16"), ("cp1252", "cp1252"),
])
def test_encodings_round_trip(tmp_path, encoding, expected):
    rows = HEADER_AND_ROWS + [["3", "Déjà vu", "Façade naïve, rôle, coöperate — “quoted” €5 charge"]]
    table = read_tickets(write_delimited(tmp_path / "t.csv", rows, encoding=encoding))
    assert table.encoding.replace("_", "-").lower() in (expected, "windows-1252" if expected == "cp1252" else expected)
    assert table.frame["body"].tolist() == [r[2] for r in rows[1:]]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_and_quoted_fields_with_newlines_and_quotes(tmp_path, newline):
    text = newline.join(['id,text', '1,"First line' + newline + 'second line"', '2,"She said ""hi"", then left"']) + newline
    (tmp_path / "t.csv").write_bytes(text.encode())
    table = read_tickets(tmp_path / "t.csv")
    assert table.frame["text"].tolist() == [f"First line{newline}second line", 'She said "hi", then left']


def test_xlsx_first_sheet_or_chosen(tmp_path):
    path = tmp_path / "t.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"id": [1, 2], "description": ["A", "B"]}).to_excel(writer, sheet_name="Tickets", index=False)
        pd.DataFrame({"message": ["x"]}).to_excel(writer, sheet_name="Other", index=False)
    table = read_tickets(path)
    assert table.sheet == "Tickets" and detect_text_column(table) == "description"
    assert table.frame["id"].tolist() == ["1", "2"] and table.warnings == ["read sheet 'Tickets' of 2"]
    assert read_tickets(path, sheet="Other").frame["message"].tolist() == ["x"]
    with pytest.raises(BadInput, match="no sheet 'Nope'; the sheets are Tickets, Other"):
        read_tickets(path, sheet="Nope")


def test_json_and_jsonl(tmp_path):
    records = [{"id": 1, "message": "Where is my invoice?"}, {"id": 2, "message": "Login fails", "extra": [1]}]
    (tmp_path / "t.json").write_text(json.dumps(records))
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    for name in ("t.json", "t.jsonl"):
        table = read_tickets(tmp_path / name)
        assert table.columns == ["id", "message", "extra"]
        assert table.frame["message"].tolist() == ["Where is my invoice?", "Login fails"]
        assert table.frame["extra"].tolist() == ["", "[1]"]


def test_text_column_detection_and_subject(tmp_path):
    table = read_tickets(write_delimited(tmp_path / "t.csv", HEADER_AND_ROWS))
    assert detect_text_column(table) == "body" and detect_subject_column(table) == "subject"
    assert table.texts("body", "subject")[0] == "Refund\n\nPlease refund me, café crème"
    with pytest.raises(BadInput, match="no column 'nope'; the columns are: id, subject, body"):
        check_column(table, "nope")


def test_rows_are_never_reordered_dropped_or_merged(tmp_path):
    rows = [["id", "text"]] + [[str(i), "" if i % 7 == 0 else f"ticket {i}"] for i in range(500)]
    table = read_tickets(write_delimited(tmp_path / "t.csv", rows))
    assert table.frame["id"].tolist() == [str(i) for i in range(500)]
    assert table.frame["text"].tolist()[7] == ""  # blank texts are kept in place


@pytest.mark.parametrize("name, content, message", [
    ("empty.csv", b"", "empty.csv: the file is empty"),
    ("blank.csv", b"\n\n  \n", "blank.csv: the file is empty"),
    ("header.csv", b"id,text\n", "header.csv: the file has a header but no tickets"),
    ("ragged.csv", b"id,text\n1,ok\n2,too,many\n3,fine\n", "ragged.csv: line 3 has 3 fields, the header has 2"),
    ("binary.csv", bytes(range(256)) * 8, "binary.csv: this looks like a binary file, not a table of tickets"),
    ("bad.json", b"[{\"a\": 1},", "bad.json: not valid JSON (line 1: Expecting value)"),
    ("shape.json", b"{\"a\": 1, \"b\": 2}", "shape.json: expected a JSON list of objects, one per ticket"),
    ("bad.jsonl", b"{\"a\": 1}\nnot json\n", "bad.jsonl: line 2 is not valid JSON (Expecting value)"),
    ("broken.xlsx", b"PK\x03\x04 not really a zip", "broken.xlsx: not a readable Excel workbook (BadZipFile)"),
    ("quote.csv", b"id,text\n1,\"never closed\n", "quote.csv: line 2: unexpected end of data"),
])
def test_bad_files_get_one_line_reasons(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(BadInput) as info:
        read_tickets(tmp_path / name)
    assert str(info.value) == message


def test_missing_file_and_missing_text_column(tmp_path):
    with pytest.raises(BadInput, match="no such file"):
        read_tickets(tmp_path / "nope.csv")
    table = read_tickets(write_delimited(tmp_path / "t.csv", [["id", "amount"], ["1", "5"]]))
    with pytest.raises(BadInput, match="no ticket text column found .* the columns are id, amount"):
        detect_text_column(table)


def test_columns_are_found_by_a_word_of_their_name(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("ticket_id,customer_message,assigned_queue\nHD-1,Where is my parcel?,Shipping\n", encoding="utf-8")
    ids_only = tmp_path / "ids.csv"
    ids_only.write_text("ticket_id,ticket_body\n1,hello\n", encoding="utf-8")
    assert detect_text_column(read_tickets(ids_only)) == "ticket_body"  # an id column is never the text
    table = read_tickets(path)
    assert detect_text_column(table) == "customer_message"   # "message", one word of the name
    assert detect_gold_column(table) == "assigned_queue"
    exact = tmp_path / "exact.csv"
    exact.write_text("message_id,text,category\n1,hello,billing\n", encoding="utf-8")
    assert detect_text_column(read_tickets(exact)) == "text"  # an exact name wins over a word in another


def test_no_gold_column_is_none(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("id,text\n1,hello\n", encoding="utf-8")
    assert detect_gold_column(read_tickets(path)) is None

"""Ticket files as helpdesks export them, and every bad one with its exact message."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest

from triage_app.files.opening import open_tickets
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


def test_a_chart_sheet_in_front_of_the_tickets_is_passed_over_and_named_when_chosen(tmp_path):
    # a hunt's finding: "cannot read this file (AttributeError: 'Chartsheet' object has no attribute ...)"
    import openpyxl
    from openpyxl.chart import BarChart, Reference

    book = openpyxl.Workbook()
    book.active.title = "Tickets"
    for row in (["id", "text"], [1, "my card was charged twice"], [2, "the app crashes"]):
        book.active.append(row)
    chart = BarChart()
    chart.add_data(Reference(book.active, min_col=1, min_row=1, max_row=3), titles_from_data=True)
    book.create_chartsheet("Overview", 0).add_chart(chart)
    book.save(tmp_path / "book.xlsx")
    table = read_tickets(tmp_path / "book.xlsx")
    assert table.sheet == "Tickets" and table.frame["text"].tolist() == ["my card was charged twice", "the app crashes"]
    for chosen in ("Overview", 0):
        with pytest.raises(BadInput, match="sheet 'Overview' is a chart, not cells; the sheets are Tickets$"):
            read_tickets(tmp_path / "book.xlsx", sheet=chosen)
    assert read_tickets(tmp_path / "book.xlsx", sheet=1).sheet == "Tickets"     # a number counts every tab


@pytest.mark.parametrize("body", ["café", "Straße", "Müller", "crème brûlée"])
def test_a_short_windows_1252_file_reads_as_windows_1252(tmp_path, body):
    # a hunt's finding: with one accented letter, charset-normalizer names the match that decodes as cp1252 after
    # another code page, and cp1252 was then passed over: "café" was read as cp1006's "cafﻠ"
    (tmp_path / "t.csv").write_bytes(f"id,text\n1,{body}\n".encode("cp1252"))
    table = read_tickets(tmp_path / "t.csv")
    assert table.frame["text"].tolist() == [body] and table.encoding == "cp1252"


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


# each file that cannot be used gets one line: its name and why (more cases with the XLSX tests below)
BAD_FILES = [
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
]


def test_missing_file_and_missing_text_column(tmp_path):
    with pytest.raises(BadInput, match="no such file"):
        read_tickets(tmp_path / "nope.csv")
    with pytest.raises(BadInput, match="a folder, not a file of tickets"):     # was "no such file": it is there
        read_tickets(tmp_path)
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


# hostile and careless files: each ends in one line naming the file, never another exception
def test_a_stray_cell_at_xfd1048576_is_refused_not_allocated(tmp_path):
    """A 4.9 KB workbook whose used range spans the whole sheet: pandas allocated 1,048,576 x 16,384 cells."""
    import time

    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["id", "text"])
    book.active.append(["1", "hello"])
    book.active["XFD1048576"] = "x"
    book.save(tmp_path / "stray.xlsx")
    assert (tmp_path / "stray.xlsx").stat().st_size < 6000
    started = time.perf_counter()
    with pytest.raises(BadInput, match=r"^stray.xlsx: the sheet reaches cell XFD1048576, a range of "
                                       r"17,179,869,184 cells, more than Triage reads"):
        read_tickets(tmp_path / "stray.xlsx")
    assert time.perf_counter() - started < 5


def test_a_table_away_from_a1_and_a_lone_far_cell_read_as_their_used_range(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet["C3"], sheet["D3"], sheet["C4"], sheet["D4"], sheet["C6"], sheet["D6"] = "id", "text", 1, "a", 2.0, "b"
    book.save(tmp_path / "offset.xlsx")
    table = read_tickets(tmp_path / "offset.xlsx")
    assert table.columns == ["id", "text"] and table.frame.values.tolist() == [["1", "a"], ["2", "b"]]


def test_formula_cells_without_a_computed_value_are_named_in_a_warning(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "text"])
    sheet.append(["1", "=\"Refund \"&A2"])   # openpyxl saves the formula, not its value
    sheet.append(["2", "plain"])
    sheet.append(["3", "=UPPER(B3)"])
    book.save(tmp_path / "formulas.xlsx")
    table = read_tickets(tmp_path / "formulas.xlsx")
    assert table.frame["text"].tolist() == ["", "plain", ""]
    assert table.warnings == ["2 formula cell(s) have no computed value and were read as blank (2 in 'text'); "
                              "open and save the file in Excel to compute them"]


def test_a_corrupt_sheet_xml_is_one_line(tmp_path):
    import zipfile

    good = tmp_path / "good.xlsx"
    pd.DataFrame({"text": ["a", "b"]}).to_excel(good, index=False)
    bad = tmp_path / "bad.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data[:len(data) // 2] if info.filename.endswith("sheet1.xml") else data)
    with pytest.raises(BadInput, match=r"^bad.xlsx: cannot read this file \(ParseError: "):
        read_tickets(bad)


@pytest.mark.parametrize("name, content, message", BAD_FILES + [
    ("deep.json", b"[" * 100_000, "deep.json: nested too deeply to read"),
    ("deep.jsonl", b'{"a": ' + b"[" * 100_000 + b"\n", "deep.jsonl: nested too deeply to read"),
    ("odd.csv", b"\xff\xfei\x00d\x00\n", "odd.csv: starts with a UTF-16 byte-order mark but byte 6 is not UTF-16; "
                                        "save the file as UTF-8 and try again"),
    ("bom-only.csv", b"\xef\xbb\xbf\r\n", "bom-only.csv: the file is empty"),
    ("bad\nname.csv", b"", "bad name.csv: the file is empty"),
])
def test_bad_files_get_one_line_reasons(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(BadInput) as info:
        read_tickets(tmp_path / name)
    assert str(info.value) == message


@pytest.mark.parametrize("error, message", [
    (PermissionError(13, "Permission denied"), "t.csv: cannot read the file (Permission denied)"),
    (FileNotFoundError(2, "No such file or directory"), "t.csv: cannot read the file (No such file or directory)"),
    (MemoryError(), "t.csv: too big to read into memory"),
])
def test_read_errors_after_the_check_are_one_line(tmp_path, monkeypatch, error, message):
    """Permission denied or the file removed between the check and the read (root ignores chmod, so simulated)."""
    path = write_delimited(tmp_path / "t.csv", HEADER_AND_ROWS)

    def fail(self):
        raise error
    monkeypatch.setattr(type(path), "read_bytes", fail)
    with pytest.raises(BadInput) as info:
        read_tickets(path)
    assert str(info.value) == message


def test_a_long_ticket_is_read_and_a_monstrous_field_is_refused(tmp_path):
    long = "x" * (300 << 10)
    table = read_tickets(write_delimited(tmp_path / "long.csv", [["id", "text"], ["1", long], ["2", "short"]]))
    assert table.frame["text"].tolist() == [long, "short"]
    write_delimited(tmp_path / "huge.csv", [["id", "text"], ["1", "x" * (9 << 20)]])
    with pytest.raises(BadInput, match=r"^huge.csv: line 2: a field longer than 8 MiB is not a ticket$"):
        read_tickets(tmp_path / "huge.csv")


@pytest.mark.parametrize("crafted", [',"' * 32768, 'a,"b' * 16384, 'x,"y\n' * 13107, '"' * 65536, ",\n" * 32768])
def test_crafted_input_is_judged_in_well_under_a_second(tmp_path, crafted):
    """csv.Sniffer took 16.9 s on 64 KB like these (and 3.9 s on 16 KB)."""
    import time

    path = tmp_path / "crafted.csv"
    path.write_text(crafted)
    started = time.perf_counter()
    try:
        read_tickets(path)
    except BadInput:
        pass
    assert time.perf_counter() - started < 2


def test_utf32_and_jsonl_line_separators_inside_strings(tmp_path):
    table = read_tickets(write_delimited(tmp_path / "t.csv", HEADER_AND_ROWS, encoding="utf-32"))
    assert table.encoding == "utf-32" and table.frame["body"].tolist()[1] == "App crashes"
    records = [{"text": "first\u2028still first\x1cand this"}, {"text": "second"}]
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n",
                                      encoding="utf-8")
    assert read_tickets(tmp_path / "t.jsonl").frame["text"].tolist() == [r["text"] for r in records]


def test_blank_lines_above_the_header_are_skipped(tmp_path):
    (tmp_path / "t.csv").write_text("\n\nid;text\n1;a\n")
    assert read_tickets(tmp_path / "t.csv").frame.values.tolist() == [["1", "a"]]


def test_records_with_keys_of_their_own_are_refused_not_allocated(tmp_path):
    """4,000 one-key records made a 4,000 x 4,000 table from 60 KB of JSONL."""
    (tmp_path / "keys.jsonl").write_text("".join(f'{{"k{i}": 1}}\n' for i in range(4000)))
    with pytest.raises(BadInput, match=r"^keys.jsonl: 4,000 records with 4,000 different keys make 16,000,000 cells"):
        read_tickets(tmp_path / "keys.jsonl")


# a file pasted together from UTF-8 and cp1252 lines: each line in its own, and the user told which

def mixed_file(path, lines):
    """lines: (text, encoding) pairs, written one after the other as they would be by two programs."""
    path.write_bytes(b"".join((text + "\r\n").encode(encoding) for text, encoding in lines))
    return path


def test_a_file_mixing_utf8_and_cp1252_reads_each_line_as_written_and_names_the_cp1252_rows(tmp_path):
    path = mixed_file(tmp_path / "t.csv", [("id,text", "utf-8"), ("1,café au lait", "utf-8"),
                                           ('2,"crème\r\nbrûlée"', "cp1252"), ("3,plain", "utf-8"),
                                           ("4,naïve “quoted”", "cp1252"), ("5,€5 charge", "utf-8")])
    opened = open_tickets(path)
    assert opened.texts == ["café au lait", "crème\r\nbrûlée", "plain", "naïve “quoted”", "€5 charge"]
    assert opened.table.encoding == "utf-8+cp1252"
    assert opened.notes == ["the file mixes UTF-8 with cp1252; read as cp1252: rows 2 and 4 (the rest as UTF-8); "
                            "check them"]


def test_many_mixed_rows_are_counted_not_listed_and_a_mixed_header_is_named(tmp_path):
    rows = [(f"{k},{'crème' if k % 2 else 'café'}", "cp1252" if k % 2 else "utf-8") for k in range(1, 13)]
    table = read_tickets(mixed_file(tmp_path / "t.csv", [("id,Pièce", "cp1252"), *rows]))
    assert table.columns == ["id", "Pièce"] and table.frame["Pièce"].tolist() == ["crème", "café"] * 6
    assert table.warnings == ["the file mixes UTF-8 with cp1252; read as cp1252: the header and rows 1, 3, 5 and "
                              "3 more (the rest as UTF-8); check them"]


def test_mixed_json_lines_are_named_by_line(tmp_path):
    path = mixed_file(tmp_path / "t.jsonl", [('{"text": "café"}', "utf-8"), ('{"text": "crème"}', "cp1252")])
    table = read_tickets(path)
    assert table.frame["text"].tolist() == ["café", "crème"]
    assert table.warnings == ["the file mixes UTF-8 with cp1252; read as cp1252: line 2 (the rest as UTF-8); "
                              "check them"]


def test_a_file_all_in_cp1252_is_read_as_before_with_only_the_code_pages_note(tmp_path):
    path = mixed_file(tmp_path / "t.csv", [("id,text", "cp1252"), ("1,café", "cp1252"), ("2,crème", "cp1252")])
    table = read_tickets(path)
    assert table.frame["text"].tolist() == ["café", "crème"]
    assert table.warnings == ["read as Windows-1252 (legacy encoding): check the accents; saving as UTF-8 avoids this"]
    assert table.encoding in ("cp1252", "windows-1252")


@pytest.mark.parametrize("separator", [";", "|", ",", "\t"])
def test_excels_separator_line_is_read_by_and_is_no_row(tmp_path, separator):
    """Excel writes "sep=;" above the header, and reads the file by it; it was read as the header."""
    path = tmp_path / "t.csv"
    text = "hello" + "".join(f"{d} x" for d in ",;|\t" if d != separator)    # every other delimiter, in a cell
    path.write_text(f"SEP={separator}\r\nid{separator}text\r\n1{separator}{text}\r\n2{separator}bye\r\n")
    for limit in (None, 1):
        table = read_tickets(path, limit=limit)
        assert table.columns == ["id", "text"] and table.delimiter == separator
        assert table.frame["text"].tolist() == [text, "bye"][:limit]
    path.write_text(f"sep={separator}\nid{separator}text\n1{separator}\"never closed\n")
    with pytest.raises(BadInput, match="line 3"):
        read_tickets(path)


@pytest.mark.parametrize("name", ["t.csv", "t.json"])
def test_a_sheet_named_for_a_file_without_sheets_is_refused(tmp_path, name):
    """--sheet Tickets on a CSV read the CSV without a word: the person meant another file."""
    path = tmp_path / name
    path.write_text("id,text\n1,hi\n" if name.endswith(".csv") else '[{"id": 1, "text": "hi"}]')
    with pytest.raises(BadInput, match=rf"^{name}: a sheet was named \('Tickets'\), but only an Excel workbook has"):
        read_tickets(path, "Tickets")
    assert read_tickets(path).columns == ["id", "text"]

"""What a file may cost: past a limit it is refused in one line before it is read whole, and a file
asked for its first rows is read no further than them. The limits are lowered here, so the files
that cross them stay small."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import openpyxl
import pytest

from cli_helpers import run_main
from triage_app.files import limits, reader
from triage_app.files.opening import open_tickets
from triage_app.files.reader import BadInput, read_tickets


def write_csv(path, rows: int, text=lambda k: f"Ticket {k}: the invoice was charged twice"):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "text"])
    writer.writerows([k, text(k)] for k in range(rows))
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


@pytest.fixture
def never_read_whole(monkeypatch):
    """Reading any file whole fails the test."""
    def read_bytes(self):
        raise AssertionError(f"{self.name} was read whole")
    monkeypatch.setattr(Path, "read_bytes", read_bytes)


@pytest.mark.parametrize("name", ["big.csv", "big.tsv", "big.json", "big.jsonl"])
def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch, never_read_whole, name):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1 << 20)
    path = tmp_path / name
    path.write_bytes(b"x" * (3 << 20))
    with pytest.raises(BadInput) as info:
        read_tickets(path)
    assert str(info.value) == (f"{name}: 3 MiB, more than Triage reads at once (1 MiB); "
                               "split the file, or read its first rows only (triage-app classify --limit N)")


def rows_refusal(name):
    return (f"{name}: more than 100 tickets, more than Triage reads at once; "
            "split the file, or read its first rows only (triage-app classify --limit N)")


@pytest.mark.parametrize("name", ["many.csv", "many.json", "many.jsonl", "many.xlsx"])
def test_a_file_over_the_row_limit_is_refused(tmp_path, monkeypatch, name):
    monkeypatch.setattr(limits, "MAX_ROWS", 100)
    records = [{"id": str(k), "text": f"ticket {k}"} for k in range(101)]
    path = tmp_path / name
    if name.endswith(".csv"):
        write_csv(path, 101)
    elif name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif name.endswith(".json"):
        path.write_text(json.dumps(records))
    else:
        book = openpyxl.Workbook()
        book.active.append(["id", "text"])
        for r in records:
            book.active.append([r["id"], r["text"]])
        book.save(path)
    with pytest.raises(BadInput) as info:
        read_tickets(path)
    assert str(info.value) == rows_refusal(name)
    assert len(read_tickets(path, limit=100).frame) == 100     # its first rows are read


def test_the_row_limit_stops_the_reading_at_the_first_row_past_it(tmp_path, monkeypatch):
    """A ragged line after the limit is never reached: the count refuses the file first."""
    monkeypatch.setattr(limits, "MAX_ROWS", 100)
    path = write_csv(tmp_path / "many.csv", 200)
    path.write_text(path.read_text() + "1,2,3\n")
    with pytest.raises(BadInput) as info:
        read_tickets(path)
    assert str(info.value) == rows_refusal("many.csv")


@pytest.mark.parametrize("name", ["t.csv", "t.jsonl"])
def test_a_limit_reads_a_head_of_the_file_only(tmp_path, monkeypatch, never_read_whole, name):
    """A file far over the size limit gives its first rows, read from its head: never read whole."""
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 64 << 10)
    monkeypatch.setattr(reader, "HEAD_BYTES", 4 << 10)
    path = tmp_path / name
    if name.endswith(".csv"):
        write_csv(path, 20_000)
    else:
        path.write_text("".join(json.dumps({"id": k, "text": f"ticket {k}"}) + "\n" for k in range(20_000)))
    for limit in (1, 150, 3000):   # in the first head, in one four times longer, in a later one
        frame = read_tickets(path, limit=limit).frame
        assert frame["id"].tolist() == [str(k) for k in range(limit)]
    assert len(open_tickets(path, limit=7).texts) == 7


def test_a_limit_never_cuts_a_ticket_that_spans_lines(tmp_path, monkeypatch):
    """Heads end at a line end, which may be inside a quoted ticket: its row is read from a longer head."""
    def text(k):
        return f"Hello,\n\nticket {k} spans lines, \"quoted\"\n" + "x" * (k % 97)
    path = write_csv(tmp_path / "quoted.csv", 3000, text)
    whole = read_tickets(path).frame
    monkeypatch.setattr(reader, "HEAD_BYTES", 1000)
    for limit in range(1, 60):
        assert read_tickets(path, limit=limit).frame.equals(whole.head(limit))


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_a_limit_reads_a_head_of_a_file_whatever_its_line_ends(tmp_path, monkeypatch, never_read_whole, newline):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 64 << 10)
    monkeypatch.setattr(reader, "HEAD_BYTES", 4 << 10)
    path = tmp_path / "t.csv"
    path.write_text("id,text" + newline + "".join(f'{k},"ticket{newline}{k}"{newline}' for k in range(20_000)),
                    newline="")
    assert read_tickets(path, limit=400).frame["text"].tolist()[-1] == f"ticket{newline}399"


def test_a_limit_over_the_rows_a_file_has_reads_it_all(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "HEAD_BYTES", 1 << 10)
    path = write_csv(tmp_path / "t.csv", 200)
    assert len(read_tickets(path, limit=5000).frame) == 200


def test_a_utf16_file_with_a_limit_is_read_whole_within_the_size_limit(tmp_path, monkeypatch):
    """A byte 0x0A may be half of a UTF-16 character: no head is cut from such a file."""
    monkeypatch.setattr(reader, "HEAD_BYTES", 1 << 10)
    path = tmp_path / "t.csv"
    path.write_text("id,text\n" + "".join(f"{k},ticket ĊĊ {k}\n" for k in range(500)), encoding="utf-16")
    assert read_tickets(path, limit=300).frame["text"].tolist()[-1] == "ticket ĊĊ 299"


def test_a_workbook_that_unpacks_past_the_limit_is_refused_before_it_is_opened(tmp_path, monkeypatch):
    book = openpyxl.Workbook()
    for k in range(2000):
        book.active.append([k, "the same ticket text, again and again"])
    path = tmp_path / "bomb.xlsx"
    book.save(path)
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 1 << 10)
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: pytest.fail("the workbook was opened"))
    with pytest.raises(BadInput, match=r"^bomb.xlsx: unpacks to \d MiB, more than Triage reads at once \(0 MiB\); "
                                       r"save the tickets as CSV and split the file"):
        read_tickets(path)


def test_inspect_refuses_a_file_over_a_limit_with_its_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(limits, "MAX_ROWS", 100)
    code, out, err = run_main(capsys, "inspect", write_csv(tmp_path / "many.csv", 150))
    assert code == 2 and err[-1].endswith(rows_refusal("many.csv")) and not out


def test_a_workbook_is_parsed_no_further_than_the_rows_asked_for(tmp_path, monkeypatch):
    """Past the header and the tickets asked for (or one past the row limit), no row is parsed."""
    book = openpyxl.Workbook()
    book.active.append(["id", "text"])
    for k in range(300):
        book.active.append([k, f"ticket {k}"] if k != 10 else ["", "  "])   # a blank row is not a ticket
    path = tmp_path / "t.xlsx"
    book.save(path)
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet
    parsed, real_rows = [], ReadOnlyWorksheet._cells_by_row

    def counted(self, *args, **kwargs):
        for row in real_rows(self, *args, **kwargs):
            parsed.append(row)
            yield row
    monkeypatch.setattr(ReadOnlyWorksheet, "_cells_by_row", counted)
    assert read_tickets(path, limit=20).frame["id"].tolist() == [str(k) for k in range(21) if k != 10]
    assert last_row_parsed(parsed) == 1 + 21
    monkeypatch.setattr(limits, "MAX_ROWS", 100)
    parsed.clear()
    with pytest.raises(BadInput, match="more than 100 tickets"):
        read_tickets(path)
    assert last_row_parsed(parsed) == 1 + 102


def last_row_parsed(rows) -> int:
    return max(cell.row for row in rows for cell in row if hasattr(cell, "row"))

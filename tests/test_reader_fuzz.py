"""Generated ticket files, well formed and mangled: each reads with every row in order, or is one BadInput line.

Never another exception, never seconds of work, never memory out of proportion to the file.
TRIAGE_FUZZ_EXAMPLES=N runs N random examples per property (the exploratory campaign); the default is a fixed,
quick set for CI.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from triage_app.files.export import FORMATS, export, results_frame
from triage_app.files.reader import BadInput, read_tickets

EXAMPLES = int(os.environ.get("TRIAGE_FUZZ_EXAMPLES", "0"))
SECONDS = 5.0             # a crafted 64 KB file took csv.Sniffer 80 s; honest work on these is milliseconds
PEAK_BYTES = 96 << 20     # plus PEAK_PER_BYTE x the file: a table is held as Python strings, several times its bytes
PEAK_PER_BYTE = 60

FOLDER = Path(tempfile.mkdtemp(prefix="triage-fuzz-"))


def fuzz_settings(examples: int):
    return settings(max_examples=EXAMPLES or examples, deadline=None, derandomize=not EXAMPLES, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example])


class Hang(BaseException):
    """Not an Exception: the reader turns every Exception into BadInput, and a hang must not pass as one."""


@contextmanager
def bounded(size: int):
    """Fail on a hang (an alarm, since a hang never returns) or on too much time or memory."""
    def hang(*_):
        raise Hang(f"still reading after {4 * SECONDS:.0f} s")
    old = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, 4 * SECONDS)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # tracemalloc slows Python several times over; the bound is on the traced run
    assert seconds < SECONDS, f"{seconds:.1f} s"
    assert peak < PEAK_BYTES + PEAK_PER_BYTE * size, f"peak {peak / 2**20:.0f} MiB for {size:,} bytes"


def read_or_refuse(name: str, content: bytes):
    """The table, or None when refused in one line that names the file; any other outcome fails."""
    path = FOLDER / name
    path.write_bytes(content)
    with bounded(len(content)):
        try:
            table = read_tickets(path)
        except BadInput as exc:
            message = str(exc)
            assert len(message.splitlines()) == 1 and name in message, message
            event(f"{path.suffix}: refused ({message.split(': ', 1)[1].split(' (')[0][:40]})")
            return None
    event(f"{path.suffix}: read")
    return table


# what a ticket may hold: every kind of character a helpdesk sees, delimiters and quotes included
TEXT_CHARS = st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x00")
TICKET = st.one_of(
    st.text(TEXT_CHARS, max_size=40),
    st.text(st.sampled_from(',;\t|"\'\r\n \\=+-@'), max_size=20),      # nothing but syntax
)
# at most one huge field a file, past the csv module's 128 KiB default limit
HUGE = st.builds(lambda c, n: c * n, st.sampled_from("x\"é,\n"), st.integers(100 << 10, 300 << 10))
TICKETS = st.builds(lambda small, huge, at: small[:at] + huge + small[at:],
                    st.lists(TICKET, min_size=1, max_size=12), st.lists(HUGE, max_size=1), st.integers(0, 12))


def delimited(texts, delimiter, quoting, newline):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, quoting=quoting, lineterminator=newline)
    writer.writerow(["id", "text"])
    writer.writerows([str(k), t] for k, t in enumerate(texts))
    return buffer.getvalue()


def assert_rows_kept(table, texts):
    assert table is not None
    assert table.frame["id"].tolist() == [str(k) for k in range(len(texts))]
    assert table.frame["text"].tolist() == texts


@fuzz_settings(30)
@given(TICKETS, st.sampled_from(",;\t|"), st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]),
       st.sampled_from(["\r\n", "\n"]), st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32"]),
       st.booleans())
def test_delimited_files_keep_every_row_in_order(texts, delimiter, quoting, newline, encoding, tsv):
    if newline == "\n":  # csv.writer quotes only the terminator's characters; a bare \r would end the row
        texts = [t.replace("\r", "") for t in texts]
    content = delimited(texts, delimiter, quoting, newline).encode(encoding)
    if encoding == "utf-16-be":
        content = b"\xfe\xff" + content
    table = read_or_refuse("t.tsv" if tsv and delimiter == "\t" else "t.csv", content)
    assert_rows_kept(table, texts)


@fuzz_settings(12)
@given(st.lists(st.text(st.characters(codec="latin-1", exclude_characters="\x00\r"), max_size=30),
                min_size=1, max_size=8), st.sampled_from(["latin-1", "cp1252"]))
def test_legacy_encodings_keep_every_row_or_say_why(texts, encoding):
    """A guessed code page may read é as another letter; the rows themselves are never lost or reordered."""
    content = delimited(texts, ",", csv.QUOTE_MINIMAL, "\r\n").encode(encoding, errors="replace")
    table = read_or_refuse("t.csv", content)
    if table is not None:
        assert table.frame["id"].tolist() == [str(k) for k in range(len(texts))]


@fuzz_settings(25)
@given(TICKETS, st.booleans(), st.sampled_from(["utf-8", "utf-16"]))
def test_json_and_jsonl_keep_every_record_in_order(texts, lines, encoding):
    records = [{"id": str(k), "text": t} for k, t in enumerate(texts)]
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in records) if lines else json.dumps(records)
    assert_rows_kept(read_or_refuse("t.jsonl" if lines else "t.json", text.encode(encoding)), texts)


XLSX_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"],
                                  exclude_characters="".join(map(chr, [*range(9), 11, 12, *range(14, 32), 13]))),
                    min_size=1, max_size=40)


def workbook(texts) -> bytes:
    return sheet_of([["id", "text"], *([str(k), t] for k, t in enumerate(texts))])


def sheet_of(rows: list[list[str]]) -> bytes:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    book = Workbook(write_only=True)
    sheet = book.create_sheet("Tickets")

    def text(value):
        cell = WriteOnlyCell(sheet, value)
        cell.data_type = "s"   # "=1" is a ticket here, not a formula
        return cell
    for row in rows:
        sheet.append([text(value) for value in row])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


@fuzz_settings(15)
@given(st.lists(XLSX_TEXT, min_size=1, max_size=8))
def test_workbooks_keep_every_row_in_order(texts):
    assert_rows_kept(read_or_refuse("t.xlsx", workbook(texts)), texts)


SMALL_WORKBOOK = workbook(["Refund please", "App crashes", "=SUM(A1)"])
SMALL_FILES = {
    "t.csv": delimited(["Refund, please", "Line one\nline two", 'said "hi"'], ",", csv.QUOTE_MINIMAL, "\r\n").encode(),
    "t.json": json.dumps([{"id": 1, "text": "Refund"}, {"id": 2, "text": "Crash", "extra": [1, {"a": None}]}]).encode(),
    "t.jsonl": b'{"id": 1, "text": "Refund"}\n{"id": 2, "text": "Crash"}\n',
    "t.xlsx": SMALL_WORKBOOK,
}


@st.composite
def mangled(draw):
    """A real small file with bytes flipped, cut, inserted, repeated or re-encoded."""
    name = draw(st.sampled_from(sorted(SMALL_FILES)))
    data = bytearray(SMALL_FILES[name])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "cut", "insert", "delete", "repeat", "truncate", "bom"]))
        if kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 64))]
        elif kind == "repeat":
            data[at:at] = data[at:at + draw(st.integers(1, 64))] * draw(st.integers(2, 200))
        elif kind == "truncate":
            del data[at:]
        elif kind == "bom":
            data[0:0] = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"]))
    suffix = draw(st.sampled_from([name[1:], name[1:], ".csv", ".tsv", ".json", ".jsonl", ".xlsx", ".txt"]))
    return "m" + suffix, bytes(data)


@fuzz_settings(80)
@given(mangled())
def test_mangled_files_read_or_are_one_line(case):
    read_or_refuse(*case)


@fuzz_settings(40)
@given(st.binary(max_size=4096), st.sampled_from([".csv", ".tsv", ".json", ".jsonl", ".xlsx", ".dat"]))
def test_random_bytes_read_or_are_one_line(content, suffix):
    read_or_refuse("r" + suffix, content)


@fuzz_settings(25)
@given(st.text(st.sampled_from(',;\t|"\'\r\n x\\'), max_size=2000), st.integers(1, 32))
def test_syntax_soup_reads_or_is_one_line(soup, repeat):
    """Quotes and delimiters in every order, up to 64 KB: what made the old sniffer take seconds."""
    read_or_refuse("s.csv", (soup * repeat)[:65536].encode())


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1", "utf-8-sig"])
def test_the_small_files_reencoded_keep_their_rows(encoding):
    path = FOLDER / "e.csv"
    path.write_bytes(SMALL_FILES["t.csv"].decode().encode(encoding))
    assert read_tickets(path).frame["id"].tolist() == ["0", "1", "2"]


# every column through reading and export ------------------------------------------------------

# repeats, blanks and names a repeat's suffix would take ("a_2"); none a delimiter or a formula's start
HEADER_NAMES = st.lists(st.sampled_from(["text", "a", "a_2", "a_3", "", " ", "column_2", "label", "p_x"])
                        | st.text("ab_2 ", max_size=4), min_size=1, max_size=7)


def exported_rows(path: Path) -> list[list]:
    """The export's header and rows as its file holds them."""
    if path.suffix == ".csv":
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))
    if path.suffix == ".xlsx":
        from openpyxl import load_workbook

        book = load_workbook(path, read_only=True)
        rows = [list(row) for row in book.active.iter_rows(values_only=True)]
        book.close()
        return rows
    text = path.read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()] if path.suffix == ".jsonl" else json.loads(text)
    return [list(records[0]), *(list(record.values()) for record in records)]


@fuzz_settings(20)
@given(HEADER_NAMES, st.integers(1, 3), st.sampled_from(["csv", "xlsx"]))
@example(["text", "a", "a_2", "a"], 2, "csv")
@example(["text", "dup", "dup_2", "dup"], 1, "xlsx")
def test_every_column_reaches_the_export_in_its_place_under_a_name_of_its_own(header, n_rows, suffix):
    assume(any(name.strip() for name in header))  # a blank first row is not a header
    rows = [header, *([f"{r}.{c}" for c in range(len(header))] for r in range(n_rows))]
    if suffix == "csv":
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        content = buffer.getvalue().encode()
    else:
        content = sheet_of(rows)
    table = read_or_refuse(f"h.{suffix}", content)
    assert table is not None and len(table.columns) == len(header)
    for fmt in FORMATS:
        out = exported_rows(export(results_frame(table.frame, [], ["x"]), FOLDER / f"out.{fmt}"))
        names = out[0][:len(header)]
        assert len(set(names)) == len(header), (fmt, names)
        assert [row[:len(header)] for row in out[1:]] == rows[1:], fmt

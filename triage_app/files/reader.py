"""Read ticket files in whatever shape a helpdesk exports them, or say in one line why not."""

from __future__ import annotations

import csv
import io
import json
import re
from bisect import bisect_left
from pathlib import Path

import pandas as pd

from triage_app.files.encoding import Decoded, decode, listed, mixed_note
from triage_app.files.sheets import read_xlsx
from triage_app.files.table import MAX_CELLS, BadInput, TicketTable, filled, unique_names

TEXT_COLUMNS = ("text", "body", "description", "message", "ticket", "comment", "content")
SUBJECT_COLUMNS = ("subject", "title", "summary")
GOLD_COLUMNS = ("category", "label", "queue", "class", "topic", "type", "intent", "gold")
DELIMITERS = ",;\t|"
# Long tickets are truncated and flagged by the engine, not refused here; past this a field is not a ticket.
FIELD_LIMIT = 8 << 20
# The delimiter is judged on the file's head: enough rows to see a pattern, bounded so crafted input stays cheap.
SNIFF_CHARS, SNIFF_ROWS = 64 << 10, 50


def read_tickets(path: str | Path, sheet: str | int | None = None) -> TicketTable:
    """The file as a table, or BadInput with one line naming the file: never another exception."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    try:
        table = _read(path, sheet)
    except BadInput:
        raise
    except RecursionError:
        raise BadInput(f"{path.name}: nested too deeply to read") from None
    except MemoryError:
        raise BadInput(f"{path.name}: too big to read into memory") from None
    except OSError as exc:
        raise BadInput(f"{path.name}: cannot read the file ({exc.strerror or exc.__class__.__name__})") from None
    except Exception as exc:  # a malformed file breaks parsers in ways nobody can list; the user needs one line
        reason = str(exc).strip().split("\n")[0][:200]
        raise BadInput(f"{path.name}: cannot read this file ({exc.__class__.__name__}{': ' if reason else ''}"
                       f"{reason})") from None
    _check_table(table, path)
    return table


def _read(path: Path, sheet: str | int | None) -> TicketTable:
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return read_xlsx(path, sheet)
    if suffix == ".jsonl":
        return _read_jsonl(path)
    if suffix == ".json":
        return _read_json(path)
    return _read_delimited(path)


def _check_table(table: TicketTable, path: Path) -> None:
    if table.frame.columns.empty:
        raise BadInput(f"{path.name}: the file is empty")
    if table.frame.empty:
        raise BadInput(f"{path.name}: the file has a header but no tickets")


def detect_text_column(table: TicketTable) -> str:
    column = _first_named(table.columns, TEXT_COLUMNS)
    if column is None:
        raise BadInput(f"{table.path.name}: no ticket text column found (looked for {', '.join(TEXT_COLUMNS)}; "
                       f"the columns are {', '.join(table.columns)}); choose one")
    return column


def detect_subject_column(table: TicketTable) -> str | None:
    return _first_named(table.columns, SUBJECT_COLUMNS)


def detect_gold_column(table: TicketTable) -> str | None:
    """A column that already holds the right answers (a helpdesk's queue or category), if any."""
    return _first_named(table.columns, GOLD_COLUMNS)


def check_column(table: TicketTable, column: str) -> str:
    if column not in table.columns:
        raise BadInput(f"no column {column!r}; the columns are: {', '.join(table.columns)}")
    return column


def _first_named(columns: list[str], names: tuple[str, ...]) -> str | None:
    """An exact name first ("message"), then a name made of words that include one ("customer_message")."""
    lower = {c.strip().lower(): c for c in columns}
    exact = next((lower[n] for n in names if n in lower), None)
    if exact is not None:
        return exact
    split = {c: set(re.split(r"[^a-z0-9]+", key)) for key, c in lower.items()}
    # an identifier ("ticket_id") names its row, never its text or answer
    words = {c: w for c, w in split.items() if not w & {"id", "no"}}
    return next((c for n in names for c, w in words.items() if n in w), None)


# delimited text
def _read_delimited(path: Path) -> TicketTable:
    decoded = decode(path.read_bytes(), path.name)
    text = decoded.text
    if not text.strip():
        raise BadInput(f"{path.name}: the file is empty")
    csv.field_size_limit(FIELD_LIMIT)
    delimiter = _sniff_delimiter(text, ".tsv" == path.suffix.lower())
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next((row for row in reader if filled(row)), [])  # blank lines above the header are not one
        header_end = reader.line_num
        # Kept as columns of strings, not a list per row: 100k row lists are containers the garbage
        # collector would walk, with the GIL held, while the window waits for it.
        columns = [[] for _ in header]
        row_ends = []  # the line each row ends on, to name the rows a line of the file belongs to
        for row in reader:
            if len(row) != len(header):
                if not filled(row):
                    continue  # a blank line between records is not a ticket
                raise BadInput(f"{path.name}: line {reader.line_num} has {len(row)} fields, "
                               f"the header has {len(header)}")
            for column, cell in zip(columns, row):
                column.append(cell)
            row_ends.append(reader.line_num)
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise BadInput(f"{path.name}: line {reader.line_num}: a field longer than {FIELD_LIMIT >> 20} MiB "
                           "is not a ticket") from None
        raise BadInput(f"{path.name}: line {reader.line_num}: {exc}") from None
    if header and not columns[0]:  # said before pandas spends a second on a frame of 16,000 empty columns
        raise BadInput(f"{path.name}: the file has a header but no tickets")
    # built by place, then named: built by name, a repeated name would keep one column of the two
    frame = pd.DataFrame(dict(enumerate(columns)), dtype=object) if header else pd.DataFrame()
    frame.columns = unique_names(header)
    notes = [mixed_note(decoded, _rows_of(decoded.legacy_lines, header_end, row_ends))] if decoded.mixed else []
    return TicketTable(path, frame, "tsv" if delimiter == "\t" else "csv", decoded.encoding, delimiter,
                       warnings=notes)


def _rows_of(lines: tuple[int, ...], header_end: int, row_ends: list[int]) -> str:
    """The header and the rows (from 1, as the table numbers them) that hold these lines of the file."""
    last = row_ends[-1] if row_ends else header_end
    rows = sorted({bisect_left(row_ends, line) + 1 for line in lines if header_end < line <= last})
    header = any(line <= header_end for line in lines)
    if not rows:
        return "the header" if header else "blank lines"
    return ("the header and " if header else "") + listed("row", rows)


def _sniff_delimiter(text: str, tsv: bool) -> str:
    """The delimiter that splits the header into the most fields and the rows below into as many.

    csv.Sniffer is not used: its quote regex is super-quadratic on crafted input (seconds per 16 KiB).
    """
    if tsv:
        return "\t"
    head = text[:SNIFF_CHARS]
    best, best_score = ",", (0, 0)
    for delimiter in DELIMITERS:
        counts = _field_counts(head, delimiter, cut=len(text) > len(head))
        if counts and counts[0] > 1:
            score = (sum(n == counts[0] for n in counts[1:]), counts[0])
            if score > best_score:
                best, best_score = delimiter, score
    return best


def _field_counts(head: str, delimiter: str, cut: bool) -> list[int]:
    """Fields per non-blank row of the head; a row cut off by the head's end is not counted."""
    counts = []
    try:
        for row in csv.reader(io.StringIO(head, newline=""), delimiter=delimiter):
            if filled(row):
                counts.append(len(row))
            if len(counts) > SNIFF_ROWS:
                return counts
    except csv.Error:
        pass
    return counts[:-1] if cut and len(counts) > 1 else counts


# JSON
def _read_json(path: Path) -> TicketTable:
    decoded = decode(path.read_bytes(), path.name)
    if not decoded.text.strip():
        raise BadInput(f"{path.name}: the file is empty")
    try:
        data = json.loads(decoded.text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path.name}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), list):
        data = next(iter(data.values()))  # {"tickets": [...]}
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise BadInput(f"{path.name}: expected a JSON list of objects, one per ticket")
    return TicketTable(path, _records_frame(data, path.name), "json", decoded.encoding,
                       warnings=_line_notes(decoded))


def _read_jsonl(path: Path) -> TicketTable:
    decoded = decode(path.read_bytes(), path.name)
    records = []
    # only a newline ends a record: splitlines() would also split at U+2028 and \x1c, legal inside JSON strings
    for number, line in enumerate(decoded.text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path.name}: line {number} is not valid JSON ({exc.msg})") from None
        if not isinstance(item, dict):
            raise BadInput(f"{path.name}: line {number} is not a JSON object")
        records.append(item)
    if not records:
        raise BadInput(f"{path.name}: the file is empty")
    return TicketTable(path, _records_frame(records, path.name), "jsonl", decoded.encoding,
                       warnings=_line_notes(decoded))


def _line_notes(decoded: Decoded) -> list[str]:
    return [mixed_note(decoded, listed("line", list(decoded.legacy_lines)))] if decoded.mixed else []


def _records_frame(records: list[dict], file_name: str) -> pd.DataFrame:
    columns = list(dict.fromkeys(key for item in records for key in item))
    if len(records) * len(columns) > MAX_CELLS:
        raise BadInput(f"{file_name}: {len(records):,} records with {len(columns):,} different keys make "
                       f"{len(records) * len(columns):,} cells, more than Triage reads ({MAX_CELLS:,})")
    rows = [["" if item.get(c) is None else _cell(item.get(c)) for c in columns] for item in records]
    return pd.DataFrame(rows, columns=unique_names(columns), dtype=object)


def _cell(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

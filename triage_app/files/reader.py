"""Read ticket files in whatever shape a helpdesk exports them, or say in one line why not."""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

TEXT_COLUMNS = ("text", "body", "description", "message", "ticket", "comment", "content")
SUBJECT_COLUMNS = ("subject", "title", "summary")
GOLD_COLUMNS = ("category", "label", "queue", "class", "topic", "type", "intent", "gold")
DELIMITERS = ",;\t|"
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


class BadInput(ValueError):
    """The file cannot be used; the message is one line the user can act on."""


@dataclass(slots=True)
class TicketTable:
    """A ticket file as read: every column as text, rows in file order."""

    path: Path
    frame: pd.DataFrame
    format: str
    encoding: str | None = None
    delimiter: str | None = None
    sheet: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns]

    def texts(self, column: str, subject: str | None = None) -> list[str]:
        """The ticket texts: one column, or subject and body joined when asked."""
        body = self.frame[column].tolist()
        if not subject:
            return body
        return [f"{s}\n\n{b}" if s.strip() and b.strip() else (s or b)
                for s, b in zip(self.frame[subject].tolist(), body)]


def read_tickets(path: str | Path, sheet: str | int | None = None) -> TicketTable:
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        table = _read_xlsx(path, sheet)
    elif suffix == ".jsonl":
        table = _read_jsonl(path)
    elif suffix == ".json":
        table = _read_json(path)
    else:
        table = _read_delimited(path)
    if table.frame.columns.empty:
        raise BadInput(f"{path.name}: the file is empty")
    if table.frame.empty:
        raise BadInput(f"{path.name}: the file has a header but no tickets")
    return table


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
    raw = path.read_bytes()
    if not raw.strip():
        raise BadInput(f"{path.name}: the file is empty")
    text, encoding = _decode(raw, path.name)
    delimiter = _sniff_delimiter(text, ".tsv" == path.suffix.lower())
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
        rows = []
        for row in reader:
            if len(row) != len(header):
                if not any(cell.strip() for cell in row):
                    continue  # a blank line between records is not a ticket
                raise BadInput(f"{path.name}: line {reader.line_num} has {len(row)} fields, "
                               f"the header has {len(header)}")
            rows.append(row)
    except csv.Error as exc:
        raise BadInput(f"{path.name}: line {reader.line_num}: {exc}") from None
    header = _unique_names(header)
    frame = pd.DataFrame(rows, columns=header, dtype=object) if header else pd.DataFrame()
    return TicketTable(path, frame, "tsv" if delimiter == "\t" else "csv", encoding, delimiter)


def _decode(raw: bytes, name: str) -> tuple[str, str]:
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return raw.decode(encoding), encoding
    if b"\x00" in raw[:8192]:
        raise BadInput(f"{name}: this looks like a binary file, not a table of tickets")
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = from_bytes(raw)
    if not matches:
        raise BadInput(f"{name}: cannot tell the text encoding; save the file as UTF-8 and try again")
    # Short legacy files fit several code pages equally well; Windows-1252 is what Excel on a
    # Western-European Windows writes, so it wins among the plausible ones.
    best = next((m for m in matches if m.encoding == "cp1252"), matches.best())
    return str(best), best.encoding


def _sniff_delimiter(text: str, tsv: bool) -> str:
    if tsv:
        return "\t"
    head = text[:65536]
    try:
        return csv.Sniffer().sniff(head, delimiters=DELIMITERS).delimiter
    except csv.Error:
        first = head.splitlines()[0] if head else ""
        counts = {d: first.count(d) for d in DELIMITERS}
        return max(counts, key=counts.get) if max(counts.values()) else ","


def _unique_names(header: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for k, name in enumerate(header):
        name = name.strip() or f"column_{k + 1}"
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return names


# spreadsheets
def _read_xlsx(path: Path, sheet: str | int | None) -> TicketTable:
    import zipfile

    try:
        book = pd.ExcelFile(path, engine="openpyxl")
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as exc:
        raise BadInput(f"{path.name}: not a readable Excel workbook ({exc.__class__.__name__})") from None
    with book:
        sheets = book.sheet_names
        name = sheets[0] if sheet is None else sheets[sheet] if isinstance(sheet, int) else sheet
        if name not in sheets:
            raise BadInput(f"{path.name}: no sheet {name!r}; the sheets are {', '.join(sheets)}")
        frame = pd.read_excel(book, sheet_name=name, dtype=str, keep_default_na=False)
    frame.columns = _unique_names([str(c) for c in frame.columns])
    warnings = [f"read sheet {name!r} of {len(sheets)}"] if len(sheets) > 1 else []
    return TicketTable(path, frame, "xlsx", sheet=name, warnings=warnings)


# JSON
def _read_json(path: Path) -> TicketTable:
    text, encoding = _decode(path.read_bytes(), path.name)
    if not text.strip():
        raise BadInput(f"{path.name}: the file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path.name}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), list):
        data = next(iter(data.values()))  # {"tickets": [...]}
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise BadInput(f"{path.name}: expected a JSON list of objects, one per ticket")
    return TicketTable(path, _records_frame(data), "json", encoding)


def _read_jsonl(path: Path) -> TicketTable:
    text, encoding = _decode(path.read_bytes(), path.name)
    records = []
    for number, line in enumerate(text.splitlines(), 1):
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
    return TicketTable(path, _records_frame(records), "jsonl", encoding)


def _records_frame(records: list[dict]) -> pd.DataFrame:
    columns = list(dict.fromkeys(key for item in records for key in item))
    rows = [["" if item.get(c) is None else _cell(item.get(c)) for c in columns] for item in records]
    return pd.DataFrame(rows, columns=columns, dtype=object)


def _cell(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

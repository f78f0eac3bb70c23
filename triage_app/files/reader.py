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
# UTF-32's marks first: UTF-32-LE's begins with UTF-16-LE's
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# Long tickets are truncated and flagged by the engine, not refused here; past this a field is not a ticket.
FIELD_LIMIT = 8 << 20
# The delimiter is judged on the file's head: enough rows to see a pattern, bounded so crafted input stays cheap.
SNIFF_CHARS, SNIFF_ROWS = 64 << 10, 50
# A table's rows x columns: one stray cell at XFD1048576 (see sheets.py), or JSON records each with keys of
# their own, must not make a table of billions of cells.
MAX_CELLS = 10_000_000


class BadInput(ValueError):
    """The file cannot be used; the message is one line the user can act on."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).splitlines()))


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
        from triage_app.files.sheets import read_xlsx  # imported here: sheets builds on this module's table

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
    raw = path.read_bytes()
    text, encoding = _decode(raw, path.name)
    if not text.strip():
        raise BadInput(f"{path.name}: the file is empty")
    csv.field_size_limit(FIELD_LIMIT)
    delimiter = _sniff_delimiter(text, ".tsv" == path.suffix.lower())
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next((row for row in reader if _filled(row)), [])  # blank lines above the header are not one
        # Kept as columns of strings, not a list per row: 100k row lists are containers the garbage
        # collector would walk, with the GIL held, while the window waits for it.
        columns = [[] for _ in header]
        for row in reader:
            if len(row) != len(header):
                if not _filled(row):
                    continue  # a blank line between records is not a ticket
                raise BadInput(f"{path.name}: line {reader.line_num} has {len(row)} fields, "
                               f"the header has {len(header)}")
            for column, cell in zip(columns, row):
                column.append(cell)
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise BadInput(f"{path.name}: line {reader.line_num}: a field longer than {FIELD_LIMIT >> 20} MiB "
                           "is not a ticket") from None
        raise BadInput(f"{path.name}: line {reader.line_num}: {exc}") from None
    if header and not columns[0]:  # said before pandas spends a second on a frame of 16,000 empty columns
        raise BadInput(f"{path.name}: the file has a header but no tickets")
    header = _unique_names(header)
    frame = pd.DataFrame(dict(zip(header, columns)), dtype=object) if header else pd.DataFrame()
    return TicketTable(path, frame, "tsv" if delimiter == "\t" else "csv", encoding, delimiter)


def _filled(row: list[str]) -> bool:
    return any(cell.strip() for cell in row)


def _decode(raw: bytes, name: str) -> tuple[str, str]:
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding), encoding
            except UnicodeDecodeError as exc:
                raise BadInput(f"{name}: starts with a {encoding.upper()} byte-order mark but byte {exc.start} "
                               f"is not {encoding.upper()}; save the file as UTF-8 and try again") from None
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
            if _filled(row):
                counts.append(len(row))
            if len(counts) > SNIFF_ROWS:
                return counts
    except csv.Error:
        pass
    return counts[:-1] if cut and len(counts) > 1 else counts


def _unique_names(header: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for k, name in enumerate(header):
        name = name.strip() or f"column_{k + 1}"
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return names


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
    return TicketTable(path, _records_frame(data, path.name), "json", encoding)


def _read_jsonl(path: Path) -> TicketTable:
    text, encoding = _decode(path.read_bytes(), path.name)
    records = []
    # only a newline ends a record: splitlines() would also split at U+2028 and \x1c, legal inside JSON strings
    for number, line in enumerate(text.split("\n"), 1):
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
    return TicketTable(path, _records_frame(records, path.name), "jsonl", encoding)


def _records_frame(records: list[dict], file_name: str) -> pd.DataFrame:
    columns = list(dict.fromkeys(key for item in records for key in item))
    if len(records) * len(columns) > MAX_CELLS:
        raise BadInput(f"{file_name}: {len(records):,} records with {len(columns):,} different keys make "
                       f"{len(records) * len(columns):,} cells, more than Triage reads ({MAX_CELLS:,})")
    rows = [["" if item.get(c) is None else _cell(item.get(c)) for c in columns] for item in records]
    return pd.DataFrame(rows, columns=columns, dtype=object)


def _cell(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

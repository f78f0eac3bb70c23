"""Read ticket files in whatever shape a helpdesk exports them, or say in one line why not."""

from __future__ import annotations

import codecs
import csv
import json
import re
import unicodedata
from bisect import bisect_left
from itertools import chain
from pathlib import Path

import pandas as pd

from triage_app.files import json_records, limits
from triage_app.files.delimiters import (FIELD_WORDS, GOLD_COLUMNS, SUBJECT_COLUMNS, TEXT_COLUMNS, TEXT_PLURALS,
                                         TITLE_CHECK_ROWS, TITLE_ROWS, name_words, named_separator, sniff_delimiter,
                                         title_note, title_rows)
from triage_app.files.encoding import Decoded, decode, decoding_notes, listed, misnamed, mixed_note
from triage_app.files.json_records import Number as _Number
from triage_app.files.sheets import read_xlsx
from triage_app.files.table import (ABSENT, MAX_CELLS, BadInput, TicketTable, filled, repeated_names_note, respelled,
                                    unique_names)

# A file asked for its first rows is read from a head this long, four times longer until they are in it.
HEAD_BYTES = 1 << 20
# json.loads makes a lone surrogate only from an escape: the file's text tells whether to look at all
ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A line as csv reads one from a file opened with newline="": it ends at \n, \r or \r\n.
LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")


def read_tickets(path: str | Path, sheet: str | int | None = None, limit: int | None = None) -> TicketTable:
    """The file as a table (its first `limit` rows only, when given), or BadInput with one line naming
    the file: never another exception. A CSV, TSV or JSONL file asked for its first rows is read no
    further than them; a file past files/limits.py is refused before it is read whole."""
    path = Path(path)
    if path.is_dir():
        raise BadInput(f"{path}: a folder, not a file of tickets; name the file in it")
    if not path.is_file():
        raise BadInput(f"{path}: no such file" if not path.exists() else f"{path}: not a file (a device or a pipe)")
    try:
        table = _read(path, sheet, limit)
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


def _read(path: Path, sheet: str | int | None, limit: int | None) -> TicketTable:
    suffix = path.suffix.lower()
    what = misnamed(path, suffix)
    if what:
        raise BadInput(f"{path.name}: {what}")
    if suffix in (".xlsx", ".xlsm"):
        return _first_rows(read_xlsx(path, sheet, limit), limit)
    if sheet is not None:     # a sheet asked of a file that has none: its first would be read in silence
        raise BadInput(f"{path.name}: a sheet was named ({sheet!r}), but only an Excel workbook has sheets")
    if suffix == ".json":
        limits.check_file_bytes(path)
        return _read_json(path, path.read_bytes(), limit)
    return _read_lines(path, _read_jsonl if suffix == ".jsonl" else _read_delimited, limit)


class _CutShort(Exception):
    """A head of the file holds fewer rows than were asked for, or cuts the last one in two."""


def _read_lines(path: Path, parse, limit: int | None) -> TicketTable:
    """A file of records in lines: with a limit, read from a growing head until it holds that many."""
    size, head = path.stat().st_size, HEAD_BYTES
    while limit and head < size:
        raw = _head(path, head)
        if raw is None:
            break
        try:
            table = parse(path, raw, limit, cut=True)
            if len(table.frame) >= limit:
                return table
        except _CutShort:
            pass
        head *= 4
    limits.check_file_bytes(path)
    return parse(path, path.read_bytes(), limit, cut=False)


def _head(path: Path, size: int) -> bytes | None:
    """The file's first whole lines within size bytes; None where a byte \\n may sit inside a character."""
    with path.open("rb") as file:
        raw = file.read(size)
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # UTF-32's marks begin with these too
        return None
    return raw[:max(raw.rfind(b"\n"), raw.rfind(b"\r")) + 1]  # a line ends at \n, \r or \r\n


def _first_rows(table: TicketTable, limit: int | None) -> TicketTable:
    limits.check_rows(table.path, len(table.frame) if limit is None else min(len(table.frame), limit))
    if limit is not None:
        table.frame = table.frame.head(limit)
    return table


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
    """The table's name for the column asked for: as typed, or spelled with an accented letter's other Unicode
    form (a header written NFD, as some macOS programs write it, and a name typed NFC look the same)."""
    if column in table.columns:
        return column
    same = [c for c in table.columns if unicodedata.normalize("NFC", c) == unicodedata.normalize("NFC", column)]
    if len(same) != 1:
        raise BadInput(f"no column {column!r}; the columns are: {', '.join(table.columns)}")
    return same[0]


def _first_named(columns: list[str], names: tuple[str, ...]) -> str | None:
    """An exact name first ("message"), then a name made of words that include one, or its plural when that
    names text ("customer_message", "Customer Comments"), and none of FIELD_WORDS."""
    lower = {c.strip().lower(): c for c in columns}
    exact = next((lower[n] for n in names if n in lower), None)
    if exact is not None:
        return exact
    split = {c: name_words(key) for key, c in lower.items()}
    words = {c: w for c, w in split.items() if not w & FIELD_WORDS - set(names)}
    return next((c for n in names for c, w in words.items() if n in w or f"{n}s" in w & TEXT_PLURALS), None)


# delimited text
def _read_delimited(path: Path, raw: bytes, limit: int | None, cut: bool) -> TicketTable:
    """cut: raw is the file's head, which may end inside a quoted field."""
    decoded = decode(raw, path.name)
    if all(part.isspace() for part in decoded.parts if part):
        raise _CutShort() if cut else BadInput(f"{path.name}: the file is empty")
    csv.field_size_limit(limits.MAX_CELL_CHARS)
    named = named_separator(decoded.parts)
    delimiter = named or sniff_delimiter(decoded.parts, ".tsv" == path.suffix.lower())
    # Lines one at a time from the parts, never the whole text in one string: io.StringIO(text) copies it
    # at 4 bytes a character in one step, seconds with the GIL held (the window would freeze).
    reader = csv.reader(_lines(decoded.parts), delimiter=delimiter, strict=True)
    try:
        if named:
            next(reader)      # the sep= line: read past (the file's line numbers stay the reader's)
        titles, header, header_end, below = _header(reader)
        # Kept as columns of strings, not a list per row: 100k row lists are containers the garbage
        # collector would walk, with the GIL held, while the window waits for it.
        columns = [[] for _ in header]
        row_ends = []  # the line each row ends on, to name the rows a line of the file belongs to
        for row, line in chain(below, ((row, reader.line_num) for row in reader)):
            if len(row) != len(header):
                if not filled(row):
                    continue  # a blank line between records is not a ticket
                raise BadInput(f"{path.name}: line {line} has {len(row)} fields, the header has {len(header)}")
            for column, cell in zip(columns, row):
                column.append(cell)
            row_ends.append(line)
            if len(row_ends) == limit:
                break
            if len(row_ends) > limits.MAX_ROWS:
                limits.check_rows(path, len(row_ends))
    except csv.Error as exc:
        if cut and "end of data" in str(exc):
            raise _CutShort() from None
        if "field limit" in str(exc):
            raise BadInput(f"{path.name}: line {reader.line_num}: a field longer than "
                           f"{limits.MAX_CELL_CHARS >> 20} MiB is not a ticket") from None
        raise BadInput(f"{path.name}: line {reader.line_num}: {exc}") from None
    if header and not columns[0]:  # said before pandas spends a second on a frame of 16,000 empty columns
        raise _CutShort() if cut else BadInput(f"{path.name}: the file has a header but no tickets")
    # built by place, then named: built by name, a repeated name would keep one column of the two
    frame = pd.DataFrame(dict(enumerate(columns)), dtype=object) if header else pd.DataFrame()
    frame.columns = unique_names(header)
    notes = [mixed_note(decoded, _rows_of(decoded.legacy_lines, header_end, row_ends))] if decoded.mixed else []
    notes += decoding_notes(decoded) + title_note(titles) + repeated_names_note(header)
    return TicketTable(path, frame, "tsv" if delimiter == "\t" else "csv", decoded.encoding, delimiter,
                       warnings=notes)


def _header(reader) -> tuple[list[list[str]], list[str], int, list[tuple[list[str], int]]]:
    """The title rows above the header, the header, the line it ends on, and the rows (with the line each ends
    on) read past it to tell a title from a one-column file's first rows. Blank lines above it are no row."""
    seen, places = [], []  # each row from the first filled one, with its line; the places of the filled ones
    wide = None            # the first filled row of more than one cell, by its place: the header below a title
    for row in reader:
        if seen or filled(row):
            if filled(row):
                places.append(len(seen))
                wide = len(places) - 1 if wide is None and sum(1 for cell in row if cell.strip()) != 1 else wide
            seen.append((row, reader.line_num))
            if len(places) > (TITLE_ROWS if wide is None else wide + TITLE_CHECK_ROWS):
                break
    if not seen:
        return [], [], reader.line_num, []
    at = places[title_rows([seen[k][0] for k in places])]
    return [seen[k][0] for k in places if k < at], seen[at][0], seen[at][1], seen[at + 1:]


def _rows_of(lines: tuple[int, ...], header_end: int, row_ends: list[int]) -> str:
    """The header and the rows (from 1, as the table numbers them) that hold these lines of the file."""
    last = row_ends[-1] if row_ends else header_end
    rows = sorted({bisect_left(row_ends, line) + 1 for line in lines if header_end < line <= last})
    header = any(line <= header_end for line in lines)
    if not rows:
        return "the header" if header else "blank lines"
    return ("the header and " if header else "") + listed("row", rows)


def _lines(parts: tuple[str, ...]):
    """The text's lines, as csv reads them from a file opened with newline="", across the parts."""
    pending: list[str] = []   # the start of a line that goes on in the next part
    for part in parts:
        # a \r at a part's end may be the first half of a \r\n: the line ends in the next part
        end = max(part.rfind("\n"), part.rfind("\r", 0, len(part) - 1)) + 1
        if not end:
            pending.append(part)
            continue
        whole = "".join([*pending, part[:end]])
        yield from (match.group() for match in LINE.finditer(whole))
        pending = [part[end:]]
    yield from (match.group() for match in LINE.finditer("".join(pending)))


# JSON
def _read_json(path: Path, raw: bytes, limit: int | None) -> TicketTable:
    decoded = decode(raw, path.name)
    text = decoded.text
    if not text.strip():
        raise BadInput(f"{path.name}: the file is empty")
    try:
        data = json_records.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path.name}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), list):
        data = next(iter(data.values()))  # {"tickets": [...]}
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise BadInput(f"{path.name}: expected a JSON list of objects, one per ticket")
    limits.check_rows(path, len(data[:limit]))
    return _records_table(path, data[:limit], "json", decoded, text)


def _read_jsonl(path: Path, raw: bytes, limit: int | None, cut: bool) -> TicketTable:
    decoded = decode(raw, path.name)
    records, text = [], decoded.text
    # only a newline ends a record: splitlines() would also split at U+2028 and \x1c, legal inside JSON strings
    for number, line in enumerate(text.split("\n"), 1):
        if len(records) == limit:
            break
        if not line.strip():
            continue
        try:
            item = _json(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path.name}: line {number} is not valid JSON ({exc.msg})") from None
        if not isinstance(item, dict):
            raise BadInput(f"{path.name}: line {number} is not a JSON object")
        records.append(item)
        limits.check_rows(path, len(records))
    if not records:
        raise _CutShort() if cut else BadInput(f"{path.name}: the file is empty")
    return _records_table(path, records, "jsonl", decoded, text)


def _line_notes(decoded: Decoded) -> list[str]:
    mixed = [mixed_note(decoded, listed("line", list(decoded.legacy_lines)))] if decoded.mixed else []
    return mixed + decoding_notes(decoded)


def _json(line: str):
    """One JSONL record: short, so parsed in one call (a .json file's whole list is not: json_records)."""
    return json.loads(line, parse_float=_Number, parse_int=_Number, object_pairs_hook=json_records.record)


def _records_table(path: Path, records: list[dict], fmt: str, decoded: Decoded, text: str) -> TicketTable:
    frame, notes = _records_frame(records, path.name), _line_notes(decoded) + json_records.repeats_note(records, path.name)
    if _escapes_a_surrogate(text):
        notes += _mend_surrogates(frame, path.name)
    return TicketTable(path, frame, fmt, decoded.encoding, warnings=notes)


def _escapes_a_surrogate(text: str, window: int = 1 << 22) -> bool:
    """ESCAPED_SURROGATE anywhere in the text, searched 4 Mi characters at a time (one search over a big
    file holds the GIL), each window reaching into the next by more than an escape's length."""
    return any(ESCAPED_SURROGATE.search(text, at, at + window + 8) for at in range(0, len(text), window))


def _mend_surrogates(frame: pd.DataFrame, file_name: str) -> list[str]:
    """JSON can escape half of a UTF-16 pair alone (\\ud800): a string that is no text, which no tokenizer,
    encoder or export takes. Read as U+FFFD, and said."""
    mended = 0
    for column in frame.columns:
        cells = frame[column].tolist()
        for row, cell in enumerate(cells):
            if LONE_SURROGATE.search(cell):
                cells[row], mended = LONE_SURROGATE.sub("\ufffd", cell), mended + 1
        frame[column] = pd.Series(cells, index=frame.index, dtype=object)
    return [f"{file_name}: {mended} cell(s) held half of a UTF-16 pair escaped alone (\\ud800-\\udfff), "
            "which is no text: read as \ufffd"] if mended else []


def _records_frame(records: list[dict], file_name: str) -> pd.DataFrame:
    columns = list(dict.fromkeys(key for item in records for key in item))
    if len(records) * len(columns) > MAX_CELLS:
        raise BadInput(f"{file_name}: {len(records):,} records with {len(columns):,} different keys make "
                       f"{len(records) * len(columns):,} cells, more than Triage reads ({MAX_CELLS:,})")
    # by column, as the CSV reader builds its frame: from a list of rows, pandas takes every cell in one call
    cells = [[ABSENT if c not in item else "" if (value := item[c]) is None else _cell(value) for item in records]
             for c in columns]
    frame = pd.DataFrame(dict(enumerate(cells)), dtype=object)
    frame.columns = unique_names(columns)
    return frame


def _cell(value) -> str:
    """A value as the file writes it: a string as itself, a number as spelled, a list or object as JSON."""
    if isinstance(value, _Number):
        return respelled(str(value), _before(value, str(value)))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        shown = "[" + ", ".join(_json_text(v) for v in value) + "]"
        return respelled(shown, _before(value, shown))
    if isinstance(value, dict):
        shown = "{" + ", ".join(f"{_json_text(k)}: {_json_text(v)}" for k, v in value.items()) + "}"
        return respelled(shown, _before(value, shown))
    return json.dumps(value)


def _before(value, shown: str) -> str:
    """The cell as Triage read it before numbers kept their spelling (json's own float and int); a number
    too long for int() did not read then, so its spelling is all there is."""
    try:
        return json.dumps(_plain(value), ensure_ascii=False)
    except ValueError:
        return shown


def _plain(value):
    if isinstance(value, _Number):
        return float(value) if any(c in value for c in ".eE") else int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _json_text(value) -> str:
    """Inside a list or object: a string quoted, a number as spelled."""
    if isinstance(value, str) and not isinstance(value, _Number):
        return json.dumps(value, ensure_ascii=False)
    return _cell(value)

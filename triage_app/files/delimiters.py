"""Which character separates a delimited file's fields: the one Excel's first line names ("sep=;"), or the
one that splits the header into the most fields and the rows below into as many; and which rows above a
table's header are its title ("Ticket export 2026-01-05"), for a CSV and a sheet alike."""

from __future__ import annotations

import csv
import io
import re

from triage_app.files.table import filled

DELIMITERS = ",;\t|"
# The delimiter is judged on the file's head: enough rows to see a pattern, bounded so crafted input stays cheap.
SNIFF_CHARS, SNIFF_ROWS = 64 << 10, 50
# Excel's first line naming the separator ("sep=;"): any one character but a quote or a line's end
SEPARATOR_LINE = re.compile(r'sep=([^"\r\n])[ \t]*(?:\r\n?|\n)', re.IGNORECASE)
# More rows of one cell above the first row of several are a one-column table, not its title.
TITLE_ROWS = 3
# A header below a title has this many rows of more than one cell under it: one stray note beside a ticket of
# a one-column table does not make that ticket the header.
TITLE_CHECK_ROWS = 2

# The names a header gives its columns, which the reader looks for; a one-cell row that is one is a header.
TEXT_COLUMNS = ("text", "body", "description", "message", "ticket", "comment", "content", "issue")
SUBJECT_COLUMNS = ("subject", "title", "summary")
GOLD_COLUMNS = ("category", "label", "queue", "class", "topic", "type", "intent", "gold")
# A name with one of these words ("Ticket #", "Ticket Number", "Ticket Status") names a field of the row,
# never its text or its answer, unless the word is the one looked for ("Ticket Type" is a gold column).
FIELD_WORDS = frozenset({"id", "no", "number", "num", "nr", "#", "key", "ref", "status", "type", "date", "count"})
# Plurals that still name text ("Customer Comments"); "Tickets" or "Issues" in a pivot counts them.
TEXT_PLURALS = frozenset({"texts", "descriptions", "messages", "comments"})
NAME_WORDS = frozenset(TEXT_COLUMNS + SUBJECT_COLUMNS + GOLD_COLUMNS) | FIELD_WORDS | TEXT_PLURALS


def name_words(name: str) -> set[str]:
    """The words of a column's name, lower case ("Ticket #" is {"ticket", "#"})."""
    return set(re.findall(r"[a-z0-9]+|#", name.strip().lower()))


def title_rows(rows: list[list[str]]) -> int:
    """How many of the first filled rows are a title above the header: the rows of one filled cell before the
    first row of more, when that row reads as a header (no name begins with a digit, as an id or a date does:
    "text," above "1,hello" is a header that names one column of two; one name at least is one the reader
    looks for: "Customer message," above "My card was declined,card" is a header and its first ticket) and the
    rows under it are as wide.
    None in a one-column file, nor where a row of one cell is a column's name ("Ticket text" above
    "My card was declined,urgent" names one column of two)."""
    widths = [sum(1 for cell in row if cell.strip()) for row in rows]
    ones = next((k for k, width in enumerate(widths) if width != 1), len(widths))
    if ones > TITLE_ROWS or ones == len(widths) or widths[ones] < 2:
        return 0
    below = widths[ones + 1:ones + 1 + TITLE_CHECK_ROWS]
    if len(below) < TITLE_CHECK_ROWS or min(below) < 2 or any(_column_name(row) for row in rows[:ones]):
        return 0
    header = [cell for cell in rows[ones] if cell.strip()]
    if any(cell.strip()[:1].isdigit() for cell in header) or not any(name_words(c) & NAME_WORDS for c in header):
        return 0
    return ones


def _column_name(row: list[str]) -> bool:
    """Whether a row's one filled cell is made of the words of the names the reader looks for."""
    words = name_words(next(cell for cell in row if cell.strip()))
    return bool(words) and words <= NAME_WORDS


def title_note(titles: list[list[str]]) -> list[str]:
    """The line that tells the person which rows above the header were skipped."""
    if not titles:
        return []
    first = next(cell.strip() for cell in titles[0] if cell.strip())
    return [f"skipped {len(titles)} title row(s) above the header ({first!r})"]


def named_separator(parts: tuple[str, ...]) -> str | None:
    """The separator a first line "sep=;" names (Excel writes it, and reads the file by it), or None."""
    found = SEPARATOR_LINE.match(_start(parts, 16))
    return found.group(1) if found else None


def sniff_delimiter(parts: tuple[str, ...], tsv: bool) -> str:
    """The delimiter that splits the header into the most fields and the rows below into as many.

    csv.Sniffer is not used: its quote regex is super-quadratic on crafted input (seconds per 16 KiB).
    """
    if tsv:
        return "\t"
    head = _start(parts, SNIFF_CHARS)
    best, best_score = ",", (0, 0)
    for delimiter in DELIMITERS:
        rows = _filled_rows(head, delimiter, cut=sum(map(len, parts)) > len(head))
        counts = [len(row) for row in rows]
        title = title_rows(rows[:TITLE_ROWS + 1 + TITLE_CHECK_ROWS])
        # a title of one field ("Ticket export") splits on no delimiter: judged on the header below it, when every
        # row under that agrees (a one-column file whose first tickets hold a ";" is no title and a header)
        if title and all(n == counts[title] for n in counts[title + 1:]):
            counts = counts[title:]
        if counts and counts[0] > 1:
            score = (sum(n == counts[0] for n in counts[1:]), counts[0])
            if score > best_score:
                best, best_score = delimiter, score
    return best


def _start(parts: tuple[str, ...], chars: int) -> str:
    """The text's first characters, joining no more parts than they take."""
    taken, size = [], 0
    for part in parts:
        if size >= chars:
            break
        taken.append(part)
        size += len(part)
    return "".join(taken)[:chars]


def _filled_rows(head: str, delimiter: str, cut: bool) -> list[list[str]]:
    """The head's non-blank rows, split at the delimiter; a row cut off by the head's end is not counted."""
    rows = []
    try:
        for row in csv.reader(io.StringIO(head, newline=""), delimiter=delimiter):
            if filled(row):
                rows.append(row)
            if len(rows) > SNIFF_ROWS:
                return rows
    except csv.Error:
        pass
    return rows[:-1] if cut and len(rows) > 1 else rows

"""Which character separates a delimited file's fields: the one Excel's first line names ("sep=;"), or the
one that splits the header into the most fields and the rows below into as many."""

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
        counts = _field_counts(head, delimiter, cut=sum(map(len, parts)) > len(head))
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

"""A ticket file as read, whatever its format: the table, its column names, and the one-line refusal.

The readers of each format (reader.py for delimited text and JSON, sheets.py for workbooks) build
on this module and never on each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pandas as pd

# A table's rows x columns: one stray cell at XFD1048576 (see sheets.py), or JSON records each with keys of
# their own, must not make a table of billions of cells.
MAX_CELLS = 10_000_000
# a number format of zeros only: Excel pads a whole number to that many digits (7 as 007); a format's
# sections (positive;negative;zero) are split on ";", and "_x" is a space as wide as x, not a digit
_ZERO_PADDED = re.compile(r"-?0+")
_SPACER = re.compile(r"_.")


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


def unique_names(header: list[str]) -> list[str]:
    """One name per header cell, in order, no two alike: a blank is named by its place, a repeat gets
    the first free `_2`, `_3`...

    A suffix skips every name the header already has: `a, a_2, a` names the repeat `a_3`, so no
    column is dropped or takes another's values when the table is built from name to cells. The header's
    own names are given first: a blank's place name never takes a column's (`, column_1` keeps column_1
    for the column the header calls so, and names the blank column_1_2).
    """
    names = [name.strip() for name in header]
    places = [name or f"column_{k + 1}" for k, name in enumerate(names)]
    taken = set(places)
    kept: set[str] = set()
    suffix: dict[str, int] = {}

    def unique(name: str) -> str:
        if name in kept:
            k = suffix.get(name, 1) + 1
            while f"{name}_{k}" in taken:
                k += 1
            suffix[name] = k
            taken.add(name := f"{name}_{k}")
        kept.add(name)
        return name

    out = {k: unique(name) for k, name in enumerate(names) if name}
    out |= {k: unique(places[k]) for k, name in enumerate(names) if not name}
    return [out[k] for k in range(len(names))]


def repeated_names_note(header: list[str]) -> list[str]:
    """One line naming each header name given to more than one column (none when all differ), as the
    readers' notes: the repeats are renamed, and a column chosen by that name is the first."""
    places: dict[str, list[int]] = {}
    for k, name in enumerate(header, 1):
        if name.strip():
            places.setdefault(name.strip(), []).append(k)
    repeated = {name: at for name, at in places.items() if len(at) > 1}
    if not repeated:
        return []
    named = dict(zip(range(1, len(header) + 1), unique_names(header)))
    said = "; ".join(f"“{name}” names columns {', '.join(map(str, at))}, read as "
                     f"{', '.join(f'“{named[k]}”' for k in at)}" for name, at in repeated.items())
    return [f"the header repeats a name: {said}; choosing a column by a repeated name takes the first"]


def cell_text(value, number_format: str | None = None) -> str:
    """A spreadsheet cell as the sheet shows it, the way a helpdesk id must leave it: a whole number
    without ".0", any other number as written (repr, never rounded), a date without a time of 00:00:00,
    a whole number in a zero-padded format ("000") padded as the sheet shows it (007)."""
    if isinstance(value, str):
        return value
    zeros = number_format and _whole(value) and _zeros(number_format, negative=value < 0)
    if zeros:
        plain = cell_text(value)
        sign, digits = ("-", plain[1:]) if plain.startswith("-") else ("", plain)
        return respelled(sign + digits.zfill(zeros), plain)
    if isinstance(value, float):
        return _whole_float(value) if value.is_integer() else repr(value)
    if isinstance(value, datetime) and value == datetime.combine(value.date(), datetime.min.time()):
        return Respelled(value.date().isoformat(), str(value))
    return str(value)


def _zeros(number_format: str, negative: bool) -> int:
    """How many digits a format of zeros pads a whole number to (0: not such a format). A negative number
    takes the second section where there is one: "00000;-00000" shows -5 as -00005."""
    sections = number_format.split(";")
    section = _SPACER.sub("", sections[1] if negative and len(sections) > 1 else sections[0])
    if not _ZERO_PADDED.fullmatch(section) or (section.startswith("-") and not (negative and len(sections) > 1)):
        return 0
    return section.count("0")


def _whole_float(value: float) -> str:
    """A whole number stored as a float, in the digits the file wrote: past 2**53 int() invents binary's
    (1.23456789012345e+17 as 123456789012344992, where Excel shows 123456789012345000); its row hashes as
    before, so the labels on it stay."""
    exact = str(int(value))
    shown = str(int(Decimal(repr(value))))    # repr: the shortest decimal that is this float
    return exact if shown == exact else Respelled(shown, exact)


def _whole(value) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


class Respelled(str):
    """A cell read as the file spells it (a sheet's date 2026-01-02, a JSON number 1e5 or 12.50) that a
    row's hash reads as Triage read it before (2026-01-02 00:00:00, 100000.0, 12.5; files/ticket_keys.py),
    so a person's labels on the file's rows stay on them."""

    def __new__(cls, shown: str, hashed: str):
        cell = super().__new__(cls, shown)
        cell.hashed = hashed
        return cell

    def __reduce__(self):   # a copy (pickled to a worker) keeps what its hash reads
        return Respelled, (str(self), self.hashed)


class Absent(str):
    """A cell the row does not have: a JSON record without the column's key, a sheet row's empty cell outside
    its header's columns. Shown and exported empty, left out of the row's hash (files/ticket_keys.py): a key
    or a stray cell of another row, read or not (--limit, a record appended), never changes which ticket a
    row's hash names."""

    __slots__ = ()


ABSENT = Absent()


def respelled(shown: str, hashed: str) -> str:
    """shown, hashed as before where that differs."""
    return shown if shown == hashed else Respelled(shown, hashed)


def filled(row: list[str]) -> bool:
    """Whether a row has any text: a blank line between records is not a ticket."""
    return any(cell.strip() for cell in row)
